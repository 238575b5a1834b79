//! The failure contract, end to end: with the local stack on DynamoDB Local and DynamoDB
//! then gone (its connections cut and refused, as when the store is unreachable), every
//! route answers a typed `unavailable` error frame naming its route and request, the
//! socket stays open, and the log line for each names the underlying cause.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::{Error as SocketError, Message};

use super::{start_local_with, stop};

/// A TCP relay in front of DynamoDB Local that can be cut: the store "goes down".
struct Relay {
    port: u16,
    cut: tokio::sync::oneshot::Sender<()>,
    running: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn to(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (cut, mut cut_signal) = tokio::sync::oneshot::channel();
        let running = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    _ = &mut cut_signal => break,
                    accepted = listener.accept() => {
                        let Ok((mut client, _)) = accepted else { continue };
                        let upstream = upstream.clone();
                        connections.spawn(async move {
                            if let Ok(mut server) = TcpStream::connect(upstream).await {
                                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                            }
                        });
                    }
                }
            }
            // Dropping the listener refuses new connections; aborting drops every open one.
            drop(listener);
            connections.abort_all();
            while connections.join_next().await.is_some() {}
        });
        Self { port, cut, running }
    }

    /// Cuts every connection and refuses new ones.
    async fn cut(self) {
        let _ = self.cut.send(());
        let _ = self.running.await;
    }
}

/// The next text frame as JSON, within `wait`; `None` if the socket closed or nothing came.
async fn next_frame<S>(ws: &mut S, wait: Duration) -> Option<Value>
where
    S: StreamExt<Item = Result<Message, SocketError>> + Unpin,
{
    tokio::time::timeout(wait, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(text))) => return serde_json::from_str(text.as_str()).ok(),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                _ => return None,
            }
        }
    })
    .await
    .ok()
    .flatten()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_goes_down_mid_run_then_every_route_answers_unavailable_with_route_and_request_id_the_socket_stays_open_and_the_log_names_the_cause()
 {
    let Some(endpoint) = super::dynamodb_endpoint() else {
        return;
    };
    let upstream = endpoint
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let relay = Relay::to(upstream).await;
    let suffix = format!("{}-{}", std::process::id(), relay.port);
    let tables: Vec<(String, String)> = ["PLAYERS", "MESSAGES", "PLACEMENTS", "SUBSCRIPTIONS"]
        .iter()
        .map(|t| {
            (
                format!("{t}_TABLE"),
                format!("down-{}-{suffix}", t.to_lowercase()),
            )
        })
        .collect();
    let relay_endpoint = format!("http://127.0.0.1:{}", relay.port);
    let mut env: Vec<(&str, &str)> = vec![("DYNAMODB_ENDPOINT", relay_endpoint.as_str())];
    env.extend(tables.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let started = start_local_with("info", &env);

    // Given alice online (resumed) while the store is up.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{}?playerId=alice", started.url))
        .await
        .expect("alice connects while the store is up");
    ws.send(Message::text(
        json!({"route": "resume", "requestId": "up"}).to_string(),
    ))
    .await
    .unwrap();
    let ack = next_frame(&mut ws, Duration::from_secs(10)).await;
    assert_eq!(
        ack.as_ref().map(|a| a["type"].clone()),
        Some(json!("ack")),
        "{ack:?}"
    );

    // When the store goes away.
    relay.cut().await;

    // Then every route answers `unavailable`, naming its route and request.
    let requests = [
        ("resume", json!({})),
        ("heartbeat", json!({})),
        (
            "sendMessage",
            json!({"playerIds": ["bob"], "message": {"text": "gg"}}),
        ),
        ("sessionPlacementRequest", json!({})),
        ("cancelPlacement", json!({})),
        ("rejoinSession", json!({})),
        ("subscribePresence", json!({"playerIds": ["bob"]})),
        ("unsubscribePresence", json!({"playerIds": ["bob"]})),
    ];
    for (route, body) in &requests {
        ws.send(Message::text(
            json!({"route": route, "requestId": format!("req-{route}"), "body": body}).to_string(),
        ))
        .await
        .unwrap();
    }
    // (Sent at once: each waits out the SDK's retries before giving up.)
    let mut replies: HashMap<String, Value> = HashMap::new();
    while replies.len() < requests.len() {
        let Some(frame) = next_frame(&mut ws, Duration::from_secs(60)).await else {
            panic!("the socket closed or went quiet; replies so far: {replies:?}");
        };
        let route = frame["route"].as_str().unwrap_or_default().to_owned();
        replies.insert(route, frame);
    }
    for (route, _) in &requests {
        let reply = &replies[*route];
        assert_eq!(reply["type"], "error", "{route}: {reply}");
        assert_eq!(reply["code"], "unavailable", "{route}: {reply}");
        // The heartbeat's answer comes from API Gateway's integration response, which
        // sees DynamoDB's answer, not the frame: it cannot name the request
        // (local/src/integration/mod.rs, the heartbeat route as deployed).
        let request_id = if *route == "heartbeat" {
            Value::Null
        } else {
            json!(format!("req-{route}"))
        };
        assert_eq!(reply["requestId"], request_id, "{route}: {reply}");
        assert!(
            reply["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{route}: {reply}"
        );
    }

    // And the socket is still open: a frame the gateway itself answers still gets its
    // answer.
    ws.send(Message::text("not json")).await.unwrap();
    let answer = next_frame(&mut ws, Duration::from_secs(10)).await;
    assert_eq!(
        answer.as_ref().map(|a| a["code"].clone()),
        Some(json!("bad_request")),
        "{answer:?}"
    );

    // And the log line of each names the route and the underlying cause.
    let log = stop(started);
    for (route, _) in &requests {
        let line = log
            .lines()
            .find(|l| l.contains("WARN") && l.contains(&format!("route=\"{route}\"")))
            .unwrap_or_else(|| panic!("no warning for {route} in the log:\n{log}"));
        assert!(
            line.contains("Connection refused")
                || line.contains("connection reset")
                || line.contains("connection closed"),
            "{route}: the log names no cause: {line}"
        );
    }
}
