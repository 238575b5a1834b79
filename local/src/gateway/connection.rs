//! One open connection: a task that owns the socket (frames in, frames out, timers)
//! and a worker that hands the client's messages to the route handlers one at a time,
//! in order. Replies and `@connections` posts share one outbound queue, so a post made
//! while handling a message reaches the client before that message's reply.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aws_lambda_events::encodings::Body;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures_util::SinkExt;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, timeout};

use super::events::{self, ConnectionFacts, Invocation};
use super::registry::{ConnectionMeta, Outbound, Queued};
use super::{FrameDirection, Gateway, TrackerGuard, gateway_error_frame, shutting_down};
use crate::ids;
use crate::integration::IntegrationRequest;
use crate::invoke::{InvokeError, invoke};
use crate::routes::{DISCONNECT, Selected};

/// How long to wait for the client's side of a closing handshake.
const CLOSE_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(1);
/// The same while the whole stack shuts down (every socket at once).
const SHUTDOWN_HANDSHAKE_TIMEOUT: Duration = Duration::from_millis(250);

/// At most this many queued frames go out in one write.
const MAX_FRAMES_PER_WRITE: usize = 64;

pub const GOING_AWAY: (u16, &str) = (1001, "Going away");
pub const MESSAGE_TOO_BIG: (u16, &str) = (1009, "Message too big");

/// A data frame from the client, as the socket read it (not copied on the way).
enum Inbound {
    Text(Utf8Bytes),
    Binary(Bytes),
}

/// How a connection ended: the `disconnectStatusCode` and `disconnectReason`.
struct Ending {
    code: u16,
    reason: String,
    /// We sent a close frame (or received one): finish the handshake (within this)
    /// before dropping the socket.
    handshake: Option<Duration>,
}

impl Ending {
    fn abnormal() -> Self {
        Self {
            code: 1006,
            reason: "Connection closed abnormally".to_owned(),
            handshake: None,
        }
    }
}

