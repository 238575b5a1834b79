//! The seat's connection details kept fresh, against a scripted server: a seat whose
//! player gateway token expires in 2 s is refreshed once before it does, the event carries
//! the new token, a new seat cancels the old one's refresh, and a seat without details is
//! retried with backoff.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod scripted;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use gamelift_sockets_client::{Auth, Client, Config, Event, Events};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::sleep;
use tokio_tungstenite::accept_async;
use tokio_tungstenite::tungstenite::Message;

const ARN: &str = "arn:aws:gamelift:local::gamesession/fleet-local/gs-1";

fn now_millis() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A seat behind player gateway whose token expires `in_ms` from now.
fn seat(player_session_id: &str, token: &str, in_ms: i64) -> Value {
    json!({"gameSessionArn": ARN, "ipAddress": "127.0.0.1", "dnsName": "localhost", "port": 7777,
           "region": "local", "playerSessionId": player_session_id,
           "connection": {"endpoints": [{"ipAddress": "127.0.0.2", "port": 17777}],
                          "playerGatewayToken": token, "expiresAt": now_millis() + in_ms}})
}

/// How the server answers the n-th `refreshConnectionDetails` (from 1): an ack's seat, or
/// an error code.
type Answer = Box<dyn Fn(usize) -> Result<Value, &'static str> + Send>;

/// A server that acks `resume`, answers refreshes as told, pushes what the test sends, and
/// records when each refresh came (epoch ms).
struct Server {
    url: String,
    push: mpsc::UnboundedSender<Value>,
    refreshes: Arc<Mutex<Vec<i64>>>,
}

async fn server(answer: Answer) -> Server {
    let (listener, url) = scripted::listen().await;
    let (push, mut pushes) = mpsc::unbounded_channel::<Value>();
    let refreshes = Arc::new(Mutex::new(Vec::new()));
    let seen = refreshes.clone();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = accept_async(tcp).await.unwrap();
        loop {
            tokio::select! {
                Some(Ok(message)) = ws.next() => {
                    let Some(frame) = scripted::frame_of(message) else { continue };
                    let (route, id) = (frame["route"].as_str(), frame["requestId"].clone());
                    let reply = match route {
                        Some("resume") => json!({"type":"ack","route":"resume","requestId":id,
                            "playerId":"p","resumed":false,"pendingMessages":0,"cursor":null,
                            "placement":null,"gameSession":null,"party":null}),
                        Some("refreshConnectionDetails") => {
                            let n = {
                                let mut seen = seen.lock().unwrap();
                                seen.push(now_millis());
                                seen.len()
                            };
                            match answer(n) {
                                Ok(seat) => json!({"type":"ack","route":"refreshConnectionDetails",
                                    "requestId":id,"gameSession":seat}),
                                Err(code) => json!({"type":"error","route":"refreshConnectionDetails",
                                    "requestId":id,"code":code,"message":"GameLift is unavailable; retry"}),
                            }
                        }
                        _ => continue,
                    };
                    ws.send(Message::text(reply.to_string())).await.unwrap();
                }
                Some(frame) = pushes.recv() => ws.send(Message::text(frame.to_string())).await.unwrap(),
                else => return,
            }
        }
    });
    Server {
        url,
        push,
        refreshes,
    }
}

impl Server {
    fn refreshes(&self) -> Vec<i64> {
        self.refreshes.lock().unwrap().clone()
    }
}

async fn connect(server: &Server) -> (Client, Events) {
    Client::connect(Config::new(server.url.clone(), Auth::player_id("p")))
        .await
        .unwrap()
}

/// The tokens of the `ConnectionDetails` events waiting.
fn refreshed_tokens(events: &mut Events) -> Vec<String> {
    let mut tokens = Vec::new();
    while let Some(event) = events.try_next() {
        if let Event::ConnectionDetails(seat) = event {
            tokens.push(seat.connection.unwrap().player_gateway_token.unwrap());
        }
    }
    tokens
}

