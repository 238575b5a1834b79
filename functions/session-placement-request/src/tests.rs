use super::*;
use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fake_gamelift::FakeGameLift;
use contracts::fixtures::{assert_refused, connected, player_record};
use contracts::ports::*;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryPlacementStore, InMemoryPlayerStore};
use serde_json::{Map, Value, json};
use shared::domain::{EpochMillis, PlacementStatus};
use shared::matchmaking::TicketId;

const T0: i64 = 1_795_323_600_000;

struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    gamelift: Arc<FakeGameLift>,
    handler: SessionPlacementRequestHandler,
    wiring: TestWiring,
}

/// Two queues; the rate limit off.
fn wiring() -> TestWiring {
    let mut w = TestWiring::new().at(T0);
    w.config.game_session_queues = vec!["eu-queue".into(), "us-queue".into()];
    // Tests make several requests in one (frozen) minute: the limit has its own test.
    w.config.rate_limits.placements_per_minute = 0;
    w
}

async fn world() -> World {
    let w = wiring();
    let players = w.tables.players.clone();
    connected(&*players, "alice", "c1", T0).await;
    World {
        handler: wire(&w.wiring()),
        players,
        placements: w.tables.placements.clone(),
        gamelift: w.gamelift.clone(),
        wiring: w,
    }
}

async fn request(w: &World, body: Value) -> Value {
    let text =
        json!({"route": "sessionPlacementRequest", "requestId": "p1", "body": body}).to_string();
    let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
    reply_frame(&w.handler.handle(event).await.unwrap())
}

async fn pending_of(w: &World) -> Option<Pending> {
    player_record(&*w.players, "alice").await.pending
}

/// Latencies of `ms` to `count` regions (`region-0` on).
fn regions(count: usize, ms: u32) -> Map<String, Value> {
    (0..count)
        .map(|i| (format!("region-{i}"), json!(ms)))
        .collect()
}

#[tokio::test]
async fn given_a_valid_request_then_ack_pending_with_the_placement_recorded_and_started() {
    let w = world().await;
    let ack = request(
        &w,
        json!({"latencies": {"us-east-1": 40, "eu-west-1": 12.6}, "playerData": "{\"deck\":7}",
               "queue": "us-queue", "somethingNew": true}),
    )
    .await;
    assert_eq!(ack["type"], "ack");
    assert_eq!(ack["route"], "sessionPlacementRequest");
    assert_eq!(ack["requestId"], "p1");
    assert_eq!(ack["status"], "PENDING");
    let placement_id = PlacementId::parse(ack["placementId"].as_str().unwrap()).unwrap();
    assert_eq!(placement_id.requested_at(), Some(T0));

    assert_eq!(
        pending_of(&w).await,
        Some(Pending::Placement(placement_id.clone()))
    );
    let [placement] = w.placements.all().try_into().unwrap();
    assert_eq!(
        placement,
        PlacementRecord::pending(
            placement_id.clone(),
            PlayerId::parse("alice").unwrap(),
            "us-queue",
            T0
        )
    );
    assert_eq!(
        w.gamelift.started(),
        vec![PlacementRequest {
            placement_id,
            queue: "us-queue".into(),
            max_players: 8,
            player_id: PlayerId::parse("alice").unwrap(),
            player_data: Some("{\"deck\":7}".into()),
            latencies: vec![("eu-west-1".into(), 13), ("us-east-1".into(), 40)],
            party: Vec::new(),
        }]
    );
}

#[tokio::test]
async fn given_no_queue_then_the_first_configured_queue_is_used() {
    let w = world().await;
    let ack = request(&w, json!({})).await;
    assert_eq!(ack["status"], "PENDING");
    let started = w.gamelift.started();
    assert_eq!(started[0].queue, "eu-queue");
    assert!(started[0].latencies.is_empty());
    assert_eq!(started[0].player_data, None);
}

#[tokio::test]
async fn given_a_live_matchmaking_ticket_when_placing_then_conflict_naming_the_ticket() {
    let w = world().await;
    // Long after the ticket was asked for: a ticket is never judged stale here.
    let ticket = TicketId::new_at(T0 - 3_600_000);
    w.players
        .reserve(
            &PlayerId::parse("alice").unwrap(),
            &Pending::of_ticket(&ticket).unwrap(),
        )
        .await
        .unwrap();
    let refused = request(&w, json!({})).await;
    assert_refused(&refused, "conflict", "stopMatchmaking");
    assert_eq!(refused["ticketId"], ticket.as_str());
    assert!(w.gamelift.started().is_empty());
    assert_eq!(pending_of(&w).await, Pending::of_ticket(&ticket));
}

