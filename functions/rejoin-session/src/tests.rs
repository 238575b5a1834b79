use super::*;
use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fake_gamelift::{
    FAKE_DNS_NAME, FAKE_IP_ADDRESS, FAKE_PORT, FakeGameLift, GameLiftCall,
};
use contracts::fixtures::{connected, placement_id};
use contracts::ports::*;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{
    InMemoryMessageStore, InMemoryPlacementOutcomes, InMemoryPlacementStore, InMemoryPlayerStore,
};
use serde_json::Value;
use serde_json::json;
use shared::config::PlayerGateway;
use shared::domain::{MessageId, PlacementStatus};
use shared::messaging::{MessageKind, NewMessage};
use shared::placement::{
    PlacedGameSession, PlacementRecord, PlayerSession, SettledPlayer, Settlement,
};
use shared::ports::{PlacementOutcomes, PlayerSessions};

const T0: i64 = 1_795_323_600_000;
const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1";

struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    gamelift: Arc<FakeGameLift>,
    handler: RejoinSessionHandler,
    wiring: TestWiring,
}

fn alice() -> PlayerId {
    PlayerId::parse("alice").unwrap()
}

async fn world() -> World {
    let mut w = TestWiring::new().at(T0);
    // The refresh's limit off (its own test turns it on).
    w.config.rate_limits.placements_per_minute = 0;
    let players = w.tables.players.clone();
    connected(&*players, "alice", "L0SM9cOFvHcCIhw=", T0).await;
    World {
        handler: wire(&w.wiring()),
        players,
        placements: w.tables.placements.clone(),
        gamelift: w.gamelift.clone(),
        wiring: w,
    }
}

impl World {
    /// The handler with the fleets' player gateway as `mode` says.
    fn handler_in(&self, mode: PlayerGateway) -> RejoinSessionHandler {
        let mut w = self.wiring.clone();
        w.config.player_gateway = mode;
        wire(&w.wiring())
    }
}

/// Alice was placed in game session `arn` (as `on-placement-event` settles it).
async fn placed(
    players: &Arc<InMemoryPlayerStore>,
    placements: &Arc<InMemoryPlacementStore>,
    id: &str,
    arn: &str,
) {
    let placement_id = placement_id(id);
    placements
        .create(&PlacementRecord::pending(
            placement_id.clone(),
            alice(),
            "q",
            T0,
        ))
        .await
        .unwrap();
    let outcomes = InMemoryPlacementOutcomes::new(
        placements.clone(),
        players.clone(),
        Arc::new(InMemoryMessageStore::new()),
    );
    let settlement = Settlement {
        placement_id,
        status: PlacementStatus::Fulfilled,
        game_session: Some(PlacedGameSession {
            game_session_arn: arn.into(),
            ip_address: "10.0.0.9".into(),
            dns_name: "old.example".into(),
            port: 1935,
            region: "eu-west-1".into(),
        }),
        players: vec![SettledPlayer {
            player_id: alice(),
            player_session_id: Some("psess-first".into()),
            connection: Default::default(),
            message: NewMessage {
                message_id: MessageId::deterministic(&["placement", id, "alice"]),
                recipient_id: alice(),
                sender_id: "system".into(),
                kind: MessageKind::Placement,
                payload: "{}".into(),
                created_at: T0,
                expire_at_secs: 0,
            },
        }],
        at: T0,
    };
    assert!(outcomes.settle(&settlement).await.unwrap());
}

async fn rejoin(w: &World) -> Value {
    let raw = serde_json::from_str(include_str!("../../../events/rejoin-session.json")).unwrap();
    reply_frame(&w.handler.handle(parse_event(raw)).await.unwrap())
}

