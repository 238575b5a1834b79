//! The matchmaking routes on in-memory stores and a scripted matchmaker.

use std::collections::BTreeMap;

use contracts::events::{reply_frame, route_event};
use contracts::fake_matchmaker::{FakeMatchmaker, MatchmakerCall};
use contracts::fixtures::{T0, assert_refused, connected, placement_id, player, player_record};
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryPlacementStore, InMemoryPlayerStore, InMemoryTicketStore};
use serde_json::{Value, json};
use shared::domain::PlacementId;
use shared::matchmaking::{AttributeValue, TicketStatus};
use shared::matchmaking::{TicketChange, TicketPlayerChange, TicketRecord};
use shared::pending::Pending;
use shared::placement::PlacementRecord;
use shared::ports::{PendingSlots, PlacementRecorder, TicketChanges};

use super::*;

/// alice leads a party of alice and bob; carol and dave are on their own.
struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    tickets: Arc<InMemoryTicketStore>,
    matchmaker: Arc<FakeMatchmaker>,
    handler: MatchmakingHandler,
}

async fn world_with(settings: MatchmakingSettings) -> World {
    let mut w = TestWiring::new();
    // `wire` counts starts against the placement requests' limit.
    w.config.rate_limits.placements_per_minute = settings.requests_per_minute;
    w.matchmaking = settings;
    let players = w.tables.players.clone();
    for name in ["alice", "bob", "carol", "dave"] {
        connected(&*players, name, &format!("c-{name}"), T0 - 1_000).await;
    }
    w.party_of(&["alice", "bob"], 8, T0).await;
    players
        .set_placement_latencies(&player("bob"), &[("eu-west-1".into(), 35)])
        .await
        .unwrap();

    World {
        handler: wire(&w.wiring()),
        players,
        placements: w.tables.placements.clone(),
        tickets: w.tables.tickets.clone(),
        matchmaker: w.matchmaker.clone(),
    }
}

async fn world() -> World {
    world_with(MatchmakingSettings {
        configurations: vec!["ranked".into(), "casual".into()],
        // The limit has its own test.
        requests_per_minute: 0,
    })
    .await
}

impl World {
    async fn send(&self, who: &str, route: &str, body: Value) -> Value {
        let text = json!({"route": route, "requestId": "r1", "body": body}).to_string();
        let event = route_event(route, who, &format!("c-{who}"), T0, Some(&text));
        reply_frame(&self.handler.handle(event).await.unwrap())
    }

    async fn start(&self, who: &str, body: Value) -> Value {
        self.send(who, START_ROUTE, body).await
    }

    async fn ticket(&self, id: &Value) -> TicketRecord {
        let id = TicketId::parse(id.as_str().unwrap()).unwrap();
        self.tickets.get(&id).await.unwrap().unwrap()
    }

    async fn pending(&self, who: &str) -> Option<Pending> {
        player_record(&*self.players, who).await.pending
    }

    /// Moves a ticket to `to` as an event would (nothing pushed).
    async fn move_to(&self, ticket: &TicketRecord, to: TicketStatus) {
        let change = TicketChange {
            ticket_id: ticket.ticket_id.clone(),
            from: ticket.status,
            from_at: ticket.status_at,
            to,
            to_at: ticket.status_at + 1,
            match_id: None,
            game_session: None,
            player_sessions: BTreeMap::new(),
            players: ticket
                .player_ids
                .iter()
                .map(|p| TicketPlayerChange {
                    player_id: p.clone(),
                    seat: None,
                    message: None,
                })
                .collect(),
            now: T0,
        };
        assert!(self.tickets.advance(&change).await.unwrap());
    }
}

#[tokio::test]
async fn given_a_solo_player_when_starting_then_ack_queued_with_the_ticket_recorded_pending_and_started()
 {
    let w = world().await;
    let ack = w
        .start(
            "carol",
            json!({"attributes": {"skill": 31}, "latencies": {"eu-west-1": 20}}),
        )
        .await;
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["route"], "startMatchmaking");
    assert_eq!(ack["status"], "QUEUED");
    let ticket = w.ticket(&ack["ticketId"]).await;
    assert_eq!(ticket.status, TicketStatus::Queued);
    assert_eq!(ticket.configuration, "ranked");
    assert_eq!(ticket.player_ids, vec![player("carol")]);
    assert_eq!(ticket.ticket_id.requested_at(), Some(T0));
    assert_eq!(
        w.pending("carol").await,
        Some(Pending::Ticket(ticket.ticket_id.clone()))
    );
    let calls: [MatchmakerCall; 1] = w.matchmaker.calls().try_into().unwrap();
    let [MatchmakerCall::Start(start)] = calls else {
        panic!("one StartMatchmaking")
    };
    assert_eq!(start.ticket_id, ticket.ticket_id);
    assert_eq!(start.configuration, "ranked");
    assert_eq!(
        start.players[0].attributes["skill"],
        AttributeValue::Number(31.0)
    );
    assert_eq!(start.players[0].latencies, vec![("eu-west-1".into(), 20)]);
}

