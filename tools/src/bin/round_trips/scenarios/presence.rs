//! Presence rows: subscribePresence, setActivity, presence events to watchers, and the
//! presence-timeout sweeper on a Players table of its own.

use std::sync::Arc;

use aws_adapters::dynamodb::create_players_table;
use aws_lambda_events::eventbridge::EventBridgeEvent;
use contracts::events::route_event;
use edge::websocket::RouteHandler;
use serde_json::{Value, json};
use shared::requests::Route;

use super::{Error, World};
use crate::{Bench, client_event, lambda_event, now};

/// `events/presence-connected.json` about `player`.
fn presence_bus_event(player: &str) -> Result<EventBridgeEvent<Value>, Error> {
    let mut raw: Value = serde_json::from_str(include_str!(
        "../../../../../events/presence-connected.json"
    ))?;
    raw["detail"]["playerId"] = json!(player);
    raw["detail"]["at"] = json!(now());
    Ok(serde_json::from_value(raw)?)
}

fn schedule_event() -> Result<EventBridgeEvent<Value>, Error> {
    Ok(serde_json::from_str(include_str!(
        "../../../../../events/schedule-presence-timeout.json"
    ))?)
}

impl World {
    pub(super) async fn presence(&self, bench: &mut Bench) -> Result<(), Error> {
        // Ten watchers of "star" (live, so their presence frames are delivered).
        let watchers: Vec<String> = (0..10).map(|i| format!("fan{i}")).collect();
        for (i, fan) in watchers.iter().enumerate() {
            self.live(bench, fan, &format!("f{i}")).await?;
        }
        let targets: Vec<String> = (0..10).map(|i| format!("friend{i}")).collect();
        bench.reset();
        bench
            .route(self.subscribe.handle(client_event(
                Route::SubscribePresence,
                "fan0",
                "f0",
                json!({"playerIds": targets}),
            )))
            .await?;
        bench.row(
            "subscribe_presence_10",
            "subscribePresence to 10 players",
            "1 BatchWriteItem + 1 BatchGetItem (their presence)",
        );
        let activity = |text: &str| {
            client_event(
                Route::SetActivity,
                "fan0",
                "f0",
                json!({"activity": text, "details": {"map": "dust"}}),
            )
        };
        bench.reset();
        bench
            .route(self.subscribe.handle(activity("in lobby")))
            .await?;
        bench.row(
            "set_activity",
            Route::SetActivity.as_str(),
            "1 rate-limit write (2 in a new minute) + 1 write + 1 PutEvents",
        );
        for (i, fan) in watchers.iter().enumerate() {
            self.subscribe
                .handle(client_event(
                    Route::SubscribePresence,
                    fan,
                    &format!("f{i}"),
                    json!({"playerIds": ["star"]}),
                ))
                .await?;
        }
        bench.reset();
        // (who comes online, row id, label, target)
        for (star, id, label, target) in [
            (
                "nobody-watches",
                "presence_event_no_watchers",
                "presence event, nobody watching",
                "1 query (watchers) ‖ 1 query (friends)",
            ),
            (
                "star",
                "presence_event_10_watchers_first",
                "presence event, 10 watchers, first message to each inbox",
                "1 query (watchers) ‖ 1 query (friends) + 10 appends (each starts its inbox: a two-item transaction)",
            ),
            (
                "star",
                "presence_event_10_watchers",
                "presence event, 10 watchers, later messages",
                "1 query (watchers) ‖ 1 query (friends) + 10 appends (a query and a conditional write each)",
            ),
        ] {
            self.presence_event(bench, star, (id, label, target))
                .await?;
        }
        self.sweeps(bench).await
    }

    /// Measures `on-presence-event` telling of `player` coming online
    /// (`events/presence-connected.json`), as the row (id, label, target).
    pub(super) async fn presence_event(
        &self,
        bench: &mut Bench,
        player: &str,
        (id, label, target): (&str, &str, &str),
    ) -> Result<(), Error> {
        let event = lambda_event(presence_bus_event(player)?);
        bench.invoke(self.on_presence.handle(event)).await?;
        bench.row(id, label, target);
        Ok(())
    }