#[tokio::test]
async fn given_a_seat_expiring_in_2_s_then_it_is_refreshed_once_before_and_the_event_carries_the_new_token()
 {
    // Given a server that answers a refresh with a token good for 10 minutes
    let server = server(Box::new(|_| Ok(seat("psess-1", "pgt-new", 600_000)))).await;
    let (client, mut events) = connect(&server).await;

    // When a placement seats the player with a token that expires in 2 s
    let first = seat("psess-1", "pgt-old", 2_000);
    let expires_at = first["connection"]["expiresAt"].as_i64().unwrap();
    server
        .push
        .send(
            json!({"type":"placement","placementId":"pl-1","status":"FULFILLED",
        "gameSession": first, "seq": 1}),
        )
        .unwrap();
    sleep(Duration::from_millis(1_000)).await;
    assert!(
        server.refreshes().is_empty(),
        "not yet: the margin is a tenth of 2 s"
    );
    sleep(Duration::from_millis(1_400)).await;

    // Then exactly one refresh went out, before the expiry, and the event has the new token
    let refreshes = server.refreshes();
    assert_eq!(refreshes.len(), 1);
    assert!(refreshes[0] < expires_at, "refreshed before expiresAt");
    assert_eq!(refreshed_tokens(&mut events), ["pgt-new"]);
    let held = client.seat().unwrap().connection.unwrap();
    assert_eq!(held.player_gateway_token.as_deref(), Some("pgt-new"));
    client.close();
}

#[tokio::test]
async fn given_a_new_seat_before_the_old_one_expires_then_only_the_new_seat_is_refreshed() {
    let server = server(Box::new(|_| Ok(seat("psess-2", "pgt-2b", 600_000)))).await;
    let (client, mut events) = connect(&server).await;
    // Given a seat expiring in 500 ms
    server
        .push
        .send(
            json!({"type":"placement","placementId":"pl-1","status":"FULFILLED",
        "gameSession": seat("psess-1", "pgt-1", 500), "seq": 1}),
        )
        .unwrap();
    sleep(Duration::from_millis(50)).await;
    // When a match seats the player elsewhere, expiring in 1.5 s
    let mut matched = seat("psess-2", "pgt-2", 1_500);
    matched["matchId"] = json!("m");
    matched["team"] = json!("red");
    server
        .push
        .send(
            json!({"type":"matchmaking","ticketId":"mm-1","status":"COMPLETED",
        "gameSession": matched, "seq": 2}),
        )
        .unwrap();
    sleep(Duration::from_millis(700)).await;
    // Then the old seat's refresh never went out
    assert!(server.refreshes().is_empty());
    assert_eq!(client.seat().unwrap().player_session_id, "psess-2");
    // And the new one's did, once
    sleep(Duration::from_millis(900)).await;
    assert_eq!(server.refreshes().len(), 1);
    assert_eq!(refreshed_tokens(&mut events), ["pgt-2b"]);
    client.close();
}

#[tokio::test]
async fn given_a_seat_without_details_then_it_is_refreshed_with_backoff_until_it_has_some() {
    // Given a server that answers the first refresh `unavailable`, the second with details
    let server = server(Box::new(|n| {
        if n == 1 {
            Err("unavailable")
        } else {
            Ok(seat("psess-1", "pgt-1", 600_000))
        }
    }))
    .await;
    let (client, mut events) = connect(&server).await;
    // When a required fleet's seat comes without details
    let mut unavailable = seat("psess-1", "x", 0);
    unavailable.as_object_mut().unwrap().remove("connection");
    unavailable["connectionUnavailable"] = json!(true);
    server
        .push
        .send(
            json!({"type":"placement","placementId":"pl-1","status":"FULFILLED",
        "gameSession": unavailable, "seq": 1}),
        )
        .unwrap();
    // Then it asks after 1 s, then 2 s after the failure, and then has a token
    sleep(Duration::from_millis(1_300)).await;
    assert_eq!(server.refreshes().len(), 1);
    sleep(Duration::from_millis(1_200)).await;
    assert_eq!(
        server.refreshes().len(),
        1,
        "backing off: 2 s after the failure"
    );
    sleep(Duration::from_millis(1_000)).await;
    assert_eq!(server.refreshes().len(), 2);
    assert_eq!(refreshed_tokens(&mut events), ["pgt-1"]);
    // And closing stops it
    client.close();
}
