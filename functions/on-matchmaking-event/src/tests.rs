//! Every `events/matchmaking-*.json` sample through the handler, on in-memory stores:
//! what each event does to the tickets, the players and their inboxes, and that
//! duplicates, late and out-of-order events change and push nothing.

use contracts::fake_gamelift::FakeGameLift;
use contracts::fixtures::{connected, inbox, player_record};
use contracts::ports::*;
use lambda_runtime::Context;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryMessageStore, InMemoryPlayerStore, InMemoryTicketStore};
use serde_json::json;
use shared::config::PlayerGateway;
use shared::matchmaking::TicketId;
use shared::pending::Pending;

use super::*;

/// 2026-11-22T05:00:00Z: the samples' tickets are requested just before.
const T0: i64 = 1_795_323_600_000;
const A: &str = "mm-019ab4c0-1f2e-7a3b-8c4d-5e6f7a8b9c0d";
const B: &str = "mm-019ab4c0-2a3b-7c4d-9e5f-6a7b8c9d0e1f";

fn sample(name: &str) -> Value {
    let text = match name {
        "searching" => include_str!("../../../events/matchmaking-searching.json"),
        "potential" => include_str!("../../../events/matchmaking-potential-match-created.json"),
        "accept" => include_str!("../../../events/matchmaking-accept-match.json"),
        "accept-completed" => {
            include_str!("../../../events/matchmaking-accept-match-completed.json")
        }
        "succeeded" => include_str!("../../../events/matchmaking-succeeded.json"),
        "succeeded-sns" => include_str!("../../../events/matchmaking-succeeded-sns.json"),
        "timed-out" => include_str!("../../../events/matchmaking-timed-out.json"),
        "cancelled" => include_str!("../../../events/matchmaking-cancelled.json"),
        "failed" => include_str!("../../../events/matchmaking-failed.json"),
        other => panic!("no sample {other}"),
    };
    serde_json::from_str(text).unwrap()
}

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

fn ticket(raw: &str) -> TicketId {
    TicketId::parse(raw).unwrap()
}

struct World {
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    tickets: Arc<InMemoryTicketStore>,
    gamelift: Arc<FakeGameLift>,
    handler: MatchmakingEventHandler,
}

/// Alice (ticket A) and bob (ticket B) online, each ticket QUEUED and its player's
/// pending request.
async fn world() -> World {
    world_in(PlayerGateway::Disabled).await
}

/// As [`world`], the fleets' player gateway as `mode` says.
async fn world_in(mode: PlayerGateway) -> World {
    let mut w = TestWiring::new().at(T0 + 60_000);
    w.config = Config::for_local("test");
    w.config.player_gateway = mode;
    let players = w.tables.players.clone();
    let tickets = w.tables.tickets.clone();
    for (name, id) in [("alice", A), ("bob", B)] {
        connected(&*players, name, &format!("c-{name}"), T0).await;
        let record = TicketRecord::queued(ticket(id), player(name), vec![], "default", T0 - 1_000);
        players
            .reserve(
                &player(name),
                &Pending::of_ticket(&record.ticket_id).unwrap(),
            )
            .await
            .unwrap();
        tickets.create(&record).await.unwrap();
    }
    World {
        handler: wire(&w.wiring()),
        players,
        messages: w.tables.messages.clone(),
        tickets,
        gamelift: w.gamelift.clone(),
    }
}

impl World {
    async fn deliver(&self, payload: Value) {
        self.handler
            .handle(LambdaEvent::new(payload, Context::default()))
            .await
            .expect("handled");
    }

    /// The frames in `name`'s inbox, in order.
    async fn inbox(&self, name: &str) -> Vec<Value> {
        let inbox = inbox(&*self.messages, name, T0).await;
        inbox
            .iter()
            .map(|m| serde_json::from_str(&m.payload).unwrap())
            .collect()
    }

    async fn statuses(&self, name: &str) -> Vec<String> {
        self.inbox(name)
            .await
            .iter()
            .map(|f| f["status"].as_str().unwrap().to_owned())
            .collect()
    }

