use super::*;
use serde_json::Value;
use shared::adapters::memory::{
    InMemoryMessageStore, InMemoryPlacementOutcomes, InMemoryPlacementStore, InMemoryPlayerStore,
};
use shared::domain::{ConnectionId, MessageId, PlacementId, PlacementStatus};
use shared::ports::{
    MessageKind, NewConnection, NewMessage, PlacedGameSession, PlacementOutcomes, PlacementRecord,
    PlacementStore, PlayerSession, SettledPlayer, Settlement,
};
use shared::testing::events::{parse_event, reply_frame, route_event};
use shared::testing::fake_gamelift::{
    FAKE_DNS_NAME, FAKE_IP_ADDRESS, FAKE_PORT, FakeGameLift, GameLiftCall,
};
use shared::testing::fixtures::placement_id;

const T0: i64 = 1_795_323_600_000;
const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1";

struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    gamelift: Arc<FakeGameLift>,
    handler: RejoinSessionHandler,
}

fn alice() -> PlayerId {
    PlayerId::parse("alice").unwrap()
}

async fn world() -> World {
    let players = Arc::new(InMemoryPlayerStore::new());
    players
        .connect(&NewConnection {
            player_id: alice(),
            connection_id: ConnectionId::parse("L0SM9cOFvHcCIhw=").unwrap(),
            endpoint: "https://x/Development".into(),
            connected_at: T0,
            now: T0,
            heartbeat_deadline: T0 + 90_000,
            sweep_shard: 0,
            expire_at_secs: 0,
        })
        .await
        .unwrap();
    let placements = Arc::new(InMemoryPlacementStore::new());
    let gamelift = Arc::new(FakeGameLift::new());
    let handler = RejoinSessionHandler::new(players.clone(), gamelift.clone());
    World {
        players,
        placements,
        gamelift,
        handler,
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
        connection: None,
        connection_unavailable: false,
    };
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
impl GameLift for RacingGameLift {
    async fn start_placement(
        &self,
        request: &shared::ports::PlacementRequest,
    ) -> Result<(), GameLiftError> {
        self.inner.start_placement(request).await
    }
    async fn stop_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError> {
        self.inner.stop_placement(placement_id).await
    }
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
    let handler = RejoinSessionHandler::new(
        w.players.clone(),
        Arc::new(RacingGameLift {
            inner: FakeGameLift::new(),
            players: w.players.clone(),
            placements: w.placements.clone(),
        }),
    );
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
