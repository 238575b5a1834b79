//! One game server socket: its frames answered in order, the simulator's pushes for its
//! process written between them. The process is its `pID`: on open the socket takes
//! over the pushes of a live process with that pID (a reconnect sends no new
//! ActivateServerProcess); on close the process keeps its games for the reconnect
//! window.

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use gamelift_server_protocol::{ConnectQuery, Push};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::GameServers;
use super::actions::{self, Answer};
use crate::console::feed::{Entry, FeedKind};
use crate::gamelift::Socket;

/// Serves the socket (`over_tls`: accepted on the wss:// port) until it closes or the
/// stack stops.
pub(super) async fn serve<S>(
    ws: WebSocketStream<S>,
    query: ConnectQuery,
    servers: Arc<GameServers>,
    shutdown: watch::Receiver<bool>,
    over_tls: bool,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let process_id = query.process_id.clone();
    servers.opened_socket(&process_id, over_tls);
    let (outbox, mut pushes) = mpsc::unbounded_channel::<Push>();
    let socket = Socket {
        id: servers.next_socket_id(),
        outbox,
    };
    let reconnected = servers.simulator.attach_socket(&process_id, socket.clone());
    tracing::info!(
        process_id,
        reconnected,
        sdk = query.sdk_language.as_deref().unwrap_or("?"),
        "game server connected to the server SDK endpoint"
    );
    record(
        &servers,
        &process_id,
        format!(
            "game server {process_id} connected ({})",
            if reconnected {
                "reconnected: it keeps its games"
            } else {
                "waiting for ActivateServerProcess"
            }
        ),
        None,
    );
    let (mut sink, mut stream) = ws.split();
    loop {
        tokio::select! {
            Some(push) = pushes.recv() => {
                let text = push.to_text();
                record(&servers, &process_id, format!("→ game server {process_id}: {}", push.action()), Some(text.clone()));
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let Answer { text: reply, summary, refused } =
                        actions::answer(&servers, &query, &socket, text.as_str());
                    if refused {
                        tracing::warn!(process_id, frame = %text, answer = %reply, "server SDK call refused");
                    }
                    record(&servers, &process_id, summary, Some(format!("← {text}\n→ {reply}")));
                    if sink.send(Message::text(reply)).await.is_err() {
                        break;
                    }
                }
                // Pings are answered by the library; binary frames are ignored (as the
                // SDKs ignore them).
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            () = crate::gateway::shutting_down(shutdown.clone()) => {
                let _ = sink.close().await;
                break;
            }
        }
    }
    servers.simulator.detach_socket(&process_id, socket.id);
    record(
        &servers,
        &process_id,
        format!("game server {process_id} disconnected"),
        None,
    );
}

/// A `gameServer` event in the console's feed.
fn record(servers: &GameServers, process_id: &str, summary: String, detail: Option<String>) {
    servers.hub.record(
        FeedKind::GameServer,
        crate::time::now_millis(),
        Entry {
            player_ids: Vec::new(),
            connection_id: Some(process_id.to_owned()),
            summary,
            detail,
        },
    );
}