/// Runs an upgraded connection until it closes, then fires `$disconnect`.
pub(super) async fn run(
    mut socket: WebSocket,
    facts: ConnectionFacts,
    gateway: Arc<Gateway>,
    guard: TrackerGuard,
) {
    let facts = Arc::new(facts);
    let id = facts.connection_id.clone();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel();
    let player_id = facts
        .authorizer
        .get("playerId")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let meta = Arc::new(
        ConnectionMeta::new(
            facts.connected_at,
            facts.source_ip.clone(),
            facts.user_agent.clone(),
        )
        .with_player_id(player_id.clone()),
    );
    gateway.registry.register(&id, out_tx.clone(), meta.clone());
    tracing::info!(connection_id = %id, player_id = ?player_id, "connected");
    let tap = &gateway.tap;
    let now = || gateway.clock.now_millis();
    tap.connected(now(), player_id.as_deref(), &id);

    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let closed = Arc::new(AtomicBool::new(false));
    let worker = tokio::spawn(work(
        in_rx,
        facts.clone(),
        gateway.clone(),
        out_tx,
        closed.clone(),
    ));

    let idle = sleep(gateway.idle_timeout);
    tokio::pin!(idle);
    let max = sleep(gateway.max_connection_duration);
    tokio::pin!(max);
    // Made once: a new one per pass of the loop registered and dropped a waiter on the
    // shutdown signal for every frame in or out.
    let shutdown = shutting_down(gateway.shutdown.clone());
    tokio::pin!(shutdown);

    let ending = loop {
        tokio::select! {
            biased;
            () = &mut shutdown => {
                let mut ending = close(&mut socket, GOING_AWAY.0, GOING_AWAY.1).await;
                ending.handshake = ending.handshake.map(|_| SHUTDOWN_HANDSHAKE_TIMEOUT);
                break ending;
            }
            Some(first) = out_rx.recv() => {
                // The frames queued by now go out in one write: a write per frame was
                // the largest share of the local stack's CPU under load.
                let mut batch = vec![first];
                while batch.len() < MAX_FRAMES_PER_WRITE {
                    match out_rx.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(_) => break,
                    }
                }
                let mut written = Vec::with_capacity(batch.len());
                let (mut then, mut broken) = (None, false);
                for Queued { frame, written: told } in batch {
                    let message = match frame {
                        Outbound::Text(text) => {
                            tap.frame(FrameDirection::Out, &now, player_id.as_deref(), &id, &text);
                            Message::Text(text.into())
                        }
                        Outbound::Binary(bytes) => Message::Binary(bytes.into()),
                        // Frames after a close or a force-drop are never written (their
                        // posts fail with 410), as when they were queued after it.
                        ending => {
                            then = Some(ending);
                            break;
                        }
                    };
                    if socket.feed(message).await.is_err() {
                        broken = true;
                        break;
                    }
                    written.extend(told);
                }
                if broken || socket.flush().await.is_err() {
                    // `written` is dropped: the posts waiting on it fail with 410.
                    break Ending::abnormal();
                }
                if gateway.last_active_counts_sent_frames {
                    meta.touch(gateway.clock.now_millis());
                }
                for written in written {
                    let _ = written.send(());
                }
                match then {
                    Some(Outbound::Close { code, reason }) => break close(&mut socket, code, &reason).await,
                    // The console's force-drop: no close frame, the TCP connection just ends.
                    Some(_) => break Ending::abnormal(),
                    None => {}
                }
            }
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => {
                    tap.frame(FrameDirection::In, &now, player_id.as_deref(), &id, text.as_str());
                    meta.touch(gateway.clock.now_millis());
                    idle.as_mut().reset(Instant::now() + gateway.idle_timeout);
                    let _ = in_tx.send(Inbound::Text(text));
                }
                Some(Ok(Message::Binary(bytes))) => {
                    meta.touch(gateway.clock.now_millis());
                    idle.as_mut().reset(Instant::now() + gateway.idle_timeout);
                    let _ = in_tx.send(Inbound::Binary(bytes));
                }
                // Answered by the WebSocket layer; not activity (as in API Gateway).
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(frame))) => {
                    break match frame {
                        Some(CloseFrame { code, reason }) => Ending {
                            code,
                            reason: reason.as_str().to_owned(),
                            handshake: Some(CLOSE_HANDSHAKE_TIMEOUT),
                        },
                        None => Ending {
                            code: 1005,
                            reason: "Client-side close frame status not set".to_owned(),
                            handshake: Some(CLOSE_HANDSHAKE_TIMEOUT),
                        },
                    };
                }
                Some(Err(error)) if too_big(&error) => {
                    tracing::info!(connection_id = %id, %error, "frame or message over the limit");
                    break close(&mut socket, MESSAGE_TOO_BIG.0, MESSAGE_TOO_BIG.1).await;
                }
                Some(Err(error)) => {
                    tracing::debug!(connection_id = %id, %error, "connection error");
                    break Ending::abnormal();
                }
                None => break Ending::abnormal(),
            },
            () = &mut idle => {
                tracing::info!(connection_id = %id, "idle timeout");
                break close(&mut socket, GOING_AWAY.0, GOING_AWAY.1).await;
            }
            () = &mut max => {
                tracing::info!(connection_id = %id, "maximum connection duration reached");
                break close(&mut socket, GOING_AWAY.0, GOING_AWAY.1).await;
            }
        }
    };

    // Gone for the @connections API from here on; posts still queued fail with 410
    // (their frames were never written).
    gateway.registry.unregister(&id);
    drop(out_rx);
    closed.store(true, Ordering::SeqCst);
    if let Some(wait) = ending.handshake {
        // Flushes our reply to the client's close frame, or waits for the client's reply
        // to ours; anything else the client sends now is discarded.
        let _ = timeout(wait, async {
            while let Some(Ok(_)) = socket.recv().await {}
        })
        .await;
    }
    drop(socket);
    drop(in_tx);
    // The message being handled (if any) finishes; queued ones are dropped.
    let _ = worker.await;
    tracing::info!(connection_id = %id, code = ending.code, reason = %ending.reason, "disconnected");
    tap.disconnected(
        now(),
        player_id.as_deref(),
        &id,
        ending.code,
        &ending.reason,
    );
    // Boxed: inline, this once-per-connection call (an event and an invocation) made
    // every connection's task 8 KB for its whole life instead of 2 KB.
    Box::pin(fire_disconnect(
        &gateway,
        &facts,
        ending.code,
        &ending.reason,
    ))
    .await;
    drop(guard);
}

/// Sends a close frame; the connection then ends with that code and reason.
async fn close(socket: &mut WebSocket, code: u16, reason: &str) -> Ending {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let sent = socket.send(Message::Close(Some(frame))).await.is_ok();
    Ending {
        code,
        reason: reason.to_owned(),
        handshake: sent.then_some(CLOSE_HANDSHAKE_TIMEOUT),
    }
}

