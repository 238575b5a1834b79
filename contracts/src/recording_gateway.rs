//! A `ConnectionGateway` that records calls and answers as told, for handler tests.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use async_trait::async_trait;

use shared::domain::ConnectionId;
use shared::ports::{ConnectionGateway, ConnectionInfo, ConnectionProbe, GatewayError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatewayCall {
    Post {
        endpoint: String,
        connection: String,
        data: String,
    },
    Delete {
        endpoint: String,
        connection: String,
    },
    Get {
        endpoint: String,
        connection: String,
    },
}

/// Makes the error a failing connection answers with (errors are not `Clone`).
type MakeError = Box<dyn Fn() -> GatewayError + Send + Sync>;

#[derive(Default)]
pub struct RecordingGateway {
    calls: Mutex<Vec<GatewayCall>>,
    gone: Mutex<HashSet<String>>,
    throttled: Mutex<HashSet<String>>,
    failing: Mutex<HashMap<String, MakeError>>,
    /// Connections whose DeleteConnection answers 429 (posts still go through).
    throttled_deletes: Mutex<HashSet<String>>,
    /// What GetConnection reports as `lastActiveAt`, per connection (none: unknown).
    last_active: Mutex<HashMap<String, i64>>,
}

impl RecordingGateway {
    pub fn new() -> Self {
        Self::default()
    }

    /// GetConnection of `connection` reports it active at `at` (epoch millis), as API
    /// Gateway does after a frame from the client (a `ping`).
    pub fn set_last_active(&self, connection: &str, at: i64) {
        self.last_active
            .lock()
            .unwrap()
            .insert(connection.to_owned(), at);
    }

    /// Calls for `connection` answer 410 Gone from now on.
    pub fn mark_gone(&self, connection: &str) {
        self.gone.lock().unwrap().insert(connection.to_owned());
    }

    /// Calls for `connection` answer 429 until [`Self::recover`].
    pub fn throttle(&self, connection: &str) {
        self.throttled.lock().unwrap().insert(connection.to_owned());
    }

    /// Calls for `connection` answer `make()` (any other failure: 5xx, timeout, 403…)
    /// until [`Self::recover`].
    pub fn fail_with(
        &self,
        connection: &str,
        make: impl Fn() -> GatewayError + Send + Sync + 'static,
    ) {
        self.failing
            .lock()
            .unwrap()
            .insert(connection.to_owned(), Box::new(make));
    }

    /// DeleteConnection of `connection` answers 429 until [`Self::recover`]; posts
    /// to it still succeed.
    pub fn throttle_deletes(&self, connection: &str) {
        self.throttled_deletes
            .lock()
            .unwrap()
            .insert(connection.to_owned());
    }

    /// Ends [`Self::throttle`], [`Self::throttle_deletes`] and [`Self::fail_with`] for
    /// `connection`.
    pub fn recover(&self, connection: &str) {
        self.throttled.lock().unwrap().remove(connection);
        self.throttled_deletes.lock().unwrap().remove(connection);
        self.failing.lock().unwrap().remove(connection);
    }

    /// The payloads posted to `connection`, in order.
    pub fn posted_to(&self, connection: &str) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter_map(|call| match call {
                GatewayCall::Post {
                    connection: c,
                    data,
                    ..
                } if c == connection => Some(data),
                _ => None,
            })
            .collect()
    }

    pub fn calls(&self) -> Vec<GatewayCall> {
        self.calls.lock().unwrap().clone()
    }

    fn record(&self, call: GatewayCall, connection: &ConnectionId) -> Result<(), GatewayError> {
        self.calls.lock().unwrap().push(call);
        if self.gone.lock().unwrap().contains(connection.as_str()) {
            Err(GatewayError::Gone)
        } else if self.throttled.lock().unwrap().contains(connection.as_str()) {
            Err(GatewayError::LimitExceeded)
        } else if let Some(make) = self.failing.lock().unwrap().get(connection.as_str()) {
            Err(make())
        } else {
            Ok(())
        }
    }
}

#[async_trait]
impl ConnectionGateway for RecordingGateway {
    async fn post(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
        data: &[u8],
    ) -> Result<(), GatewayError> {
        let call = GatewayCall::Post {
            endpoint: endpoint.to_owned(),
            connection: connection.to_string(),
            data: String::from_utf8_lossy(data).into_owned(),
        };
        self.record(call, connection)
    }

    async fn delete(&self, endpoint: &str, connection: &ConnectionId) -> Result<(), GatewayError> {
        let call = GatewayCall::Delete {
            endpoint: endpoint.to_owned(),
            connection: connection.to_string(),
        };
        if self
            .throttled_deletes
            .lock()
            .unwrap()
            .contains(connection.as_str())
        {
            self.calls.lock().unwrap().push(call);
            return Err(GatewayError::LimitExceeded);
        }
        self.record(call, connection)
    }
}

#[async_trait]
impl ConnectionProbe for RecordingGateway {
    async fn get(
        &self,
        endpoint: &str,
        connection: &ConnectionId,
    ) -> Result<ConnectionInfo, GatewayError> {
        let call = GatewayCall::Get {
            endpoint: endpoint.to_owned(),
            connection: connection.to_string(),
        };
        self.record(call, connection)?;
        Ok(ConnectionInfo {
            connected_at_millis: None,
            last_active_at_millis: self
                .last_active
                .lock()
                .unwrap()
                .get(connection.as_str())
                .copied(),
            source_ip: None,
        })
    }
}
