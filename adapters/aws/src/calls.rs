//! What an AWS adapter can call, declared next to each port it implements
//! ([`Calls`]), as IAM authorizes it: an action on a resource. A function's wiring
//! records the calls of every port it builds ([`Recorder`]); tests/suites/template_drift/calls_grants.rs
//! compares them with the function's role in template.yaml, both ways.
//!
//! Item actions inside a transaction are authorized one by one (a TransactWriteItems
//! of a Put and an Update needs `dynamodb:PutItem` and `dynamodb:UpdateItem`, a
//! TransactGetItems `dynamodb:GetItem`), so that is how they are declared.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};

/// An `@connections` verb (the execute-api resource names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    Post,
    Get,
    Delete,
}

impl Verb {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Get => "GET",
            Self::Delete => "DELETE",
        }
    }
}

/// What a call is on, by the names the function's configuration gives (a table's name
/// is its `*_TABLE` variable, which names the template's table).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    Table(String),
    Index {
        table: String,
        index: String,
    },
    /// `@connections/{id}` of the WebSocket API, with this verb.
    Connections(Verb),
    GameSessionQueue(String),
    EventBus(String),
    /// A Parameter Store parameter, by name.
    Parameter(String),
    /// Any KMS key, only through SSM decrypting `parameter` (what GetParameter with
    /// decryption needs of the caller).
    KeyViaSsm {
        parameter: String,
    },
    /// An action IAM matches only on `*` (no resource type).
    Any,
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Table(table) => write!(f, "table/{table}"),
            Self::Index { table, index } => write!(f, "table/{table}/index/{index}"),
            Self::Connections(verb) => write!(f, "@connections {}", verb.as_str()),
            Self::GameSessionQueue(queue) => write!(f, "gamesessionqueue/{queue}"),
            Self::EventBus(bus) => write!(f, "event-bus/{bus}"),
            Self::Parameter(name) => write!(f, "parameter {name}"),
            Self::KeyViaSsm { parameter } => write!(f, "key/* via SSM for {parameter}"),
            Self::Any => f.write_str("*"),
        }
    }
}

/// One IAM action on one resource.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AwsCall {
    /// `dynamodb:GetItem`, `execute-api:ManageConnections`, ...
    pub action: String,
    pub resource: Resource,
}

impl fmt::Display for AwsCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} on {}", self.action, self.resource)
    }
}

impl AwsCall {
    pub fn new(action: impl Into<String>, resource: Resource) -> Self {
        Self {
            action: action.into(),
            resource,
        }
    }

    /// `dynamodb:<action>` on `table`, for each action.
    pub fn on_table(table: &str, actions: &[&str]) -> Vec<Self> {
        actions
            .iter()
            .map(|action| Self::new(format!("dynamodb:{action}"), Resource::Table(table.into())))
            .collect()
    }

    /// `dynamodb:<action>` on `table`'s `index`.
    pub fn on_index(table: &str, index: &str, action: &str) -> Self {
        Self::new(
            format!("dynamodb:{action}"),
            Resource::Index {
                table: table.into(),
                index: index.into(),
            },
        )
    }

    /// `execute-api:ManageConnections` with `verb`.
    pub fn connections(verb: Verb) -> Self {
        Self::new("execute-api:ManageConnections", Resource::Connections(verb))
    }
}

/// What an adapter calls when used as the port `P`.
pub trait Calls<P: ?Sized> {
    fn calls(&self) -> Vec<AwsCall>;
}

/// The calls of every port a wiring built.
#[derive(Clone, Debug, Default)]
pub struct Recorder(Arc<Mutex<BTreeSet<AwsCall>>>);

impl Recorder {
    pub fn record(&self, calls: impl IntoIterator<Item = AwsCall>) {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend(calls);
    }

    /// `adapter`, with its calls as the port `P` recorded.
    pub fn port<P: ?Sized, A: Calls<P>>(&self, adapter: Arc<A>) -> Arc<A> {
        self.record(adapter.calls());
        adapter
    }

    /// Every call recorded, each once.
    pub fn calls(&self) -> BTreeSet<AwsCall> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}