#[tokio::test]
async fn given_a_pending_placement_when_requesting_again_then_conflict_carrying_its_id() {
    let w = world().await;
    let first = request(&w, json!({})).await;
    let pending = first["placementId"].as_str().unwrap();
    let second = request(&w, json!({})).await;
    assert_eq!(second["type"], "error");
    assert_eq!(second["code"], "conflict");
    assert_eq!(second["requestId"], "p1");
    assert_eq!(second["placementId"], pending);
    assert!(second["message"].as_str().unwrap().contains(pending));
    assert_eq!(w.gamelift.started().len(), 1, "GameLift is not asked twice");
    assert_eq!(w.placements.all().len(), 1);
    assert_eq!(
        pending_of(&w).await.as_ref().map(Pending::stored),
        Some(pending)
    );

    // The frame's text starts with its type, like every server frame.
    let text = json!({"route": "sessionPlacementRequest", "body": {}}).to_string();
    let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
    let response = w.handler.handle(event).await.unwrap();
    let Some(aws_lambda_events::encodings::Body::Text(raw)) = response.body else {
        panic!("a text reply")
    };
    assert!(raw.starts_with(r#"{"type":"error","route":"#), "{raw}");
}

#[tokio::test]
async fn given_the_storage_is_down_then_an_unavailable_frame_and_nothing_is_placed() {
    let w = world().await;
    let down = Arc::new(contracts::unavailable::Unavailable);
    let mut failing = w.wiring.clone();
    failing.config = Config::for_local("Development");
    failing
        .replace::<dyn PendingSlots>(down.clone())
        .replace::<dyn PlayerLookup>(down.clone())
        .replace::<dyn Profiles>(down.clone())
        .replace::<dyn RateLimiter>(down.clone())
        .replace::<dyn PlacementReader>(down.clone())
        .replace::<dyn PlacementRecorder>(down.clone())
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn PartySlots>(down);
    let handler = wire(&failing.wiring());
    let text = json!({"route": "sessionPlacementRequest", "requestId": "p9"}).to_string();
    let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(&text));
    let frame = reply_frame(&handler.handle(event).await.unwrap());
    assert_eq!(frame["code"], "unavailable");
    assert_eq!(frame["route"], "sessionPlacementRequest");
    assert_eq!(frame["requestId"], "p9");
    assert!(w.gamelift.started().is_empty());
}

#[tokio::test]
async fn given_bad_input_then_bad_request_naming_the_field_and_nothing_written_or_placed() {
    let w = world().await;
    let many = regions(21, 10);
    for (body, says) in [
        (
            json!({"latencies": [1, 2]}),
            "`latencies` must be an object",
        ),
        (
            json!({"latencies": "fast"}),
            "`latencies` must be an object",
        ),
        (
            json!({"latencies": {"us-east-1": "10"}}),
            "`latencies.us-east-1` must be a number",
        ),
        (
            json!({"latencies": {"us-east-1": null}}),
            "`latencies.us-east-1` must be a number",
        ),
        (
            json!({"latencies": {"us-east-1": -1}}),
            "`latencies.us-east-1` is -1",
        ),
        (
            json!({"latencies": {"us-east-1": 10000.5}}),
            "`latencies.us-east-1` is 10000.5",
        ),
        (
            json!({"latencies": {"US East": 10}}),
            "`latencies` key \"US East\"",
        ),
        (json!({"latencies": many}), "`latencies` names 21 regions"),
        (json!({"queue": 3}), "`queue` must be a string"),
        (json!({"queue": ""}), "`queue` must not be empty"),
        (
            json!({"playerData": "x".repeat(2049)}),
            "`playerData` is 2049 characters",
        ),
        (
            json!({"playerData": {"deck": 7}}),
            "`playerData` must be a string",
        ),
    ] {
        let frame = request(&w, body.clone()).await;
        assert_eq!(frame["code"], "bad_request", "{body}");
        assert!(
            frame["message"].as_str().unwrap().contains(says),
            "{body}: {frame}"
        );
    }
    assert!(w.gamelift.calls().is_empty());
    assert!(w.placements.all().is_empty());
    assert_eq!(pending_of(&w).await, None);
}

#[tokio::test]
async fn given_a_queue_this_stack_does_not_have_then_not_found_naming_its_queues_and_nothing_placed()
 {
    let w = world().await;
    // A well-formed name: the schema cannot know this stack's queues, so it is not malformed.
    let frame = request(&w, json!({"queue": "mystery-queue"})).await;
    assert_eq!(frame["code"], "not_found", "{frame}");
    assert!(
        frame["message"]
            .as_str()
            .unwrap()
            .starts_with("`queue` \"mystery-queue\" is not a known queue; use one of: "),
        "{frame}"
    );
    assert!(w.gamelift.calls().is_empty());
    assert!(w.placements.all().is_empty());
    assert_eq!(pending_of(&w).await, None);
}

#[tokio::test]
async fn given_values_at_the_limits_then_accepted() {
    let w = world().await;
    let twenty = regions(20, 10_000);
    let ack = request(
        &w,
        json!({"latencies": twenty, "playerData": "é".repeat(2048)}),
    )
    .await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let started = &w.gamelift.started()[0];
    assert_eq!(started.latencies.len(), 20);
    assert!(started.latencies.iter().all(|(_, ms)| *ms == 10_000));

    let w = world().await;
    let ack = request(&w, json!({"latencies": {"eu-west-1": 0}, "playerData": ""})).await;
    assert_eq!(ack["status"], "PENDING");
    assert_eq!(w.gamelift.started()[0].player_data, None);
}

#[tokio::test]
async fn given_gamelift_refuses_then_its_code_and_no_pending_placement_is_left_behind() {
    for (refusal, code) in [
        (
            GameLiftError::InvalidRequest {
                message: "bad latencies".into(),
            },
            "bad_request",
        ),
        (
            GameLiftError::NotFound {
                message: "no such queue".into(),
            },
            "not_found",
        ),
        (
            GameLiftError::Unavailable("throttled".into()),
            "unavailable",
        ),
        (
            GameLiftError::OutcomeUnknown("timed out".into()),
            "unavailable",
        ),
        (GameLiftError::Other("AccessDenied".into()), "internal"),
    ] {
        let w = world().await;
        // An answer (refused) versus a fault that may hide a started placement.
        let ambiguous = matches!(
            refusal,
            GameLiftError::OutcomeUnknown(_) | GameLiftError::Other(_)
        );
        w.gamelift.fail_next_start(refusal);
        let frame = request(&w, json!({})).await;
        assert_eq!(frame["type"], "error");
        assert_eq!(frame["code"], code);
        assert_eq!(pending_of(&w).await, None, "{code}");
        let [placement] = w.placements.all().try_into().unwrap();
        assert_eq!(placement.status, PlacementStatus::Failed, "{code}");
        let expected_stops = if ambiguous {
            vec![placement.placement_id.clone()]
        } else {
            vec![]
        };
        assert_eq!(w.gamelift.stopped(), expected_stops, "{code}");

        // Nothing pending: the next request goes through.
        let ack = request(&w, json!({})).await;
        assert_eq!(ack["status"], "PENDING", "{code}");
    }
}

/// Makes `placement_id` alice's pending placement directly in the store.
async fn left_pending(w: &World, placement_id: &PlacementId) {
    let alice = PlayerId::parse("alice").unwrap();
    w.players
        .reserve(&alice, &Pending::Placement(placement_id.clone()))
        .await
        .unwrap();
}

#[tokio::test]
async fn given_a_pending_placement_that_already_ended_when_requesting_then_it_is_cleared_and_the_request_proceeds()
 {
    // GameLift refused "old" and it was marked FAILED, but clearing alice failed.
    let w = world().await;
    let old = PlacementId::new_at(T0 - 5_000);
    left_pending(&w, &old).await;
    let alice = PlayerId::parse("alice").unwrap();
    w.placements
        .create(&PlacementRecord::pending(
            old.clone(),
            alice,
            "eu-queue",
            T0 - 5_000,
        ))
        .await
        .unwrap();
    assert!(w.placements.mark_failed(&old, T0 - 4_000).await.unwrap());

    let ack = request(&w, json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let placement_id = ack["placementId"].as_str().unwrap();
    assert_ne!(placement_id, old.as_str());
    assert_eq!(
        pending_of(&w).await.as_ref().map(Pending::stored),
        Some(placement_id)
    );
    assert_eq!(w.gamelift.started().len(), 1);
}

#[tokio::test]
async fn given_a_pending_placement_never_recorded_then_it_blocks_only_until_it_is_clearly_abandoned()
 {
    // A fresh world where alice's slot names a placement requested `age` ms ago and never
    // recorded: that placement, and the reply to her request now.
    let after_unrecorded = async |age: i64| {
        let w = world().await;
        let unrecorded = PlacementId::new_at(T0 - age);
        left_pending(&w, &unrecorded).await;
        let reply = request(&w, json!({})).await;
        (w, unrecorded, reply)
    };
    // Requested 2 s ago and not recorded yet: maybe being recorded right now.
    let (w, recent, frame) = after_unrecorded(2_000).await;
    assert_eq!(frame["code"], "conflict", "{frame}");
    assert_eq!(frame["placementId"], recent.as_str());
    assert!(w.gamelift.calls().is_empty());

    // Requested 2 minutes ago and never recorded: its request died half way.
    let (w, abandoned, ack) = after_unrecorded(120_000).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    assert_ne!(ack["placementId"], abandoned.as_str());
    assert_eq!(w.gamelift.started().len(), 1);
}

/// A Placements table that is unavailable for writes.
struct UnwritablePlacements;

#[async_trait]
impl PlacementReader for UnwritablePlacements {
    async fn get(&self, _: &PlacementId) -> Result<Option<PlacementRecord>, StoreError> {
        Ok(None)
    }
}

#[async_trait]
impl PlacementRecorder for UnwritablePlacements {
    async fn create(&self, _: &PlacementRecord) -> Result<(), StoreError> {
        Err(StoreError::Unavailable("throttled".into()))
    }
    async fn mark_failed(&self, _: &PlacementId, _: EpochMillis) -> Result<bool, StoreError> {
        Ok(false)
    }
}

#[tokio::test]
async fn given_the_placement_cannot_be_recorded_then_unavailable_and_nothing_pending_or_placed() {
    let w = world().await;
    let mut failing = w.wiring.clone();
    let down = Arc::new(contracts::unavailable::Unavailable);
    failing
        .replace::<dyn PlacementReader>(Arc::new(UnwritablePlacements))
        .replace::<dyn PlacementRecorder>(Arc::new(UnwritablePlacements))
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn PartySlots>(down);
    let handler = wire(&failing.wiring());
    let text = r#"{"route":"sessionPlacementRequest","body":{}}"#;
    let event = route_event("sessionPlacementRequest", "alice", "c1", T0, Some(text));
    let frame = reply_frame(&handler.handle(event).await.unwrap());
    assert_eq!(frame["code"], "unavailable");
    assert_eq!(pending_of(&w).await, None);
    assert!(w.gamelift.calls().is_empty());
}

#[tokio::test]
async fn the_sample_events_run_through_the_handler() {
    let w = world().await;
    let raw = serde_json::from_str(include_str!(
        "../../../events/session-placement-request.json"
    ))
    .unwrap();
    let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["requestId"], "spr-1");
    assert_eq!(ack["status"], "PENDING");
    let started = &w.gamelift.started()[0];
    assert_eq!(started.queue, "eu-queue");
    assert_eq!(started.latencies.len(), 2);

    let raw = serde_json::from_str(include_str!(
        "../../../events/session-placement-request-bad-latencies.json"
    ))
    .unwrap();
    let w = world().await;
    let frame = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(frame["code"], "bad_request");
    assert!(frame["message"].as_str().unwrap().contains("`latencies."));
    assert!(w.gamelift.calls().is_empty());
}

#[tokio::test]
async fn given_the_placement_limit_reached_then_rate_limited_before_anything_is_written() {
    // Given a limit of one placement request a minute, and one made
    let mut limited = wiring().at(T0 + 10_000);
    limited.config.rate_limits.placements_per_minute = 1;
    let down = Arc::new(contracts::unavailable::Unavailable);
    limited
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn PartySlots>(down);
    connected(&*limited.tables.players, "alice", "c1", T0).await;
    let w = World {
        handler: wire(&limited.wiring()),
        players: limited.tables.players.clone(),
        placements: limited.tables.placements.clone(),
        gamelift: limited.gamelift.clone(),
        wiring: limited,
    };
    assert_eq!(request(&w, json!({})).await["type"], "ack");
    // When alice asks again within the minute
    let frame = request(&w, json!({})).await;
    // Then she is told to wait, and GameLift was asked once
    assert_refused(&frame, "rate_limited", "1 placement requests a minute");
    assert_eq!(frame["retryAfterMs"], 50_000, "{frame}");
    assert_eq!(w.gamelift.started().len(), 1);
}

mod party;

#[tokio::test]
async fn the_sample_set_placement_latencies_event_runs_through_the_handler() {
    // Given bob connected as the sample event's caller.
    let w = world().await;
    connected(&*w.players, "bob", "L0SM9cOFvHcCIhw=", T0).await;
    let raw =
        serde_json::from_str(include_str!("../../../events/set-placement-latencies.json")).unwrap();

    // When the sample runs through the handler, then its latencies are acked as stored.
    let ack = reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap());
    assert_eq!(ack["type"], "ack", "{ack}");
    assert_eq!(ack["requestId"], "setPlacementLatencies-1");
    assert_eq!(ack["latencies"], json!({"us-east-1": 42, "eu-west-1": 88}));
    assert!(w.gamelift.calls().is_empty());
}