    async fn status(&self, id: &str) -> TicketStatus {
        self.tickets.get(&ticket(id)).await.unwrap().unwrap().status
    }

    async fn pending(&self, name: &str) -> bool {
        let record = player_record(&*self.players, name).await;
        record.pending.is_some()
    }
}

#[tokio::test]
async fn given_a_queued_ticket_when_searching_arrives_then_its_player_is_told_once() {
    let world = world().await;
    world.deliver(sample("searching")).await;
    world.deliver(sample("searching")).await;
    assert_eq!(world.status(A).await, TicketStatus::Searching);
    assert_eq!(
        world.inbox("alice").await,
        vec![json!({"type": "matchmaking", "ticketId": A, "status": "SEARCHING"})]
    );
    assert!(world.pending("alice").await, "still live");
    assert!(world.inbox("bob").await.is_empty());
}

#[tokio::test]
async fn given_a_proposed_match_then_each_player_must_accept_knowing_the_others_and_the_timeout() {
    let world = world().await;
    world.deliver(sample("searching")).await;
    world.deliver(sample("potential")).await;
    world.deliver(sample("accept")).await;
    assert_eq!(world.status(A).await, TicketStatus::RequiresAcceptance);
    assert_eq!(world.status(B).await, TicketStatus::RequiresAcceptance);
    assert_eq!(
        world.inbox("alice").await[1],
        json!({"type": "matchmaking", "ticketId": A, "status": "REQUIRES_ACCEPTANCE",
               "acceptanceTimeout": 30, "players": ["bob"]})
    );
    assert_eq!(
        world.inbox("bob").await,
        vec![
            json!({"type": "matchmaking", "ticketId": B, "status": "REQUIRES_ACCEPTANCE",
                    "acceptanceTimeout": 30, "players": ["alice"]})
        ]
    );
}

#[tokio::test]
async fn given_a_rejected_match_then_the_rejecter_is_cancelled_and_the_other_searches_again() {
    let world = world().await;
    world.deliver(sample("potential")).await;
    world.deliver(sample("accept-completed")).await;
    assert_eq!(
        world.status(A).await,
        TicketStatus::RequiresAcceptance,
        "no move by itself"
    );
    // GameLift then cancels the rejecter's ticket (A) and puts B back to searching.
    world.deliver(sample("cancelled")).await;
    let mut again = sample("searching");
    again["time"] = json!("2026-11-22T05:00:08Z");
    again["detail"]["tickets"][0]["ticketId"] = json!(B);
    again["detail"]["tickets"][0]["players"][0]["playerId"] = json!("bob");
    world.deliver(again).await;
    assert_eq!(world.status(A).await, TicketStatus::Cancelled);
    assert_eq!(world.status(B).await, TicketStatus::Searching);
    assert_eq!(
        world.inbox("alice").await.last().unwrap(),
        &json!({"type": "matchmaking", "ticketId": A, "status": "CANCELLED",
                "reason": "Cancelled by request."})
    );
    assert!(
        !world.pending("alice").await,
        "a cancelled ticket frees its player"
    );
    assert_eq!(
        world.statuses("bob").await,
        vec!["REQUIRES_ACCEPTANCE", "SEARCHING"]
    );
    assert!(world.pending("bob").await);
}

