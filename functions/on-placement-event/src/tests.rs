use super::*;
use async_trait::async_trait;
use contracts::fake_gamelift::FakeGameLift;
use contracts::fixtures::{connected, placement_id, player_record};
use contracts::ports::*;
use lambda_runtime::Context;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryMessageStore, InMemoryPlacementStore, InMemoryPlayerStore};
use serde_json::json;
use shared::config::PlayerGateway;
use shared::domain::PlacementStatus;
use shared::placement::PlacementRecord;

const T0: i64 = 1_795_323_600_000;
const P_FUL: &str = "4f1c5b2e-7d3a-4b8e-9c61-2a5d8e0f1b37";
const P_CAN: &str = "9a0b7c64-3e21-4d5f-8a9b-6c7d1e2f3a40";
const P_TIM: &str = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const P_FAI: &str = "b7c8d9e0-f1a2-4b3c-9d4e-5f6a7b8c9d0e";
const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-2222bbbb-3333-4444-5555-666677778888/gsess-0d1e2f3a-4b5c-4d6e-8f70-1a2b3c4d5e6f";
const PSESS_ALICE: &str = "psess-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d";
const PSESS_BOB: &str = "psess-0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f";

/// The one placement event of a payload, read or refused.
fn read_one(payload: Value) -> Result<PlacementEvent, MalformedEvent> {
    let mut events = read_payload(&payload);
    assert_eq!(events.len(), 1);
    events.remove(0)
}

/// The sample event `events/placement-<name>.json` (each file named in full, so a search
/// for one finds the tests that read it).
fn sample(name: &str) -> Value {
    let text = match name {
        "fulfilled-sns" => include_str!("../../../events/placement-fulfilled-sns.json"),
        "fulfilled-eventbridge" => {
            include_str!("../../../events/placement-fulfilled-eventbridge.json")
        }
        "cancelled-sns" => include_str!("../../../events/placement-cancelled-sns.json"),
        "cancelled-eventbridge" => {
            include_str!("../../../events/placement-cancelled-eventbridge.json")
        }
        "timed-out-sns" => include_str!("../../../events/placement-timed-out-sns.json"),
        "timed-out-eventbridge" => {
            include_str!("../../../events/placement-timed-out-eventbridge.json")
        }
        "failed-sns" => include_str!("../../../events/placement-failed-sns.json"),
        "failed-eventbridge" => {
            include_str!("../../../events/placement-failed-eventbridge.json")
        }
        "duplicate-sns" => include_str!("../../../events/placement-duplicate-sns.json"),
        "malformed-sns" => include_str!("../../../events/placement-malformed-sns.json"),
        other => panic!("no sample {other}"),
    };
    serde_json::from_str(text).unwrap()
}

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).unwrap()
}

struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    messages: Arc<InMemoryMessageStore>,
    gamelift: Arc<FakeGameLift>,
    handler: PlacementEventHandler,
    wiring: TestWiring,
}

/// Alice and bob online; alice requested each sample placement (the fulfilled one
/// places her with bob).
async fn world() -> World {
    world_in(PlayerGateway::Disabled).await
}

/// As [`world`], the fleets' player gateway as `mode` says.
async fn world_in(mode: PlayerGateway) -> World {
    let mut w = TestWiring::new().at(T0 + 10_000);
    w.config.player_gateway = mode;
    let players = w.tables.players.clone();
    let placements = w.tables.placements.clone();
    for name in ["alice", "bob"] {
        connected(&*players, name, &format!("c-{name}"), T0).await;
    }
    for id in [P_FUL, P_CAN, P_TIM, P_FAI] {
        placements
            .create(&PlacementRecord::pending(
                placement_id(id),
                player("alice"),
                "eu-queue",
                T0,
            ))
            .await
            .unwrap();
    }
    World {
        handler: wire(&w.wiring()),
        players,
        placements,
        messages: w.tables.messages.clone(),
        gamelift: w.gamelift.clone(),
        wiring: w,
    }
}

impl World {
    async fn begin(&self, id: &str) {
        self.players
            .reserve(&player("alice"), &contracts::fixtures::pending(id))
            .await
            .unwrap();
    }

    async fn run(&self, payload: Value) -> Result<(), lambda_runtime::Error> {
        self.handler
            .handle(LambdaEvent::new(payload, Context::default()))
            .await
    }

