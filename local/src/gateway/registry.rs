//! The open connections, by id: what the `@connections` API and the in-process
//! [`LocalConnectionGateway`] reach. A connection is here only between its upgrade
//! (after `$connect` succeeded) and its close, as in API Gateway: a post before its
//! `$connect` returned answers 410, as API Gateway's does.
//!
//! A post succeeds only once its frame is written to the socket: a frame queued while the
//! connection was closing (its client's close frame read, say) is never silently
//! dropped; the post fails with 410 instead.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use shared::domain::ConnectionId;
use shared::frames::MAX_WEBSOCKET_MESSAGE_BYTES;
use shared::ports::{ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError};
use tokio::sync::{mpsc, oneshot};

/// What a connection's task is told to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outbound {
    Text(String),
    Binary(Vec<u8>),
    /// Close with this code and reason, then fire `$disconnect`.
    Close {
        code: u16,
        reason: String,
    },
    /// Drop the socket without a close frame (the client sees 1006), then fire
    /// `$disconnect`: the console's force-drop, to test reconnects.
    Abort,
}

/// What GetConnection reports about a connection.
#[derive(Debug)]
pub struct ConnectionMeta {
    pub connected_at: i64,
    pub source_ip: String,
    pub user_agent: Option<String>,
    /// The authorizer's `playerId` (what the console shows the connection as).
    pub player_id: Option<String>,
    last_active_at: AtomicI64,
}

impl ConnectionMeta {
    pub fn new(connected_at: i64, source_ip: String, user_agent: Option<String>) -> Self {
        Self {
            connected_at,
            source_ip,
            user_agent,
            player_id: None,
            last_active_at: AtomicI64::new(connected_at),
        }
    }

    pub fn with_player_id(mut self, player_id: Option<String>) -> Self {
        self.player_id = player_id;
        self
    }

    pub fn last_active_at(&self) -> i64 {
        self.last_active_at.load(Ordering::Relaxed)
    }

    pub fn touch(&self, now: i64) {
        self.last_active_at.store(now, Ordering::Relaxed);
    }
}

/// A frame for the connection's task to write, and who to tell once it is written.
#[derive(Debug)]
pub struct Queued {
    pub frame: Outbound,
    /// Told when the frame is on the socket; dropped unwritten if the connection ends
    /// first.
    pub written: Option<oneshot::Sender<()>>,
}

impl Queued {
    /// A frame no one waits on (a route's reply, a close).
    pub fn unwatched(frame: Outbound) -> Self {
        Self {
            frame,
            written: None,
        }
    }
}

#[derive(Clone)]
struct Entry {
    tx: mpsc::UnboundedSender<Queued>,
    meta: Arc<ConnectionMeta>,
}

/// The registry of open connections.
#[derive(Default)]
pub struct ConnectionRegistry {
    entries: Mutex<HashMap<String, Entry>>,
}

