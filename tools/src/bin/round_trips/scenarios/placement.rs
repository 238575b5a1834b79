//! Placement rows: sessionPlacementRequest (placed, conflicting, refused by GameLift),
//! GameLift's placement events, rejoinSession, joinFriendGame and cancelPlacement.

use contracts::friend_store_contract::act_on;
use edge::websocket::RouteHandler;
use serde_json::{Value, json};
use shared::domain::PlacementId;
use shared::friends::Action;
use shared::placement::PlacementRecord;
use shared::ports::{GameLiftError, PlacementRecorder};
use shared::requests::Route;

use super::{Error, World, player};
use crate::{Bench, client_event, lambda_event, now};

/// A GameLift placement event (EventBridge form; the SNS form carries the same JSON).
pub(crate) fn placement_event(
    placement_id: &PlacementId,
    outcome: &str,
    players: &[String],
) -> Value {
    let mut detail = json!({
        "type": outcome,
        "placementId": placement_id,
        "startTime": "2026-11-22T05:00:01.123Z",
        "endTime": "2026-11-22T05:00:09.876Z",
    });
    if outcome == "PlacementFulfilled" {
        let sessions: Vec<Value> = players
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"playerId": p, "playerSessionId": format!("psess-{i}")}))
            .collect();
        detail["port"] = json!("7777");
        detail["gameSessionArn"] = json!("arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gsess-1");
        detail["ipAddress"] = json!("52.30.10.20");
        detail["dnsName"] = json!("ec2-52-30-10-20.eu-west-1.compute.amazonaws.com");
        detail["gameSessionRegion"] = json!("eu-west-1");
        detail["placedPlayerSessions"] = json!(sessions);
    }
    json!({
        "version": "0",
        "id": "6f3e7b1a-0c2d-4e5f-9a8b-7c6d5e4f3a21",
        "detail-type": "GameLift Queue Placement Event",
        "source": "aws.gamelift",
        "account": "123456789012",
        "time": "2026-11-22T05:00:10Z",
        "region": "eu-west-1",
        "resources": ["arn:aws:gamelift:eu-west-1:123456789012:gamesessionqueue/default-queue"],
        "detail": detail,
    })
}

impl World {
    pub(super) async fn placement(&self, bench: &mut Bench) -> Result<(), Error> {
        let gamelift = bench.gamelift.clone();
        let placing = session_placement_request::wire(&self.wiring);
        let cancel = cancel_placement::wire(&self.wiring);
        let rejoin = rejoin_session::wire(&self.wiring);
        let on_event = on_placement_event::wire(&self.wiring);
        let place = |player: &str, connection: &str| {
            client_event(
                Route::SessionPlacementRequest,
                player,
                connection,
                json!({}),
            )
        };
        let pending_of = |reply: aws_lambda_events::apigw::ApiGatewayProxyResponse| -> Result<PlacementId, Error> {
            let frame = contracts::events::reply_frame(&reply);
            let raw = frame["placementId"]
                .as_str()
                .ok_or_else(|| format!("no placementId in {frame}"))?;
            Ok(PlacementId::parse(raw)?)
        };
        bench.reset();
        let alice_placement = pending_of(bench.route(placing.handle(place("alice", "c3"))).await?)?;
        bench.row(
            "session_placement_request",
            Route::SessionPlacementRequest.as_str(),
            "1 rate-limit write (2 in a new minute) + 2 writes + 1 GameLift call",
        );
        bench.route(placing.handle(place("alice", "c3"))).await?;
        bench.row(
            "session_placement_conflict",
            "sessionPlacementRequest while one is pending (conflict)",
            "1 rate-limit write + 1 write (+1 read: is the pending one still going?)",
        );
        let alice = vec!["alice".to_owned()];
        let fulfilled = placement_event(&alice_placement, "PlacementFulfilled", &alice);
        bench
            .invoke(on_event.handle(lambda_event(fulfilled.clone())))
            .await?;
        bench.row(
            "placement_fulfilled_1",
            "placement event: FULFILLED, 1 player",
            "1 inbox head query per player + 1 transaction",
        );
        bench
            .invoke(on_event.handle(lambda_event(fulfilled)))
            .await?;
        bench.row(
            "placement_duplicate",
            "placement event: the same FULFILLED again (duplicate)",
            "1 query + 1 transaction, cancelled by its condition",
        );
        bench
            .route(rejoin.handle(client_event(Route::RejoinSession, "alice", "c3", json!({}))))
            .await?;
        bench.row(
            "rejoin_session",
            Route::RejoinSession.as_str(),
            "1 read + 1 write + 1 GameLift call",
        );
        // A friend of alice's joins her game.
        let stores = &self.wiring.stores;
        let (reader, commits) = (stores.friend_reader(), stores.friend_commits());
        for (me, them) in [("pal", "alice"), ("alice", "pal")] {
            act_on(&*reader, &*commits, me, them, Action::Add, now()).await;
        }
        bench.reset();
        let join = json!({"playerId": "alice"});
        bench
            .route(rejoin.handle(client_event(Route::JoinFriendGame, "pal", "c9", join)))
            .await?;
        bench.row(
            "join_friend_game",
            Route::JoinFriendGame.as_str(),
            "1 rate-limit write (2 in a new minute) + 1 read (Friends) + 1 read (Players) + 1 GameLift call + 1 write",
        );

        for p in [2usize, 8] {
            let group: Vec<String> = (0..p).map(|i| format!("peer{i}")).collect();
            let placement_id = PlacementId::new_at(now());
            let mut record = PlacementRecord::pending(
                placement_id.clone(),
                player(&group[0]),
                "default-queue",
                now(),
            );
            record.player_ids = group.iter().map(|p| player(p)).collect();
            self.placements.create(&record).await?;
            bench.reset();
            let event = placement_event(&placement_id, "PlacementFulfilled", &group);
            bench.invoke(on_event.handle(lambda_event(event))).await?;
            bench.row(
                &format!("placement_fulfilled_{p}"),
                &format!("placement event: FULFILLED, {p} players"),
                "P inbox head queries + 1 transaction of 1 + 2P items",
            );
        }

        let bob_placement = pending_of(placing.handle(place("peer1", "p1")).await?)?;
        bench.reset();
        bench
            .route(cancel.handle(client_event(
                Route::CancelPlacement,
                "peer1",
                "p1",
                json!({}),
            )))
            .await?;
        bench.row(
            "cancel_placement",
            Route::CancelPlacement.as_str(),
            "1 read + 1 GameLift call",
        );
        let cancelled = placement_event(&bob_placement, "PlacementCancelled", &[]);
        bench
            .invoke(on_event.handle(lambda_event(cancelled)))
            .await?;
        bench.row(
            "placement_cancelled_1",
            "placement event: CANCELLED (TIMED_OUT, FAILED alike), 1 player",
            "1 read (the event names no players) + 1 query + 1 transaction",
        );

        gamelift.fail_next_start(GameLiftError::InvalidRequest {
            message: "no such region".into(),
        });
        bench.route(placing.handle(place("peer2", "p2"))).await?;
        bench.row(
            "placement_refused",
            "sessionPlacementRequest refused by GameLift",
            "4 writes (pending, record, FAILED, cleared) + 1 GameLift call",
        );
        Ok(())
    }
}