/// A frame over `max_frame_size` or a message over `max_message_size`.
fn too_big(error: &axum::Error) -> bool {
    use std::error::Error as _;
    let mut source: Option<&(dyn std::error::Error + 'static)> = error.source();
    while let Some(err) = source {
        if let Some(tungstenite::Error::Capacity(_)) = err.downcast_ref::<tungstenite::Error>() {
            return true;
        }
        source = err.source();
    }
    false
}

/// Hands messages to the route handlers, one at a time.
async fn work(
    mut inbound: mpsc::UnboundedReceiver<Inbound>,
    facts: Arc<ConnectionFacts>,
    gateway: Arc<Gateway>,
    outbound: mpsc::UnboundedSender<Queued>,
    closed: Arc<AtomicBool>,
) {
    while let Some(message) = inbound.recv().await {
        if closed.load(Ordering::SeqCst) {
            break;
        }
        // Boxed for the time it runs: inline, an invocation's state (its event and
        // context, 2.4 KB) stayed allocated in every idle connection's worker.
        if let Some(reply) = Box::pin(handle(&gateway, &facts, message)).await {
            // The connection may have closed meanwhile: the reply is then dropped.
            let _ = outbound.send(Queued::unwatched(reply));
        }
    }
}

/// Routes one message and invokes its handler; returns what to send back.
async fn handle(gateway: &Gateway, facts: &ConnectionFacts, message: Inbound) -> Option<Outbound> {
    let call = Invocation {
        request_id: ids::new_id(),
        at: gateway.clock.now_millis(),
    };
    let (text, body, is_base64) = match &message {
        Inbound::Text(text) => (Some(text.as_str()), text.as_str().to_owned(), false),
        Inbound::Binary(bytes) => (None, STANDARD.encode(bytes), true),
    };
    let error = |message: &str| {
        Some(Outbound::Text(gateway_error_frame(
            message,
            &facts.connection_id,
            &call.request_id,
        )))
    };
    let route = match gateway.routes.select(text) {
        Some(Selected::Function(route)) => route,
        // A route API Gateway serves itself (the heartbeat's DynamoDB integration): no
        // function, the integration's response (if any) is the reply.
        Some(Selected::Integration(key, integration)) => {
            let request = IntegrationRequest {
                connection_id: facts.connection_id.clone(),
                route_key: key.to_owned(),
                stage: facts.stage.clone(),
                domain_name: facts.domain_name.clone(),
                api_id: events::API_ID.to_owned(),
                request_id: call.request_id.clone(),
                message_id: ids::new_id(),
                request_time_epoch: call.at,
                connected_at: facts.connected_at,
                authorizer: facts.authorizer.clone(),
            };
            return integration
                .handle(text.unwrap_or_default(), &request)
                .await
                .map(Outbound::Text);
        }
        // No matching route and no `$default`.
        None => return error("Forbidden"),
    };
    let message_id = ids::new_id();
    let event = match events::message_event(facts, &route.key, &message_id, &call, body, is_base64)
    {
        Ok(event) => event,
        Err(error_) => {
            tracing::error!(error = %shared::telemetry::ErrorChain(&error_), "cannot build the message event");
            return error("Internal server error");
        }
    };
    match invoke(
        route.handler.clone(),
        &route.function,
        &call.request_id,
        event,
    )
    .await
    {
        Ok(response) => match response.body {
            Some(Body::Text(text)) if !text.is_empty() => Some(Outbound::Text(text)),
            Some(Body::Binary(bytes)) if !bytes.is_empty() => Some(Outbound::Binary(bytes)),
            _ => None,
        },
        Err(InvokeError::TimedOut(_)) => error("Endpoint request timed out"),
        Err(_) => error("Internal server error"),
    }
}

/// Invokes `$disconnect` (if the API has one) for a connection that has closed.
pub(super) async fn fire_disconnect(
    gateway: &Gateway,
    facts: &ConnectionFacts,
    code: u16,
    reason: &str,
) {
    let Some(route) = gateway.routes.get(DISCONNECT) else {
        return;
    };
    let call = Invocation {
        request_id: ids::new_id(),
        at: gateway.clock.now_millis(),
    };
    match events::disconnect_event(facts, &call, code, reason) {
        // The response of $disconnect is ignored, as in API Gateway; failures are logged
        // by `invoke`.
        Ok(event) => {
            let _ = invoke(
                route.handler.clone(),
                &route.function,
                &call.request_id,
                event,
            )
            .await;
        }
        Err(error) => tracing::error!(%error, "cannot build the $disconnect event"),
    }
}