    fn frames_to(&self, recipient: &str) -> Vec<Value> {
        self.messages
            .all()
            .into_iter()
            .filter(|m| m.recipient_id.as_str() == recipient)
            .map(|m| serde_json::from_str(&m.payload).unwrap())
            .collect()
    }

    async fn record(&self, name: &str) -> shared::players::PlayerRecord {
        player_record(&*self.players, name).await
    }

    async fn status_of(&self, id: &str) -> PlacementStatus {
        self.placements
            .get(&placement_id(id))
            .await
            .unwrap()
            .unwrap()
            .status
    }
}

fn seat(player_session_id: &str) -> Value {
    json!({
        "gameSessionArn": ARN,
        "ipAddress": "52.30.10.20",
        "dnsName": "ec2-52-30-10-20.eu-west-1.compute.amazonaws.com",
        "port": 7777,
        "region": "eu-west-1",
        "playerSessionId": player_session_id,
        // PLAYER_GATEWAY=disabled: the game server's own address, GameLift not asked.
        "connection": {"endpoints": [{"ipAddress": "52.30.10.20", "port": 7777}]}
    })
}

#[tokio::test]
async fn given_a_fulfilled_event_in_either_form_then_each_placed_player_gets_their_own_seat() {
    for form in ["fulfilled-sns", "fulfilled-eventbridge"] {
        let w = world().await;
        w.begin(P_FUL).await;
        w.run(sample(form)).await.unwrap();

        for (name, psess) in [("alice", PSESS_ALICE), ("bob", PSESS_BOB)] {
            assert_eq!(
                w.frames_to(name),
                vec![
                    json!({"type":"placement","placementId":P_FUL,"status":"FULFILLED",
                            "gameSession": seat(psess)})
                ],
                "{form}: {name}"
            );
            let record = w.record(name).await;
            assert_eq!(record.pending, None, "{form}: {name}");
            assert_eq!(
                serde_json::to_value(record.game_session.unwrap()).unwrap(),
                seat(psess),
                "{form}: {name}"
            );
        }
        let stored = w.messages.all();
        let alice = stored
            .iter()
            .find(|m| m.recipient_id.as_str() == "alice")
            .unwrap();
        assert_eq!(
            alice.message_id,
            MessageId::deterministic(&["placement", P_FUL, "alice"])
        );
        assert_eq!(alice.kind, MessageKind::Placement);
        assert_eq!(alice.sender_id, "system");
        assert_eq!(alice.created_at, T0 + 10_000);
        assert_eq!(alice.expire_at_secs, (T0 + 10_000) / 1000 + 86_400);
        let placement = w
            .placements
            .get(&placement_id(P_FUL))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(placement.status, PlacementStatus::Fulfilled);
        assert_eq!(placement.player_sessions.len(), 2);
        assert_eq!(placement.game_session.unwrap().port, 7777);
    }
}

#[tokio::test]
async fn given_an_ended_event_in_either_form_then_the_requester_is_told_and_no_longer_pending() {
    for (form, id, status) in [
        ("cancelled-sns", P_CAN, "CANCELLED"),
        ("cancelled-eventbridge", P_CAN, "CANCELLED"),
        ("timed-out-sns", P_TIM, "TIMED_OUT"),
        ("timed-out-eventbridge", P_TIM, "TIMED_OUT"),
        ("failed-sns", P_FAI, "FAILED"),
        ("failed-eventbridge", P_FAI, "FAILED"),
    ] {
        let w = world().await;
        w.begin(id).await;
        w.run(sample(form)).await.unwrap();
        assert_eq!(
            w.frames_to("alice"),
            vec![json!({"type":"placement","placementId":id,"status":status})],
            "{form}"
        );
        assert!(w.frames_to("bob").is_empty(), "{form}");
        let alice = w.record("alice").await;
        assert_eq!(alice.pending, None, "{form}");
        assert_eq!(alice.game_session, None, "{form}");
        assert_eq!(w.status_of(id).await.as_str(), status, "{form}");
    }
}

#[tokio::test]
async fn given_a_duplicate_event_then_nothing_is_delivered_twice() {
    let w = world().await;
    w.begin(P_FUL).await;
    w.run(sample("duplicate-sns")).await.unwrap();
    assert_eq!(w.frames_to("alice").len(), 1);
    assert_eq!(w.frames_to("bob").len(), 1);

    // SNS delivers it once more, in either form: nothing new is appended.
    w.run(sample("fulfilled-sns")).await.unwrap();
    w.run(sample("fulfilled-eventbridge")).await.unwrap();
    assert_eq!(w.messages.all().len(), 2);
}