impl ConnectionRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding this lock cannot leave the map inconsistent (every
        // operation is a single insert/remove/get), so a poisoned lock is still usable.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn register(
        &self,
        id: &str,
        tx: mpsc::UnboundedSender<Queued>,
        meta: Arc<ConnectionMeta>,
    ) {
        self.lock().insert(id.to_owned(), Entry { tx, meta });
    }

    /// Removes a connection; true if it was still registered.
    pub(crate) fn unregister(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Ids of the open connections, sorted.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().keys().cloned().collect();
        ids.sort_unstable();
        ids
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// PostToConnection: a text frame if `data` is UTF-8, else a binary one. Resolves
    /// once the frame is written to the socket; 410 if the connection is not open, or
    /// ends before the frame could be written.
    pub async fn post(&self, id: &str, data: &[u8]) -> Result<(), GatewayError> {
        if data.len() > MAX_WEBSOCKET_MESSAGE_BYTES {
            return Err(GatewayError::PayloadTooLarge);
        }
        let tx = self
            .lock()
            .get(id)
            .map(|e| e.tx.clone())
            .ok_or(GatewayError::Gone)?;
        let frame = match std::str::from_utf8(data) {
            Ok(text) => Outbound::Text(text.to_owned()),
            Err(_) => Outbound::Binary(data.to_vec()),
        };
        let (written, done) = oneshot::channel();
        tx.send(Queued {
            frame,
            written: Some(written),
        })
        .map_err(|_| GatewayError::Gone)?;
        done.await.map_err(|_| GatewayError::Gone)
    }

    /// DeleteConnection: unregisters at once (later posts get 410) and closes the socket.
    pub fn delete(&self, id: &str) -> Result<(), GatewayError> {
        let entry = self.lock().remove(id).ok_or(GatewayError::Gone)?;
        // If the task already ended, the connection is closing anyway: still a success.
        let _ = entry.tx.send(Queued::unwatched(Outbound::Close {
            code: 1000,
            reason: String::new(),
        }));
        Ok(())
    }

    /// Every open connection with what is known of it, by id.
    pub fn list(&self) -> Vec<(String, Arc<ConnectionMeta>)> {
        let mut all: Vec<(String, Arc<ConnectionMeta>)> = self
            .lock()
            .iter()
            .map(|(id, entry)| (id.clone(), entry.meta.clone()))
            .collect();
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Ends a connection abruptly: no close frame (its client sees 1006), then its
    /// `$disconnect` as after a lost network. 410 if it is not open.
    pub fn abort(&self, id: &str) -> Result<(), GatewayError> {
        let tx = self
            .lock()
            .get(id)
            .map(|e| e.tx.clone())
            .ok_or(GatewayError::Gone)?;
        tx.send(Queued::unwatched(Outbound::Abort))
            .map_err(|_| GatewayError::Gone)
    }

    /// GetConnection.
    pub fn get(&self, id: &str) -> Result<Arc<ConnectionMeta>, GatewayError> {
        self.lock()
            .get(id)
            .map(|e| e.meta.clone())
            .ok_or(GatewayError::Gone)
    }
}

/// The `ConnectionGateway` port straight onto the registry: what the handlers use in
/// the local stack (no HTTP round trip to itself). The endpoint argument is ignored:
/// there is one API.
#[derive(Clone)]
pub struct LocalConnectionGateway {
    registry: Arc<ConnectionRegistry>,
}

impl LocalConnectionGateway {
    pub fn new(registry: Arc<ConnectionRegistry>) -> Self {
        Self { registry }
    }
}

#[async_trait]
impl ConnectionGateway for LocalConnectionGateway {
    async fn post(
        &self,
        _endpoint: &str,
        connection: &ConnectionId,
        data: &[u8],
    ) -> Result<(), GatewayError> {
        self.registry.post(connection.as_str(), data).await
    }

    async fn delete(&self, _endpoint: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        self.registry.delete(connection.as_str())
    }
}

#[async_trait]
impl ConnectionProbe for LocalConnectionGateway {
    async fn get(
        &self,
        _endpoint: &str,
        connection: &ConnectionId,
    ) -> Result<ConnectionInfo, GatewayError> {
        let meta = self.registry.get(connection.as_str())?;
        Ok(ConnectionInfo {
            connected_at_millis: Some(meta.connected_at),
            last_active_at_millis: Some(meta.last_active_at()),
            source_ip: Some(meta.source_ip.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(raw: &str) -> ConnectionId {
        ConnectionId::parse(raw).unwrap()
    }

    #[tokio::test]
    async fn the_local_gateway_reaches_registered_connections_only() {
        let registry = Arc::new(ConnectionRegistry::new());
        let gateway = LocalConnectionGateway::new(registry.clone());
        let (tx, mut rx) = mpsc::unbounded_channel();
        registry.register(
            "abc=",
            tx,
            Arc::new(ConnectionMeta::new(5, "127.0.0.1".into(), None)),
        );

        // The connection's task: writes each frame (here: records it) and says so.
        let (written_tx, mut written) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            while let Some(queued) = rx.recv().await {
                let close = matches!(queued.frame, Outbound::Close { .. });
                let _ = written_tx.send(queued.frame);
                if let Some(done) = queued.written {
                    let _ = done.send(());
                }
                if close {
                    break;
                }
            }
        });
        gateway.post("ignored", &id("abc="), b"hi").await.unwrap();
        gateway
            .post("ignored", &id("abc="), &[0xff, 0])
            .await
            .unwrap();
        assert_eq!(written.recv().await, Some(Outbound::Text("hi".into())));
        assert_eq!(written.recv().await, Some(Outbound::Binary(vec![0xff, 0])));

        let info = gateway.get("ignored", &id("abc=")).await.unwrap();
        assert_eq!(info.connected_at_millis, Some(5));
        assert_eq!(info.source_ip.as_deref(), Some("127.0.0.1"));

        let big = vec![b'a'; MAX_WEBSOCKET_MESSAGE_BYTES + 1];
        assert!(matches!(
            gateway.post("", &id("abc="), &big).await,
            Err(GatewayError::PayloadTooLarge)
        ));

        gateway.delete("", &id("abc=")).await.unwrap();
        assert!(matches!(
            written.recv().await,
            Some(Outbound::Close { code: 1000, .. })
        ));
        task.await.unwrap();
        assert!(matches!(
            gateway.post("", &id("abc="), b"x").await,
            Err(GatewayError::Gone)
        ));
        assert!(matches!(
            gateway.get("", &id("abc=")).await,
            Err(GatewayError::Gone)
        ));
        assert!(matches!(
            gateway.delete("", &id("abc=")).await,
            Err(GatewayError::Gone)
        ));
    }

    #[tokio::test]
    async fn a_post_whose_frame_is_never_written_fails_with_gone_instead_of_vanishing() {
        // Given a connection whose task stops before writing what is queued (it read the
        // client's close frame)
        let registry = Arc::new(ConnectionRegistry::new());
        let (tx, rx) = mpsc::unbounded_channel();
        registry.register(
            "closing=",
            tx,
            Arc::new(ConnectionMeta::new(5, "127.0.0.1".into(), None)),
        );
        let post = {
            let registry = registry.clone();
            tokio::spawn(async move { registry.post("closing=", b"late").await })
        };
        tokio::task::yield_now().await;

        // When the task ends with the frame still queued
        drop(rx);

        // Then the post reports 410, so the caller knows it was not delivered
        assert!(matches!(post.await.unwrap(), Err(GatewayError::Gone)));
    }
}