#[tokio::test]
async fn given_a_game_on_record_when_rejoining_then_a_new_player_session_in_the_same_game() {
    let w = world().await;
    placed(&w.players, &w.placements, "p-1", ARN).await;
    let ack = rejoin(&w).await;
    let expected = GameSession {
        game_session_arn: ARN.into(),
        ip_address: FAKE_IP_ADDRESS.into(),
        dns_name: FAKE_DNS_NAME.into(),
        port: FAKE_PORT,
        region: "eu-west-1".into(),
        player_session_id: "psess-fake-1".into(),
        // PLAYER_GATEWAY=disabled: the game server's own address, GameLift not asked.
        connection: Some(shared::domain::ConnectionDetails::direct(
            FAKE_IP_ADDRESS,
            FAKE_PORT,
        )),
        connection_unavailable: false,
    };
    assert!(w.gamelift.connection_details_calls().is_empty());
    assert_eq!(
        ack,
        json!({"type":"ack","route":"rejoinSession","requestId":"rj-1",
               "gameSession": serde_json::to_value(&expected).unwrap()})
    );
    assert_eq!(
        w.gamelift.calls(),
        vec![GameLiftCall::CreatePlayerSession {
            game_session_arn: ARN.into(),
            player_id: alice(),
            player_data: None,
        }]
    );
    let record = w.players.get(&alice()).await.unwrap().unwrap();
    assert_eq!(record.game_session, Some(expected));

    // Again: another new player session, same game.
    let again = rejoin(&w).await;
    assert_eq!(again["gameSession"]["playerSessionId"], "psess-fake-2");
    assert_eq!(again["gameSession"]["gameSessionArn"], ARN);
}

#[tokio::test]
async fn given_no_game_on_record_when_rejoining_then_not_found() {
    let w = world().await;
    let frame = rejoin(&w).await;
    assert_eq!(frame["code"], "not_found");
    assert!(w.gamelift.calls().is_empty());
}

#[tokio::test]
async fn given_the_backend_reported_the_game_over_when_rejoining_then_session_ended_without_asking_gamelift()
 {
    // Given alice was placed, and the game server reported the game ended
    let w = world().await;
    placed(&w.players, &w.placements, "p-1", ARN).await;
    assert!(w.players.end_game_session(&alice(), ARN).await.unwrap());

    // When she rejoins
    let frame = rejoin(&w).await;

    // Then session_ended at once, naming the game; GameLift is not called
    assert_eq!(frame["code"], "session_ended", "{frame}");
    assert_eq!(frame["gameSessionArn"], ARN, "{frame}");
    assert!(w.gamelift.calls().is_empty());
}

#[tokio::test]
async fn given_the_game_over_full_or_gone_when_rejoining_then_session_ended() {
    for refusal in [
        GameLiftError::SessionEnded {
            message: "game session status TERMINATED".into(),
        },
        GameLiftError::NotFound {
            message: "no such game session".into(),
        },
    ] {
        let w = world().await;
        placed(&w.players, &w.placements, "p-1", ARN).await;
        w.gamelift.fail_next_player_session(refusal);
        let frame = rejoin(&w).await;
        assert_eq!(frame["code"], "session_ended", "{frame}");
        let record = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(
            record.game_session.unwrap().player_session_id,
            "psess-first",
            "the record is unchanged"
        );
    }
}

#[tokio::test]
async fn given_gamelift_unavailable_when_rejoining_then_unavailable() {
    let w = world().await;
    placed(&w.players, &w.placements, "p-1", ARN).await;
    w.gamelift
        .fail_next_player_session(GameLiftError::Unavailable("throttled".into()));
    assert_eq!(rejoin(&w).await["code"], "unavailable");
}

/// A GameLift whose CreatePlayerSession lands while a newer placement is fulfilled.
struct RacingGameLift {
    inner: FakeGameLift,
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
}