#[tokio::test]
async fn given_a_live_ticket_or_a_pending_placement_then_start_is_a_conflict_naming_it() {
    let w = world().await;
    let first = w.start("carol", json!({"configuration": "casual"})).await;
    let again = w.start("carol", json!({})).await;
    assert_refused(&again, "conflict", "stopMatchmaking");
    assert_eq!(again["ticketId"], first["ticketId"]);

    let placement = placement_id(PlacementId::new_at(T0).as_str());
    w.players
        .reserve(&player("dave"), &Pending::Placement(placement.clone()))
        .await
        .unwrap();
    w.placements
        .create(&PlacementRecord::pending(
            placement.clone(),
            player("dave"),
            "q",
            T0,
        ))
        .await
        .unwrap();
    let refused = w.start("dave", json!({})).await;
    assert_eq!(refused["code"], "conflict");
    assert_eq!(refused["placementId"], placement.as_str());
    assert_eq!(
        w.matchmaker.calls().len(),
        1,
        "only carol's first ticket started"
    );
}

#[tokio::test]
async fn given_an_ended_ticket_left_in_the_slot_then_it_is_cleared_and_a_new_one_starts() {
    let w = world().await;
    let first = w.start("carol", json!({})).await;
    let ticket = w.ticket(&first["ticketId"]).await;
    // A fault left the ended ticket as carol's pending request.
    w.move_to(&ticket, TicketStatus::TimedOut).await;
    w.players
        .reserve(&player("carol"), &Pending::Ticket(ticket.ticket_id.clone()))
        .await
        .unwrap();
    let second = w.start("carol", json!({})).await;
    assert_eq!(second["type"], "ack", "{second}");
    assert_ne!(second["ticketId"], first["ticketId"]);
}

#[tokio::test]
async fn given_bad_input_then_each_is_a_typed_error_and_nothing_is_started() {
    let w = world().await;
    for (body, code, says) in [
        // Well formed, but no configuration of this stack: not found, not malformed.
        (
            json!({"configuration": "nope"}),
            "not_found",
            "`configuration` \"nope\" is not a known matchmaking configuration; use one of: ranked, casual",
        ),
        (
            json!({"configuration": ""}),
            "bad_request",
            "`configuration` must not be empty",
        ),
        (
            json!({"attributes": {"skill": [1]}}),
            "bad_request",
            "`attributes.skill[0]` must be a string",
        ),
        (
            json!({"attributes": "fast"}),
            "bad_request",
            "`attributes` must be an object",
        ),
        (
            json!({"latencies": {"eu-west-1": 99999}}),
            "bad_request",
            "must be from 0 to 10000",
        ),
        (
            json!({"latencies": {"EU": 1}}),
            "bad_request",
            "is not a region name",
        ),
    ] {
        let reply = w.start("carol", body.clone()).await;
        assert_refused(&reply, code, says);
    }
    assert!(w.matchmaker.calls().is_empty());
    assert_eq!(w.pending("carol").await, None);
}

#[tokio::test]
async fn given_no_configuration_then_every_route_is_unavailable_saying_why() {
    let w = world_with(MatchmakingSettings::default()).await;
    // Well-formed requests (a malformed one is refused as such first, as on every route).
    for (route, body) in [
        (START_ROUTE, json!({})),
        (ACCEPT_ROUTE, json!({"ticketId": "mm-1", "accept": true})),
        (STOP_ROUTE, json!({})),
        (ATTRIBUTES_ROUTE, json!({"attributes": {}})),
    ] {
        let reply = w.send("carol", route, body).await;
        assert_refused(&reply, "unavailable", "not set up");
    }
}