#[tokio::test]
async fn given_an_out_of_order_event_then_the_first_final_status_stands() {
    // Placement `id` settled by the sample `first`, then the sample `late` arrives for it.
    let settled_then = async |id: &str, first: &str, late: &str| {
        let w = world().await;
        w.begin(id).await;
        w.run(sample(first)).await.unwrap();
        let mut late = sample(late);
        late["detail"]["placementId"] = json!(id);
        w.run(late).await.unwrap();
        w
    };
    let w = settled_then(P_FUL, "fulfilled-eventbridge", "cancelled-eventbridge").await;
    assert_eq!(w.status_of(P_FUL).await, PlacementStatus::Fulfilled);
    assert_eq!(w.frames_to("alice").len(), 1);
    assert!(w.record("alice").await.game_session.is_some());

    // And the other way round: a fulfilled event after the cancellation.
    let w = settled_then(P_CAN, "cancelled-eventbridge", "fulfilled-eventbridge").await;
    assert_eq!(w.status_of(P_CAN).await, PlacementStatus::Cancelled);
    assert_eq!(w.record("alice").await.game_session, None);
    assert!(w.frames_to("bob").is_empty());
}

#[tokio::test]
async fn given_malformed_records_then_each_is_skipped_and_the_good_one_still_settles() {
    let w = world().await;
    w.begin(P_TIM).await;
    w.run(sample("malformed-sns")).await.unwrap();
    assert_eq!(
        w.frames_to("alice"),
        vec![json!({"type":"placement","placementId":P_TIM,"status":"TIMED_OUT"})]
    );
    assert_eq!(w.status_of(P_FUL).await, PlacementStatus::Pending);
    assert_eq!(w.status_of(P_CAN).await, PlacementStatus::Pending);
    for payload in [
        json!({}),
        json!([1, 2]),
        json!("text"),
        json!({"Records": 7}),
    ] {
        w.run(payload.clone()).await.unwrap();
    }
    assert_eq!(w.messages.all().len(), 1);
}

#[tokio::test]
async fn given_an_event_for_a_placement_not_recorded_here_then_nothing_is_written() {
    let w = world().await;
    for form in ["cancelled-eventbridge", "fulfilled-eventbridge"] {
        let mut foreign = sample(form);
        foreign["detail"]["placementId"] = json!("someone-elses-placement");
        w.run(foreign).await.unwrap();
    }
    assert!(w.messages.all().is_empty());
    assert_eq!(w.record("bob").await.game_session, None);
}

/// Settlements that fail as DynamoDB does when throttled.
struct ThrottledOutcomes;

#[async_trait]
impl PlacementOutcomes for ThrottledOutcomes {
    async fn settle(&self, _: &Settlement) -> Result<bool, StoreError> {
        Err(StoreError::Unavailable("TransactionConflict".into()))
    }
}

#[tokio::test]
async fn given_a_transient_store_failure_then_err_so_lambda_retries() {
    let mut w = world().await.wiring.at(T0);
    w.replace::<dyn PlacementOutcomes>(Arc::new(ThrottledOutcomes));
    let handler = wire(&w.wiring());
    let result = handler
        .handle(LambdaEvent::new(
            sample("fulfilled-sns"),
            Context::default(),
        ))
        .await;
    assert!(result.is_err());
}