#[async_trait]
impl PlayerSessions for RacingGameLift {
    async fn create_player_session(
        &self,
        arn: &str,
        player: &PlayerId,
        data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError> {
        let newer = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-2";
        placed(&self.players, &self.placements, "p-2", newer).await;
        self.inner.create_player_session(arn, player, data).await
    }
}

#[tokio::test]
async fn given_a_new_game_fulfilled_during_the_rejoin_then_conflict_and_the_new_game_is_kept() {
    let w = world().await;
    placed(&w.players, &w.placements, "p-1", ARN).await;
    let mut racing = w.wiring.clone();
    racing.replace::<dyn PlayerSessions>(Arc::new(RacingGameLift {
        inner: FakeGameLift::new(),
        players: w.players.clone(),
        placements: w.placements.clone(),
    }));
    let handler = wire(&racing.wiring());
    let text = r#"{"route":"rejoinSession"}"#;
    let event = route_event("rejoinSession", "alice", "c1", T0, Some(text));
    let frame = reply_frame(&handler.handle(event).await.unwrap());
    assert_eq!(frame["code"], "conflict");
    let record = w.players.get(&alice()).await.unwrap().unwrap();
    assert!(
        record
            .game_session
            .unwrap()
            .game_session_arn
            .ends_with("gs-2")
    );
}

async fn refresh(handler: &RejoinSessionHandler) -> Value {
    let text = r#"{"route":"refreshConnectionDetails","requestId":"rf-1"}"#;
    let event = route_event("refreshConnectionDetails", "alice", "c1", T0, Some(text));
    reply_frame(&handler.handle(event).await.unwrap())
}

#[tokio::test]
async fn given_a_player_gateway_fleet_when_rejoining_then_one_call_gives_the_new_seat_its_relays_and_token()
 {
    for mode in [PlayerGateway::Enabled, PlayerGateway::Required] {
        let w = world().await;
        w.gamelift.with_player_gateway(T0 + 600_000);
        let handler = w.handler_in(mode);
        placed(&w.players, &w.placements, "p-1", ARN).await;
        let ack = rejoin_with(&handler).await;
        let calls = w.gamelift.connection_details_calls();
        assert_eq!(calls.len(), 1, "{mode}");
        assert_eq!(
            (calls[0].game_session_arn.as_str(), &calls[0].players),
            (ARN, &vec![alice()])
        );
        let connection = &ack["gameSession"]["connection"];
        assert_eq!(connection["endpoints"][0]["ipAddress"], "198.51.100.7");
        assert_eq!(connection["playerGatewayToken"], "pgt-fake-1");
        let stored = w.players.get(&alice()).await.unwrap().unwrap();
        assert_eq!(
            serde_json::to_value(stored.game_session.unwrap()).unwrap(),
            ack["gameSession"]
        );
    }
}

async fn rejoin_with(handler: &RejoinSessionHandler) -> Value {
    let raw = serde_json::from_str(include_str!("../../../events/rejoin-session.json")).unwrap();
    reply_frame(&handler.handle(parse_event(raw)).await.unwrap())
}

#[tokio::test]
async fn given_a_seat_when_refreshing_then_fresh_details_are_stored_and_acked_with_the_same_player_session()
 {
    // Given alice seated behind player gateway
    let w = world().await;
    w.gamelift.with_player_gateway(T0 + 600_000);
    let handler = w.handler_in(PlayerGateway::Required);
    placed(&w.players, &w.placements, "p-1", ARN).await;
    // When she asks for fresh details
    let ack = refresh(&handler).await;
    // Then her seat is the same player session with a new token, stored
    assert_eq!(ack["route"], "refreshConnectionDetails");
    assert_eq!(ack["gameSession"]["playerSessionId"], "psess-first");
    assert_eq!(
        ack["gameSession"]["connection"]["playerGatewayToken"],
        "pgt-fake-1"
    );
    let stored = w.players.get(&alice()).await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(stored.game_session.unwrap()).unwrap(),
        ack["gameSession"]
    );
    // And GameLift was asked once, for her alone; no new player session
    assert_eq!(w.gamelift.connection_details_calls().len(), 1);
    assert!(w.gamelift.calls().is_empty());
}

#[tokio::test]
async fn given_no_seat_when_refreshing_then_not_found_and_gamelift_is_not_asked() {
    let w = world().await;
    let handler = w.handler_in(PlayerGateway::Required);
    let reply = refresh(&handler).await;
    assert_eq!(reply["type"], "error");
    assert_eq!(reply["code"], "not_found");
    assert!(w.gamelift.connection_details_calls().is_empty());
}