    /// The sweeper on a Players table of its own: empty, then 100 players heartbeating,
    /// then those 100 silent past the timeout.
    async fn sweeps(&self, bench: &mut Bench) -> Result<(), Error> {
        let table = format!("{}-sweep", self.config.players_table);
        create_players_table(&self.client, &table).await?;
        let mut config = (*self.config).clone();
        config.players_table = table.clone();
        // The mode that asks API Gateway: its rows are a superset of heartbeat mode's
        // (sweep_100_silent's GetConnection calls are the difference).
        config.presence_liveness = shared::config::PresenceLiveness::ConnectionActivity;
        let config = Arc::new(config);
        // Nobody swept here is in a party: the parties index is queried once per shard.
        let w = bench.wiring(&self.client, config.clone());
        let sweeper = presence_timeout::wire(&w);
        bench.reset();
        bench
            .invoke(sweeper.handle(lambda_event(schedule_event()?)))
            .await?;
        bench.row(
            "sweep_empty",
            "presence-timeout run, nobody online",
            "1 query per shard",
        );
        let connect = connect::wire(&w);
        for i in 0..100 {
            let name = format!("swept{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
        }
        bench.reset();
        bench
            .invoke(sweeper.handle(lambda_event(schedule_event()?)))
            .await?;
        bench.row(
            "sweep_100_online",
            "presence-timeout run, 100 players online and heartbeating",
            "1 query per shard",
        );
        // Their sessions end: each closes, and the sweeper retires it after the grace.
        let disconnect = disconnect::wire(&w);
        for i in 0..100 {
            let name = format!("swept{i}");
            disconnect
                .handle(route_event("$disconnect", &name, &name, now(), None))
                .await?;
        }
        let after_grace = now() + config.reconnect_grace.as_millis() as i64 + 1_000;
        bench.reset();
        bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(after_grace).await) })
            .await?;
        bench.row(
            "sweep_100_grace_over",
            "presence-timeout run, 100 sessions ended (closed, grace over)",
            "1 query per shard + 1 write per player (+ 1 PutEvents per 10)",
        );
        for i in 0..100 {
            let name = format!("silent{i}");
            connect
                .handle(route_event("$connect", &name, &name, now(), None))
                .await?;
        }
        let later = now() + config.heartbeat_timeout.as_millis() as i64 + 1_000;
        bench.reset();
        bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(later).await) })
            .await?;
        bench.row(
            "sweep_100_silent",
            "presence-timeout run, 100 players silent past the timeout (zombies)",
            "1 query per shard + 1 GetConnection + 1 write per player (+ close, + 1 PutEvents per 10)",
        );
        // 100 players past their deadline who ping: no cursor heartbeat moved `sweepAt`,
        // but API Gateway saw each socket a second before the sweep (GetConnection's
        // `lastActiveAt`), so each stays online and nothing is written. The sweep's time
        // is taken once every player has connected: however slowly the connects ran,
        // each deadline (its connect's time + the timeout) is then behind it.
        let pinging: Vec<String> = (0..100).map(|i| format!("pinging{i}")).collect();
        for name in &pinging {
            connect
                .handle(route_event("$connect", name, name, now(), None))
                .await?;
        }
        let later = now() + config.heartbeat_timeout.as_millis() as i64 + 1_000;
        for name in &pinging {
            bench.gateway.set_last_active(name, later - 1_000);
        }
        bench.reset();
        let summary = bench
            .invoke(async { Ok::<_, Error>(sweeper.sweep_once(later).await) })
            .await?;
        if summary.still_active != 100 || summary.swept != 0 {
            return Err(
                format!("the pinging players were not all left online: {summary:?}").into(),
            );
        }
        bench.row(
            "sweep_100_pinging",
            "presence-timeout run, 100 players online past their deadline who ping",
            "1 query per shard + 1 GetConnection per player, no writes",
        );
        Ok(())
    }
}
