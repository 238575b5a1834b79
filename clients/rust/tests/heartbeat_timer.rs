//! The heartbeat timer against a scripted server: a `ping` when there is nothing new to
//! report, a `heartbeat` with the cursor when a push was handled since the last report.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Test support: a panic is the test failing, with its message.

mod scripted;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gamelift_sockets_client::protocol::ClientRequest;
use gamelift_sockets_client::{Auth, Client, ClientError, Config, Event, Events};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::timeout;
use tokio_tungstenite::accept_async;
use tokio_tungstenite::tungstenite::Message;

/// What the test tells the server to do.
enum Script {
    Push(Value),
    /// Close the socket (the client reconnects).
    Drop,
}

/// A server that acks `resume` and acked heartbeats, and reports every frame it reads as
/// (connection number, frame).
struct Server {
    url: String,
    frames: mpsc::UnboundedReceiver<(usize, Value)>,
    script: mpsc::UnboundedSender<Script>,
}

async fn server() -> Server {
    server_saying(None).await
}

/// A server whose `resume` acks carry `keep_alive` as their `keepAlive`, if any.
async fn server_saying(keep_alive: Option<Value>) -> Server {
    let (listener, url) = scripted::listen().await;
    let (frames_tx, frames) = mpsc::unbounded_channel();
    let (script, mut script_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut number = 0;
        while let Ok((tcp, _)) = listener.accept().await {
            number += 1;
            let mut ws = accept_async(tcp).await.unwrap();
            loop {
                tokio::select! {
                    Some(Ok(message)) = ws.next() => {
                        let Some(frame) = scripted::frame_of(message) else { continue };
                        let answer = match (frame["route"].as_str(), frame.get("requestId")) {
                            (Some("resume"), Some(id)) => {
                                let mut ack = json!({"type":"ack","route":"resume",
                                    "requestId":id,"playerId":"p","resumed":number > 1,"pendingMessages":0,
                                    "cursor":null,"placement":null,"gameSession":null,"party":null});
                                if let Some(keep_alive) = &keep_alive {
                                    ack["keepAlive"] = keep_alive.clone();
                                }
                                Some(ack)
                            }
                            (Some("heartbeat"), Some(id)) => Some(json!({"type":"ack",
                                "route":"heartbeat","requestId":id,"serverTime":123})),
                            _ => None,
                        };
                        if let Some(answer) = answer {
                            ws.send(Message::text(answer.to_string())).await.unwrap();
                        }
                        let _ = frames_tx.send((number, frame));
                    }
                    Some(step) = script_rx.recv() => match step {
                        Script::Push(frame) => ws.send(Message::text(frame.to_string())).await.unwrap(),
                        Script::Drop => break,
                    },
                    else => return,
                }
            }
        }
    });
    Server {
        url,
        frames,
        script,
    }
}

impl Server {
    /// The next frame the timer sent (`ping` or `heartbeat` without `requestId`), with
    /// the connection it came on.
    async fn next_tick(&mut self) -> (usize, Value) {
        loop {
            let (conn, frame) = timeout(Duration::from_secs(5), self.frames.recv())
                .await
                .expect("a timer frame within 5 s")
                .expect("the server runs");
            let timer = matches!(frame["route"].as_str(), Some("ping" | "heartbeat"));
            if timer && frame.get("requestId").is_none() {
                return (conn, frame);
            }
        }
    }

    /// The next request (a frame with a `requestId`) to `route`, skipping the timer's.
    async fn next_request(&mut self, route: &str) -> (usize, Value) {
        loop {
            let (conn, frame) = timeout(Duration::from_secs(5), self.frames.recv())
                .await
                .expect("a frame within 5 s")
                .expect("the server runs");
            if frame["route"] == route && frame["requestId"].is_string() {
                return (conn, frame);
            }
        }
    }

    fn push(&self, frame: Value) {
        let _ = self.script.send(Script::Push(frame));
    }
}

async fn client(server: &Server, interval_ms: u64) -> (Client, Events) {
    client_with(server, interval_ms, |_| {}).await
}

/// A client of `server` whose timer ticks every `interval_ms` (reconnecting at once),
/// its config then changed by `adjust`.
async fn client_with(
    server: &Server,
    interval_ms: u64,
    adjust: impl FnOnce(&mut Config),
) -> (Client, Events) {
    let mut config = Config::new(server.url.clone(), Auth::player_id("p"));
    config.heartbeat_interval = Duration::from_millis(interval_ms);
    config.reconnect_initial = Duration::from_millis(1);
    config.reconnect_max = Duration::from_millis(5);
    adjust(&mut config);
    Client::connect(config).await.unwrap()
}

/// Waits until the client handed on the push with this `seq`.
async fn handled(events: &mut Events, seq: u64) {
    timeout(Duration::from_secs(5), async {
        while let Some(event) = events.next().await {
            if matches!(event, Event::Push { seq: Some(s), .. } if s == seq) {
                return;
            }
        }
    })
    .await
    .expect("the push handed on");
}