#[test]
fn a_fulfilled_event_takes_a_numeric_port_and_finds_the_region_in_the_arn() {
    let mut event = sample("fulfilled-eventbridge");
    event["detail"]["port"] = json!(7778);
    event["detail"]
        .as_object_mut()
        .unwrap()
        .remove("gameSessionRegion");
    event["detail"]["placedPlayerSessions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"playerId": "not a player id", "playerSessionId": "psess-x"}));
    let parsed = read_one(event).unwrap();
    let PlacementOutcome::Fulfilled {
        game_session,
        placed,
    } = parsed.outcome
    else {
        panic!("fulfilled");
    };
    assert_eq!(game_session.port, 7778);
    assert_eq!(game_session.region, "eu-west-1");
    assert_eq!(placed.len(), 2, "the invalid player id is skipped");
}

#[test]
fn events_that_are_not_gamelift_placements_are_refused_with_the_reason() {
    let mut other_source = sample("cancelled-eventbridge");
    other_source["source"] = json!("aws.ec2");
    let mut unknown_type = sample("cancelled-eventbridge");
    unknown_type["detail"]["type"] = json!("PlacementExploded");
    let mut port_zero = sample("fulfilled-eventbridge");
    port_zero["detail"]["port"] = json!("0");
    let mut no_arn = sample("fulfilled-eventbridge");
    no_arn["detail"]
        .as_object_mut()
        .unwrap()
        .remove("gameSessionArn");
    for (event, says) in [
        (
            other_source,
            "not a \"GameLift Queue Placement Event\" from aws.gamelift",
        ),
        (unknown_type, "PlacementExploded"),
        (port_zero, "is not a port number"),
        (no_arn, "gameSessionArn is missing"),
    ] {
        let err = read_one(event).unwrap_err();
        assert!(err.to_string().contains(says), "{err}");
    }
}

#[tokio::test]
async fn given_an_event_whose_placement_id_breaks_the_rule_then_it_is_refused_naming_it_and_nothing_is_written()
 {
    let too_long = "x".repeat(49);
    for (raw, says) in [
        ("", "placement id is empty"),
        (
            "p/1",
            "contains '/' at position 1; allowed are A-Z a-z 0-9 -",
        ),
        (too_long.as_str(), "49 characters long; the maximum is 48"),
    ] {
        let mut event = sample("cancelled-eventbridge");
        event["detail"]["placementId"] = json!(raw);
        let err = read_one(event.clone()).unwrap_err();
        assert!(
            matches!(&err, MalformedEvent::PlacementId { raw: got, .. } if got == raw),
            "{err:?}"
        );
        let chain = ErrorChain(&err).to_string();
        assert!(
            chain.starts_with(&format!(
                "the placement event's placementId {raw:?} is not a placement id: "
            )),
            "{chain}"
        );
        assert!(chain.contains(says), "{chain}");

        let w = world().await;
        w.begin(P_CAN).await;
        w.run(event).await.unwrap();
        assert!(w.messages.all().is_empty(), "{raw:?}");
        assert_eq!(w.status_of(P_CAN).await, PlacementStatus::Pending);
    }
}

#[tokio::test]
async fn given_a_player_gateway_fleet_when_a_placement_is_fulfilled_then_one_call_gives_every_placed_player_relays_and_a_token()
 {
    for mode in [PlayerGateway::Enabled, PlayerGateway::Required] {
        // Given fleets behind player gateway, and alice's placement that seats her and bob
        let w = world_in(mode).await;
        w.gamelift.with_player_gateway(T0 + 600_000);
        w.begin(P_FUL).await;
        // When the FULFILLED event comes
        w.run(sample("fulfilled-sns")).await.unwrap();
        // Then GameLift was asked once, for both
        let calls = w.gamelift.connection_details_calls();
        assert_eq!(calls.len(), 1, "{mode}");
        assert_eq!(calls[0].game_session_arn, ARN);
        assert_eq!(calls[0].players, vec![player("alice"), player("bob")]);
        // And each one's frame and stored seat carry their own token
        let mut tokens = Vec::new();
        for name in ["alice", "bob"] {
            let frame = &w.frames_to(name)[0];
            let connection = &frame["gameSession"]["connection"];
            assert_eq!(connection["endpoints"][0]["ipAddress"], "198.51.100.7");
            assert_eq!(connection["expiresAt"], json!(T0 + 600_000));
            let stored = w.record(name).await.game_session.unwrap();
            assert_eq!(serde_json::to_value(&stored).unwrap(), frame["gameSession"]);
            tokens.push(connection["playerGatewayToken"].clone());
        }
        assert_ne!(tokens[0], tokens[1]);
    }
}

#[tokio::test]
async fn given_get_player_connection_details_fails_then_enabled_seats_go_direct_and_required_ones_say_unavailable()
 {
    for (mode, expected) in [
        (
            PlayerGateway::Enabled,
            json!({"endpoints": [{"ipAddress": "52.30.10.20", "port": 7777}]}),
        ),
        (PlayerGateway::Required, Value::Null),
    ] {
        // Given GameLift throttling the call
        let w = world_in(mode).await;
        w.gamelift
            .fail_next_connection_details(shared::ports::GameLiftError::Unavailable(
                "ThrottlingException".into(),
            ));
        w.begin(P_FUL).await;
        // When the placement is fulfilled
        w.run(sample("fulfilled-sns")).await.unwrap();
        // Then it is settled anyway, each seat as the failure policy says
        assert_eq!(w.status_of(P_FUL).await, PlacementStatus::Fulfilled);
        for name in ["alice", "bob"] {
            let seat = &w.frames_to(name)[0]["gameSession"];
            assert_eq!(seat["connection"], expected, "{mode}: {name}");
            assert_eq!(
                seat.get("connectionUnavailable").is_some(),
                mode == PlayerGateway::Required,
                "{mode}: {name}"
            );
            assert_eq!(
                w.record(name)
                    .await
                    .game_session
                    .unwrap()
                    .connection_unavailable,
                mode == PlayerGateway::Required
            );
        }
    }
}

#[tokio::test]
async fn given_an_ended_placement_then_gamelift_is_not_asked_for_connection_details() {
    let w = world_in(PlayerGateway::Required).await;
    w.begin(P_CAN).await;
    w.run(sample("cancelled-sns")).await.unwrap();
    assert!(w.gamelift.connection_details_calls().is_empty());
}

#[tokio::test]
async fn given_a_player_gateway_fleet_when_a_placement_not_ours_or_already_settled_is_fulfilled_then_gamelift_is_not_asked()
 {
    // Given a fulfilled placement this system never recorded (FlexMatch's own)
    let w = world_in(PlayerGateway::Required).await;
    let mut unknown = sample("fulfilled-eventbridge");
    unknown["detail"]["placementId"] = json!("0a0b0c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d");
    w.run(unknown).await.unwrap();
    // And a duplicate of one settled
    w.begin(P_FUL).await;
    w.run(sample("fulfilled-sns")).await.unwrap();
    w.run(sample("fulfilled-sns")).await.unwrap();
    // Then GameLift was asked once: for the settlement that counted
    assert_eq!(w.gamelift.connection_details_calls().len(), 1);
    assert_eq!(w.frames_to("alice").len(), 1);
}

impl World {
    /// Why each event of `payload` changed nothing (what `handle` counts).
    async fn ignored(&self, payload: Value) -> Vec<Ignored> {
        let handled = self.handler.settle_all(payload).await;
        assert!(handled.retry.is_none());
        handled.ignored
    }
}

#[tokio::test]
async fn given_events_that_change_nothing_when_handled_then_each_says_why_for_the_ignored_events_metric()
 {
    let w = world().await;
    w.begin(P_FUL).await;
    // A duplicate: the sample carries the same FULFILLED event twice; then once more.
    assert_eq!(
        w.ignored(sample("duplicate-sns")).await,
        vec![Ignored::Duplicate]
    );
    assert_eq!(
        w.ignored(sample("fulfilled-eventbridge")).await,
        vec![Ignored::Duplicate]
    );
    // Out of order: a cancellation after the fulfilment, and the other way round.
    let mut late = sample("cancelled-eventbridge");
    late["detail"]["placementId"] = json!(P_FUL);
    assert_eq!(w.ignored(late).await, vec![Ignored::OutOfOrder]);
    w.begin(P_CAN).await;
    assert!(w.ignored(sample("cancelled-eventbridge")).await.is_empty());
    let mut late = sample("fulfilled-eventbridge");
    late["detail"]["placementId"] = json!(P_CAN);
    assert_eq!(w.ignored(late).await, vec![Ignored::OutOfOrder]);
    // Not recorded here: an id of the shape this stack makes is unknown (another
    // stack's), any other shape foreign (FlexMatch's own placements).
    for form in ["fulfilled-eventbridge", "cancelled-eventbridge"] {
        let mut unknown = sample(form);
        unknown["detail"]["placementId"] = json!(shared::domain::PlacementId::new_at(T0));
        assert_eq!(w.ignored(unknown).await, vec![Ignored::Unknown], "{form}");
        let mut foreign = sample(form);
        foreign["detail"]["placementId"] = json!("someone-elses-placement");
        assert_eq!(w.ignored(foreign).await, vec![Ignored::Foreign], "{form}");
    }
    // Malformed: five unreadable records around a good one, which settles.
    w.begin(P_TIM).await;
    assert_eq!(
        w.ignored(sample("malformed-sns")).await,
        vec![Ignored::Malformed; 5]
    );
    assert_eq!(w.status_of(P_TIM).await, PlacementStatus::TimedOut);
}