#[tokio::test]
async fn given_gamelift_refuses_then_the_ticket_fails_the_player_is_freed_and_the_code_is_gamelifts()
 {
    let w = world().await;
    w.matchmaker.fail_next(GameLiftError::InvalidRequest {
        message: "no such rule set attribute".into(),
    });
    let refused = w.start("carol", json!({})).await;
    assert_eq!(refused["code"], "bad_request", "{refused}");
    assert_eq!(w.pending("carol").await, None);
    // Unknown outcome: also stopped, in case GameLift did start it.
    w.matchmaker
        .fail_next(GameLiftError::OutcomeUnknown("timed out".into()));
    let unknown = w.start("carol", json!({})).await;
    assert_eq!(unknown["code"], "unavailable");
    assert_eq!(w.pending("carol").await, None);
    let calls = w.matchmaker.calls();
    let MatchmakerCall::Start(started) = &calls[1] else {
        panic!("{calls:?}")
    };
    assert_eq!(calls[2], MatchmakerCall::Stop(started.ticket_id.clone()));
    let ticket = w.tickets.get(&started.ticket_id).await.unwrap().unwrap();
    assert_eq!(ticket.status, TicketStatus::Failed);
}

#[tokio::test]
async fn given_a_party_then_its_leader_matches_everyone_in_one_ticket_and_a_member_may_not() {
    let w = world().await;
    let member = w.start("bob", json!({})).await;
    assert_eq!(member["code"], "forbidden", "{member}");
    let ack = w.start("alice", json!({"attributes": {"skill": 10}})).await;
    assert_eq!(ack["status"], "QUEUED", "{ack}");
    let ticket = w.ticket(&ack["ticketId"]).await;
    assert_eq!(ticket.player_ids, vec![player("alice"), player("bob")]);
    for who in ["alice", "bob"] {
        assert_eq!(
            w.pending(who).await,
            Some(Pending::Ticket(ticket.ticket_id.clone())),
            "{who}"
        );
    }
    let calls: [MatchmakerCall; 1] = w.matchmaker.calls().try_into().unwrap();
    let [MatchmakerCall::Start(start)] = calls else {
        panic!("one StartMatchmaking")
    };
    assert_eq!(start.players.len(), 2);
    assert_eq!(start.players[1].player_id, player("bob"));
    assert_eq!(start.players[1].latencies, vec![("eu-west-1".into(), 35)]);
    assert!(
        start.players[1].attributes.is_empty(),
        "the rule set's defaults"
    );
    // Bob's own request now conflicts with the party's ticket.
    let again = w.start("bob", json!({})).await;
    assert_eq!(again["code"], "forbidden");
}

#[tokio::test]
async fn given_a_ticket_requiring_acceptance_then_its_players_answer_and_others_cannot() {
    let w = world().await;
    let ack = w.start("carol", json!({})).await;
    let body = json!({"ticketId": ack["ticketId"], "accept": true});
    let early = w.send("carol", ACCEPT_ROUTE, body.clone()).await;
    assert_eq!(early["code"], "conflict", "{early}");
    assert_eq!(early["status"], "QUEUED");
    let ticket = w.ticket(&ack["ticketId"]).await;
    w.move_to(&ticket, TicketStatus::RequiresAcceptance).await;
    let stranger = w.send("dave", ACCEPT_ROUTE, body.clone()).await;
    assert_eq!(stranger["code"], "not_found");
    let answer = w
        .send(
            "carol",
            ACCEPT_ROUTE,
            json!({"ticketId": ack["ticketId"], "accept": false}),
        )
        .await;
    assert_eq!(answer["type"], "ack", "{answer}");
    assert_eq!(answer["accept"], false);
    assert_eq!(
        w.matchmaker.calls().last(),
        Some(&MatchmakerCall::Accept {
            ticket_id: ticket.ticket_id.clone(),
            players: vec![player("carol")],
            accept: false
        })
    );
    // GameLift says the acceptance is over: a conflict.
    w.matchmaker.fail_next(GameLiftError::InvalidRequest {
        message: "not in REQUIRES_ACCEPTANCE".into(),
    });
    let late = w.send("carol", ACCEPT_ROUTE, body).await;
    assert_eq!(late["code"], "conflict");
}

