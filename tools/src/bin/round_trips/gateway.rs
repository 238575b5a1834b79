//! The seats' rows with `PLAYER_GATEWAY=enabled` (shared/src/seats.rs),
//! on tables of their own: a FULFILLED placement for one player and for a party of 3, a
//! FlexMatch match of 2 (the `matchmaking.rs` players and events), `rejoinSession` and
//! `refreshConnectionDetails`. The scripted GameLift answers as a player gateway fleet
//! (relay endpoints and a token per player), each GetPlayerConnectionDetails counted.
//! Set up as the disabled rows are (players connected, each inbox with a message), so
//! that the difference is the gateway's.

use std::sync::Arc;

use aws_adapters::dynamodb::{DynamoMessageStore, DynamoPlacementStore, DynamoPlayerStore};
use contracts::events::reply_frame;
use edge::websocket::RouteHandler;
use serde_json::json;
use shared::config::PlayerGateway;
use shared::domain::{PlacementId, PlayerId};
use shared::placement::PlacementRecord;
use shared::ports::PlacementRecorder;
use shared::requests::Route;

use crate::matchmaking::{ask, event, start_ticket};
use crate::scenarios::placement_event;
use crate::{Bench, arrive, client_event, lambda_event, now};

type Error = lambda_runtime::Error;

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("a player id")
}

pub async fn rows(client: &aws_sdk_dynamodb::Client, bench: &mut Bench) -> Result<(), Error> {
    let mut config = crate::fresh_tables(client, "gw").await?;
    config.player_gateway = PlayerGateway::Enabled;
    let config = Arc::new(config);
    let players = DynamoPlayerStore::new(client.clone(), config.players_table.clone());
    let messages = DynamoMessageStore::new(client.clone(), config.messages_table.clone());
    let placements = DynamoPlacementStore::new(client.clone(), config.placements_table.clone());
    bench.gamelift.with_player_gateway(now() + 3_600_000);
    let w = bench.wiring(client, config.clone());
    let placement = session_placement_request::wire(&w);
    let on_placement = on_placement_event::wire(&w);
    let rejoin = rejoin_session::wire(&w);
    let handler = matchmaking::wire(&w);
    let on_matchmaking = on_matchmaking_event::wire(&w);
    let party = ["peer0", "peer1", "peer2"];
    for name in ["alice", "bob", "carol"].iter().chain(&party) {
        arrive(&players, &messages, "rt-gw", name).await?;
    }

    // A solo placement, requested as a client does (set-up), then fulfilled.
    let placed = bench
        .route(placement.handle(client_event(
            Route::SessionPlacementRequest,
            "carol",
            "c-carol",
            json!({}),
        )))
        .await?;
    let frame = reply_frame(&placed);
    let raw = frame["placementId"]
        .as_str()
        .ok_or_else(|| format!("no placementId in {frame}"))?;
    let solo = PlacementId::parse(raw)?;
    bench.reset();
    let fulfilled = placement_event(&solo, "PlacementFulfilled", &["carol".to_owned()]);
    bench
        .invoke(on_placement.handle(lambda_event(fulfilled)))
        .await?;
    bench.row(
        "gw_placement_fulfilled_1",
        "PLAYER_GATEWAY=enabled: placement event: FULFILLED, 1 player",
        "1 read (the placement: ours and PENDING?) + 1 inbox head query per player + 1 transaction + ceil(P / 25) GameLift calls",
    );

    // A party of 3's placement (its record names the 3 members), fulfilled.
    let group: Vec<String> = party.iter().map(|p| (*p).to_owned()).collect();
    let party_placement = PlacementId::new_at(now());
    let mut record = PlacementRecord::pending(
        party_placement.clone(),
        player(party[0]),
        "default-queue",
        now(),
    );
    record.player_ids = party.iter().map(|p| player(p)).collect();
    placements.create(&record).await?;
    bench.reset();
    let fulfilled = placement_event(&party_placement, "PlacementFulfilled", &group);
    bench
        .invoke(on_placement.handle(lambda_event(fulfilled)))
        .await?;
    bench.row(
        "gw_placement_fulfilled_party_3",
        "PLAYER_GATEWAY=enabled: placement event: FULFILLED, a party of 3",
        "1 read + P inbox head queries + 1 transaction of 1 + 2P items + ceil(P / 25) GameLift calls",
    );

    for route in [Route::RejoinSession, Route::RefreshConnectionDetails] {
        let reply = bench
            .route(rejoin.handle(client_event(route, "carol", "c-carol", json!({}))))
            .await?;
        let frame = reply_frame(&reply);
        if frame["gameSession"]["connection"]["playerGatewayToken"].is_null() {
            return Err(format!("{route}: no token in {frame}").into());
        }
        let (id, target) = match route {
            Route::RejoinSession => (
                "gw_rejoin_session",
                "1 read + 1 write + 2 GameLift calls (a new player session, its details)",
            ),
            _ => (
                "gw_refresh_connection_details",
                "1 rate-limit write + 1 read + 1 write + 1 GameLift call",
            ),
        };
        bench.row(id, &format!("PLAYER_GATEWAY=enabled: {route}"), target);
    }

    // A match of 2, as `matchmaking.rs` makes it (set-up), then MatchmakingSucceeded.
    let start = json!({"attributes": {"skill": 1000}, "latencies": {"eu-west-1": 20}});
    let a = start_ticket(bench, &handler, "alice", &start).await?;
    let b = start_ticket(bench, &handler, "bob", &start).await?;
    let t0 = now();
    for (sample, at) in [
        (
            include_str!("../../../../events/matchmaking-searching.json"),
            t0,
        ),
        (
            include_str!("../../../../events/matchmaking-potential-match-created.json"),
            t0 + 1,
        ),
    ] {
        let e = event(sample, &a, &b, at);
        bench.invoke(on_matchmaking.handle(lambda_event(e))).await?;
    }
    let accept = json!({"ticketId": a, "accept": true});
    ask(bench, &handler, "alice", Route::AcceptMatch, accept).await?;
    bench.reset();
    let succeeded = event(
        include_str!("../../../../events/matchmaking-succeeded.json"),
        &a,
        &b,
        t0 + 2,
    );
    bench
        .invoke(on_matchmaking.handle(lambda_event(succeeded)))
        .await?;
    bench.row(
        "gw_mm_event_succeeded",
        "PLAYER_GATEWAY=enabled: on-matchmaking-event MatchmakingSucceeded (2 tickets)",
        "per ticket: 1 read + 1 transaction (ticket, slot cleared + seat, 1 push); ceil(P / 25) GameLift calls for the match",
    );
    Ok(())
}