#[tokio::test]
async fn given_a_match_made_then_each_player_gets_their_own_seat_in_the_same_game() {
    for name in ["succeeded", "succeeded-sns"] {
        let world = world().await;
        world.deliver(sample("potential")).await;
        world.deliver(sample(name)).await;
        world.deliver(sample(name)).await;
        let alice = world.inbox("alice").await;
        let bob = world.inbox("bob").await;
        assert_eq!(alice.len(), 2, "{name}: pushed once");
        assert_eq!(bob.len(), 2, "{name}: pushed once");
        let (a, b) = (&alice[1]["gameSession"], &bob[1]["gameSession"]);
        assert_eq!(alice[1]["status"], "COMPLETED");
        assert_eq!(a["gameSessionArn"], b["gameSessionArn"]);
        assert_eq!(a["matchId"], "4b1f2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
        assert_eq!(
            a["playerSessionId"],
            "psess-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
        );
        assert_eq!(
            b["playerSessionId"],
            "psess-0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f"
        );
        assert_eq!((&a["team"], &b["team"]), (&json!("red"), &json!("blue")));
        assert_eq!(a["port"], 7777);
        assert_eq!(a["region"], "eu-west-1");
        // PLAYER_GATEWAY=disabled: the game server's own address, GameLift not asked.
        assert_eq!(
            a["connection"],
            json!({"endpoints": [{"ipAddress": a["ipAddress"], "port": 7777}]})
        );
        assert!(world.gamelift.connection_details_calls().is_empty());
        for who in ["alice", "bob"] {
            let record = player_record(&*world.players, who).await;
            assert!(record.pending.is_none(), "{name}: {who} is free");
            assert!(
                record.game_session.is_some(),
                "{name}: {who}'s seat stored for rejoin"
            );
        }
        let stored = world.tickets.get(&ticket(A)).await.unwrap().unwrap();
        assert_eq!(stored.player_sessions.len(), 1);
        assert!(stored.game_session.is_some());
    }
}

#[tokio::test]
async fn given_events_out_of_order_then_a_ticket_never_regresses_nor_pushes_twice() {
    let done = world().await;
    done.deliver(sample("succeeded")).await;
    for late in [
        "searching",
        "potential",
        "accept-completed",
        "cancelled",
        "failed",
    ] {
        done.deliver(sample(late)).await;
    }
    assert_eq!(done.status(A).await, TicketStatus::Completed);
    assert_eq!(done.statuses("alice").await, vec!["COMPLETED"]);
    // A late SEARCHING after a proposal stays late.
    let later = world().await;
    later.deliver(sample("potential")).await;
    later.deliver(sample("searching")).await;
    assert_eq!(later.status(A).await, TicketStatus::RequiresAcceptance);
    assert_eq!(later.statuses("alice").await, vec!["REQUIRES_ACCEPTANCE"]);
}

#[tokio::test]
async fn given_a_match_without_acceptance_then_placing_pushes_nothing_and_completed_follows() {
    let world = world().await;
    let mut potential = sample("potential");
    potential["detail"]["acceptanceRequired"] = json!(false);
    world.deliver(potential).await;
    assert_eq!(world.status(A).await, TicketStatus::Placing);
    assert!(world.inbox("alice").await.is_empty());
    world.deliver(sample("succeeded")).await;
    assert_eq!(world.statuses("alice").await, vec!["COMPLETED"]);
}

#[tokio::test]
async fn given_ended_tickets_then_each_player_is_told_why_and_freed() {
    for (name, status, reason) in [
        (
            "timed-out",
            "TIMED_OUT",
            "Removed from matchmaking due to timing out.",
        ),
        ("cancelled", "CANCELLED", "Cancelled by request."),
        (
            "failed",
            "FAILED",
            "An unexpected error was encountered during match placing.",
        ),
    ] {
        let world = world().await;
        world.deliver(sample("searching")).await;
        world.deliver(sample(name)).await;
        assert_eq!(
            world.inbox("alice").await.last().unwrap(),
            &json!({"type": "matchmaking", "ticketId": A, "status": status, "reason": reason}),
            "{name}"
        );
        assert!(!world.pending("alice").await, "{name}");
    }
}

#[tokio::test]
async fn given_unknown_tickets_or_malformed_events_then_they_are_skipped_without_failing() {
    let world = world().await;
    let mut unknown = sample("searching");
    unknown["detail"]["tickets"][0]["ticketId"] = json!("mm-someone-elses");
    world.deliver(unknown).await;
    let mut bad = sample("searching");
    bad["detail"]["type"] = json!("MatchmakingExploded");
    world.deliver(bad).await;
    world.deliver(json!({"hello": "world"})).await;
    assert!(world.inbox("alice").await.is_empty());
    assert_eq!(world.status(A).await, TicketStatus::Queued);
}

#[tokio::test]
async fn given_a_player_gateway_fleet_when_a_match_is_made_then_one_call_for_the_game_session_gives_every_matched_player_a_token()
 {
    for mode in [PlayerGateway::Enabled, PlayerGateway::Required] {
        // Given fleets behind player gateway and alice's and bob's tickets matched together
        let world = world_in(mode).await;
        world.gamelift.with_player_gateway(T0 + 600_000);
        world.deliver(sample("potential")).await;
        // When the match's game session is made
        world.deliver(sample("succeeded")).await;
        // Then GameLift was asked once, for both tickets' players
        let calls = world.gamelift.connection_details_calls();
        assert_eq!(calls.len(), 1, "{mode}");
        assert_eq!(calls[0].players, vec![player("alice"), player("bob")]);
        // And each one's frame and stored seat carry their own relays and token
        let mut tokens = Vec::new();
        for name in ["alice", "bob"] {
            let frame = world.inbox(name).await.pop().unwrap();
            let seat = &frame["gameSession"];
            assert_eq!(
                seat["connection"]["endpoints"][0]["ipAddress"],
                "198.51.100.7"
            );
            assert_eq!(seat["connection"]["expiresAt"], json!(T0 + 600_000));
            let stored = player_record(&*world.players, name).await;
            assert_eq!(
                stored
                    .game_session
                    .unwrap()
                    .connection
                    .unwrap()
                    .player_gateway_token,
                seat["connection"]["playerGatewayToken"]
                    .as_str()
                    .map(str::to_owned)
            );
            tokens.push(seat["connection"]["playerGatewayToken"].clone());
        }
        assert_ne!(tokens[0], tokens[1]);
    }
}

#[tokio::test]
async fn given_get_player_connection_details_fails_when_a_match_is_made_then_the_failure_policy_decides_each_seat()
 {
    for mode in [PlayerGateway::Enabled, PlayerGateway::Required] {
        let world = world_in(mode).await;
        world
            .gamelift
            .fail_next_connection_details(shared::ports::GameLiftError::Unavailable(
                "ThrottlingException".into(),
            ));
        world.deliver(sample("potential")).await;
        world.deliver(sample("succeeded")).await;
        for name in ["alice", "bob"] {
            let frame = world.inbox(name).await.pop().unwrap();
            assert_eq!(frame["status"], "COMPLETED", "{mode}: {name}");
            let seat = &frame["gameSession"];
            if mode == PlayerGateway::Enabled {
                assert_eq!(seat["connection"]["endpoints"][0]["port"], 7777);
            } else {
                assert_eq!(seat["connectionUnavailable"], true);
                assert!(seat.get("connection").is_none());
            }
        }
    }
}

impl World {
    /// Why each event, or ticket of an event, of `payload` changed nothing (what
    /// `handle` counts).
    async fn ignored(&self, payload: Value) -> Vec<Ignored> {
        let handled = self.handler.apply_all(&payload).await;
        assert!(handled.retry.is_none());
        handled.ignored
    }
}

#[tokio::test]
async fn given_events_that_change_nothing_when_handled_then_each_says_why_for_the_ignored_events_metric()
 {
    let world = world().await;
    assert!(world.ignored(sample("searching")).await.is_empty());
    // The same event again is a duplicate.
    assert_eq!(
        world.ignored(sample("searching")).await,
        vec![Ignored::Duplicate]
    );
    // Both tickets completed; then a cancellation of A comes late.
    assert!(world.ignored(sample("succeeded")).await.is_empty());
    assert_eq!(
        world.ignored(sample("cancelled")).await,
        vec![Ignored::OutOfOrder]
    );
    // A ticket this stack never recorded, and events it cannot read.
    let mut unknown = sample("searching");
    unknown["detail"]["tickets"][0]["ticketId"] = json!("mm-someone-elses");
    assert_eq!(world.ignored(unknown).await, vec![Ignored::Unknown]);
    let mut bad = sample("searching");
    bad["detail"]["type"] = json!("MatchmakingExploded");
    assert_eq!(world.ignored(bad).await, vec![Ignored::Malformed]);
    assert_eq!(
        world.ignored(json!({"hello": "world"})).await,
        vec![Ignored::Malformed]
    );
    // An acceptance moves no ticket by itself: nothing to count.
    assert!(world.ignored(sample("accept")).await.is_empty());
}