fn presence(seq: u64) -> Value {
    json!({"type":"presence","playerId":"x","status":"online","at":1,"seq":seq})
}

#[tokio::test]
async fn given_an_idle_client_when_the_timer_ticks_then_it_sends_the_ping_route_alone() {
    let mut server = server().await;
    let (client, _events) = client(&server, 20).await;
    for _ in 0..3 {
        assert_eq!(server.next_tick().await.1, json!({"route":"ping"}));
    }
    client.close();
}

#[tokio::test]
async fn given_the_server_says_keep_alive_heartbeat_when_the_timer_ticks_then_every_tick_is_a_heartbeat_at_its_interval()
 {
    // The config says a ping a minute; the server says a heartbeat a second: it wins.
    let mut server = server_saying(Some(json!({"route":"heartbeat","intervalSeconds":1}))).await;
    let (client, mut events) = client(&server, 60_000).await;
    server.push(presence(5));
    handled(&mut events, 5).await;
    let started = std::time::Instant::now();
    for _ in 0..2 {
        assert_eq!(
            server.next_tick().await.1,
            json!({"route":"heartbeat","body":{"cursor":5}}),
            "a heartbeat each tick, with the cursor, even with nothing new to report"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the server's interval"
    );
    client.close();
}

#[tokio::test]
async fn given_the_server_says_keep_alive_ping_when_idle_then_it_pings_even_with_ping_when_idle_off()
 {
    let mut server = server_saying(Some(json!({"route":"ping","intervalSeconds":1}))).await;
    let (client, _events) = client_with(&server, 60_000, |c| c.ping_when_idle = false).await;
    for _ in 0..2 {
        assert_eq!(server.next_tick().await.1, json!({"route":"ping"}));
    }
    client.close();
}

#[tokio::test]
async fn given_ping_when_idle_off_when_the_timer_ticks_idle_then_it_sends_heartbeats() {
    let mut server = server().await;
    let (client, _events) = client_with(&server, 20, |c| c.ping_when_idle = false).await;
    for _ in 0..3 {
        assert_eq!(server.next_tick().await.1, json!({"route":"heartbeat"}));
    }
    client.close();
}

#[tokio::test]
async fn given_a_push_handled_when_the_timer_ticks_then_a_heartbeat_reports_its_cursor_and_the_next_tick_pings()
 {
    let mut server = server().await;
    let (client, mut events) = client(&server, 40).await;
    assert_eq!(server.next_tick().await.1, json!({"route":"ping"}));
    server.push(presence(7));
    server.push(presence(9));
    handled(&mut events, 9).await;
    let mut tick = server.next_tick().await.1;
    if tick == json!({"route":"heartbeat","body":{"cursor":7}}) {
        // The timer fired between the two pushes: the next report carries the newer one.
        tick = server.next_tick().await.1;
    }
    assert_eq!(tick, json!({"route":"heartbeat","body":{"cursor":9}}));
    assert_eq!(server.next_tick().await.1, json!({"route":"ping"}));
    client.close();
}

#[tokio::test]
async fn given_a_reconnect_whose_resume_reported_the_cursor_when_the_timer_ticks_then_it_pings() {
    let mut server = server().await;
    let (client, mut events) = client(&server, 40).await;
    server.push(presence(42));
    handled(&mut events, 42).await;
    let _ = server.script.send(Script::Drop);
    let (_, first) = server.next_request("resume").await;
    assert_eq!(first["body"], json!({}));
    let (conn, resume) = server.next_request("resume").await;
    assert_eq!((conn, &resume["body"]), (2, &json!({"cursor": 42})));
    assert_eq!(server.next_tick().await, (2, json!({"route":"ping"})));
    client.close();
}

#[tokio::test]
async fn given_an_explicit_heartbeat_then_it_carries_the_cursor_is_acked_and_counts_as_the_report()
{
    let mut server = server().await;
    let (client, mut events) = client(&server, 60).await;
    server.push(presence(5));
    handled(&mut events, 5).await;
    assert_eq!(client.heartbeat().await, Ok(123));
    let (_, sent) = server.next_request("heartbeat").await;
    assert_eq!(sent["body"], json!({"cursor": 5}));
    assert_eq!(server.next_tick().await.1, json!({"route":"ping"}));
    client.close();
}

#[tokio::test]
async fn given_a_ping_as_a_request_then_it_is_refused_as_invalid_and_not_sent() {
    let server = server().await;
    let (client, _events) = client(&server, 60_000).await;
    let refused = client.request(ClientRequest::Ping).await;
    assert!(
        matches!(refused, Err(ClientError::Invalid(_))),
        "{refused:?}"
    );
    client.close();
}