#[tokio::test]
async fn given_stop_then_only_a_live_ticket_of_its_requester_is_stopped() {
    let w = world().await;
    let none = w.send("carol", STOP_ROUTE, json!({})).await;
    assert_eq!(none["code"], "not_found", "{none}");
    let ack = w.start("alice", json!({})).await;
    let member = w.send("bob", STOP_ROUTE, json!({})).await;
    assert_eq!(member["code"], "forbidden", "{member}");
    let stopped = w.send("alice", STOP_ROUTE, json!({})).await;
    assert_eq!(stopped["type"], "ack", "{stopped}");
    assert_eq!(stopped["ticketId"], ack["ticketId"]);
    let ticket = w.ticket(&ack["ticketId"]).await;
    assert_eq!(
        w.matchmaker.calls().last(),
        Some(&MatchmakerCall::Stop(ticket.ticket_id.clone()))
    );
    w.move_to(&ticket, TicketStatus::Cancelled).await;
    let ended = w
        .send("alice", STOP_ROUTE, json!({"ticketId": ack["ticketId"]}))
        .await;
    assert_eq!(ended["code"], "not_found");
}

#[tokio::test]
async fn given_the_route_samples_then_start_is_queued_and_stop_cancels_it() {
    let w = world().await;
    let run = |raw: &str| {
        let event = contracts::events::parse_event(serde_json::from_str(raw).unwrap());
        w.handler.handle(event)
    };
    let started = reply_frame(
        &run(include_str!("../../../events/start-matchmaking.json"))
            .await
            .unwrap(),
    );
    assert_eq!(started["type"], "ack", "{started}");
    assert_eq!(started["requestId"], "startMatchmaking-1");
    assert_eq!(started["status"], "QUEUED");
    let stopped = reply_frame(
        &run(include_str!("../../../events/stop-matchmaking.json"))
            .await
            .unwrap(),
    );
    assert_eq!(stopped["type"], "ack", "{stopped}");
    assert_eq!(stopped["ticketId"], started["ticketId"]);
    assert!(matches!(
        w.matchmaker.calls().last(),
        Some(MatchmakerCall::Stop(_))
    ));
}

#[tokio::test]
async fn given_a_member_set_their_attributes_then_the_leaders_ticket_carries_them() {
    let w = world().await;
    let set = w
        .send(
            "bob",
            ATTRIBUTES_ROUTE,
            json!({"attributes": {"skill": 44, "roles": ["healer"]}}),
        )
        .await;
    assert_eq!(set["type"], "ack", "{set}");
    assert_eq!(
        set["attributes"],
        json!({"roles": ["healer"], "skill": 44.0})
    );
    w.start("alice", json!({})).await;
    let calls: [MatchmakerCall; 1] = w.matchmaker.calls().try_into().unwrap();
    let [MatchmakerCall::Start(start)] = calls else {
        panic!("one StartMatchmaking")
    };
    assert_eq!(
        start.players[1].attributes["skill"],
        AttributeValue::Number(44.0)
    );
    assert_eq!(
        start.players[1].attributes["roles"],
        AttributeValue::StringList(vec!["healer".into()])
    );
    // Cleared with {}; refused without attributes or with bad ones.
    let cleared = w
        .send("bob", ATTRIBUTES_ROUTE, json!({"attributes": {}}))
        .await;
    assert_eq!(cleared["attributes"], json!({}));
    for (body, says) in [
        (json!({}), "`attributes` is required"),
        (
            json!({"attributes": {"skill": true}}),
            "`attributes.skill` must be",
        ),
    ] {
        let refused = w.send("bob", ATTRIBUTES_ROUTE, body.clone()).await;
        assert_refused(&refused, "bad_request", says);
    }
    let stranger = w
        .send("nobody", ATTRIBUTES_ROUTE, json!({"attributes": {}}))
        .await;
    assert_eq!(stranger["code"], "not_found", "{stranger}");
}

#[tokio::test]
async fn given_the_per_minute_limit_reached_then_start_is_rate_limited_and_nothing_is_started() {
    let w = world_with(MatchmakingSettings {
        configurations: vec!["ranked".into()],
        requests_per_minute: 1,
    })
    .await;
    let first = w.start("carol", json!({})).await;
    w.send("carol", STOP_ROUTE, json!({"ticketId": first["ticketId"]}))
        .await;
    let limited = w.send("carol", START_ROUTE, json!({})).await;
    assert_eq!(limited["code"], "rate_limited", "{limited}");
    assert!(limited["retryAfterMs"].as_i64().unwrap() > 0, "{limited}");
    assert_eq!(w.matchmaker.calls().len(), 2, "one start, one stop");
}