#[tokio::test]
async fn given_a_failing_call_when_refreshing_then_enabled_goes_direct_required_stays_unavailable_and_an_ended_game_is_session_ended()
 {
    for (mode, direct) in [
        (PlayerGateway::Enabled, true),
        (PlayerGateway::Required, false),
    ] {
        let w = world().await;
        let handler = w.handler_in(mode);
        placed(&w.players, &w.placements, "p-1", ARN).await;
        w.gamelift
            .fail_next_connection_details(GameLiftError::Unavailable("ThrottlingException".into()));
        let ack = refresh(&handler).await;
        assert_eq!(ack["type"], "ack", "{mode}");
        assert_eq!(
            ack["gameSession"].get("connection").is_some(),
            direct,
            "{mode}"
        );
        assert_eq!(
            ack["gameSession"].get("connectionUnavailable").is_some(),
            !direct,
            "{mode}"
        );
        w.gamelift
            .fail_next_connection_details(GameLiftError::SessionEnded {
                message: "TERMINATED".into(),
            });
        let reply = refresh(&handler).await;
        assert_eq!(reply["code"], "session_ended", "{mode}");
    }
}

#[tokio::test]
async fn given_the_placement_limit_spent_when_refreshing_then_rate_limited_and_gamelift_is_not_asked()
 {
    let w = world().await;
    let mut limited = w.wiring.clone();
    limited.config.player_gateway = PlayerGateway::Required;
    limited.config.rate_limits.placements_per_minute = 1;
    let handler = wire(&limited.wiring());
    placed(&w.players, &w.placements, "p-1", ARN).await;
    assert_eq!(refresh(&handler).await["type"], "ack");
    let reply = refresh(&handler).await;
    assert_eq!(reply["code"], "rate_limited");
    assert_eq!(w.gamelift.connection_details_calls().len(), 1);
}

/// GameLift's connection details, answered while a rejoin gives the player a new player
/// session in the same game (stored as `rejoinSession` stores it).
struct RejoinDuringRefresh {
    inner: Arc<FakeGameLift>,
    players: Arc<InMemoryPlayerStore>,
}

#[async_trait]
impl shared::ports::PlayerConnections for RejoinDuringRefresh {
    async fn get_player_connection_details(
        &self,
        game_session_arn: &str,
        players: &[PlayerId],
    ) -> Result<Vec<shared::ports::PlayerConnection>, GameLiftError> {
        let mut rejoined = self.players.get(&alice()).await.unwrap().unwrap();
        let mut seat = rejoined.game_session.take().unwrap();
        seat.player_session_id = "psess-second".into();
        assert!(
            self.players
                .update_game_session(&alice(), &seat)
                .await
                .unwrap()
        );
        self.inner
            .get_player_connection_details(game_session_arn, players)
            .await
    }
}

#[tokio::test]
async fn given_a_rejoin_landing_while_a_refresh_asks_gamelift_then_the_refresh_is_a_conflict_and_the_rejoined_seat_is_kept()
 {
    // Given alice seated behind player gateway, and a rejoin racing her refresh
    let w = world().await;
    w.gamelift.with_player_gateway(T0 + 600_000);
    placed(&w.players, &w.placements, "p-1", ARN).await;
    let mut racing = w.wiring.clone();
    racing.config.player_gateway = PlayerGateway::Required;
    racing.replace::<dyn shared::ports::PlayerConnections>(Arc::new(RejoinDuringRefresh {
        inner: w.gamelift.clone(),
        players: w.players.clone(),
    }));
    let handler = wire(&racing.wiring());
    // When the refresh, for the old player session, comes to store its details
    let frame = refresh(&handler).await;
    // Then it loses: the client asks again, and the rejoin's seat is not overwritten
    assert_eq!(frame["code"], "conflict", "{frame}");
    let stored = w.players.get(&alice()).await.unwrap().unwrap();
    assert_eq!(
        stored.game_session.unwrap().player_session_id,
        "psess-second"
    );
}
