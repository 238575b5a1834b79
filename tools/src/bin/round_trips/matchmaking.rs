//! The matchmaking operations (shared/src/ports/tickets.rs), on tables of
//! their own: alice and bob matched 1v1 with acceptance, carol stopping her ticket. The
//! FlexMatch events are the `events/matchmaking-*.json` samples with these tickets' ids.
//! Every inbox has had a message first, so the rows show the usual append.

use std::sync::Arc;

use aws_adapters::dynamodb::{DynamoMessageStore, DynamoPlayerStore};
use contracts::events::reply_frame;
use edge::websocket::RouteHandler;
use matchmaking::MatchmakingHandler;
use serde_json::{Value, json};
use shared::requests::Route;

use crate::{Bench, arrive, client_event, lambda_event, now};

type Error = lambda_runtime::Error;

const SAMPLE_A: &str = "mm-019ab4c0-1f2e-7a3b-8c4d-5e6f7a8b9c0d";
const SAMPLE_B: &str = "mm-019ab4c0-2a3b-7c4d-9e5f-6a7b8c9d0e1f";

/// A sample event with the samples' tickets replaced by `a` and `b`, emitted at `at`.
pub fn event(sample: &str, a: &str, b: &str, at: i64) -> Value {
    let text = sample.replace(SAMPLE_A, a).replace(SAMPLE_B, b);
    let mut event: Value = serde_json::from_str(&text).expect("a sample is JSON");
    event["time"] = json!(local::time::iso8601(at));
    event
}

pub async fn ask(
    bench: &mut Bench,
    handler: &MatchmakingHandler,
    player: &str,
    route: Route,
    payload: Value,
) -> Result<Value, Error> {
    let event = client_event(route, player, &format!("c-{player}"), payload);
    let response = bench.route(handler.handle(event)).await?;
    Ok(reply_frame(&response))
}

/// `player` starts matchmaking with `body`: the ticket's id.
pub async fn start_ticket(
    bench: &mut Bench,
    handler: &MatchmakingHandler,
    player: &str,
    body: &Value,
) -> Result<String, Error> {
    let ack = ask(
        bench,
        handler,
        player,
        Route::StartMatchmaking,
        body.clone(),
    )
    .await?;
    Ok(ack["ticketId"].as_str().ok_or("no ticket")?.to_owned())
}

pub async fn rows(client: &aws_sdk_dynamodb::Client, bench: &mut Bench) -> Result<(), Error> {
    let config = crate::fresh_tables(client, "mm").await?;
    let config = Arc::new(config);
    let players = Arc::new(DynamoPlayerStore::new(
        client.clone(),
        config.players_table.clone(),
    ));
    let messages = DynamoMessageStore::new(client.clone(), config.messages_table.clone());
    let w = bench.wiring(client, config.clone());
    let handler = matchmaking::wire(&w);
    let events = on_matchmaking_event::wire(&w);
    for name in ["alice", "bob", "carol"] {
        arrive(players.as_ref(), &messages, "rt-mm", name).await?;
    }
    bench.reset();

    ask(
        bench,
        &handler,
        "carol",
        Route::SetMatchmakingAttributes,
        json!({"attributes": {"skill": 900}}),
    )
    .await?;
    bench.row(
        "mm_set_attributes",
        Route::SetMatchmakingAttributes.as_str(),
        "1 write",
    );
    let start = json!({"attributes": {"skill": 1000}, "latencies": {"eu-west-1": 20}});
    let a = start_ticket(bench, &handler, "alice", &start).await?;
    bench.row(
        "mm_start",
        Route::StartMatchmaking.as_str(),
        "1 write (pending slot) + 1 write (ticket) + 1 GameLift call",
    );
    ask(
        bench,
        &handler,
        "alice",
        Route::StartMatchmaking,
        start.clone(),
    )
    .await?;
    bench.row(
        "mm_start_conflict",
        "startMatchmaking while a ticket is live (conflict)",
        "1 failed write (its old item names the ticket) + 1 read (still live?)",
    );
    let b = start_ticket(bench, &handler, "bob", &start).await?;
    bench.reset();

    let t0 = now();
    let searching = event(
        include_str!("../../../../events/matchmaking-searching.json"),
        &a,
        &b,
        t0,
    );
    bench
        .invoke(events.handle(lambda_event(searching.clone())))
        .await?;
    bench.row(
        "mm_event_searching",
        "on-matchmaking-event MatchmakingSearching (1 player)",
        "1 read (ticket) + 1 transaction (ticket, 1 push)",
    );
    bench.invoke(events.handle(lambda_event(searching))).await?;
    bench.row(
        "mm_event_duplicate",
        "on-matchmaking-event duplicate",
        "1 read, nothing written",
    );
    let potential = event(
        include_str!("../../../../events/matchmaking-potential-match-created.json"),
        &a,
        &b,
        t0 + 1,
    );
    bench.invoke(events.handle(lambda_event(potential))).await?;
    bench.row(
        "mm_event_potential",
        "on-matchmaking-event PotentialMatchCreated (2 tickets, acceptance)",
        "per ticket: 1 read + 1 transaction (ticket, 1 push)",
    );
    ask(
        bench,
        &handler,
        "alice",
        Route::AcceptMatch,
        json!({"ticketId": a, "accept": true}),
    )
    .await?;
    bench.row(
        "mm_accept",
        Route::AcceptMatch.as_str(),
        "1 read (ticket) + 1 GameLift call",
    );
    let succeeded = event(
        include_str!("../../../../events/matchmaking-succeeded.json"),
        &a,
        &b,
        t0 + 2,
    );
    bench.invoke(events.handle(lambda_event(succeeded))).await?;
    bench.row(
        "mm_event_succeeded",
        "on-matchmaking-event MatchmakingSucceeded (2 tickets)",
        "per ticket: 1 read + 1 transaction (ticket, slot cleared + seat, 1 push)",
    );

    ask(bench, &handler, "carol", Route::StartMatchmaking, json!({})).await?;
    bench.reset();
    ask(bench, &handler, "carol", Route::StopMatchmaking, json!({})).await?;
    bench.row(
        "mm_stop",
        "stopMatchmaking (the live ticket)",
        "1 read (player: which ticket) + 1 read (ticket) + 1 GameLift call",
    );
    Ok(())
}
