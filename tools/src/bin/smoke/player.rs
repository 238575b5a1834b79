//! One player through the Rust client (clients/rust), as a game would use it: it connects
//! with a credential and `resume`s (from a cursor when coming back), sends typed requests,
//! and hands on each push once. Pushes that arrive while waiting for another one are kept
//! for later waits, so none is lost to ordering.

use std::collections::VecDeque;
use std::time::Duration;

use gamelift_sockets_client::protocol::ServerFrame;
use gamelift_sockets_client::{Auth, Client, ClientError, Config, Event, Events, StopReason};
use serde_json::{Map, Value};
use tokio::time::Instant;
use tokio_tungstenite::Connector;

use crate::client::{Carrier, Credential, RawSocket, refused_upgrade};

/// A pushed frame and its `seq`.
pub type Push = (Option<u64>, ServerFrame);

pub struct Player {
    pub client: Client,
    events: Events,
    /// Pushes read while waiting for another one.
    kept: VecDeque<Push>,
    /// Who, for messages: `a`, `b`, `b (back)`.
    pub name: String,
    /// The `resume` ack's fields.
    pub resume_ack: Map<String, Value>,
}

/// The client's credential: its header forms are what a Rust game may use, the query
/// forms what a browser must.
fn auth(credential: &Credential, carrier: Carrier) -> Auth {
    let token = |token: &String| {
        let token = token.clone();
        move || std::future::ready(Ok(token.clone()))
    };
    match (credential, carrier) {
        (Credential::PlayerId(id), Carrier::Header) => Auth::player_id_header(id.clone()),
        (Credential::PlayerId(id), Carrier::Query) => Auth::player_id(id.clone()),
        (Credential::Token(t), Carrier::Header) => Auth::bearer_token(token(t)),
        (Credential::Token(t), Carrier::Query) => Auth::token(token(t)),
    }
}

/// Where to connect and for how long to wait.
pub struct Target<'a> {
    pub url: &'a str,
    pub tls: Option<Connector>,
    pub timeout: Duration,
}

impl Player {
    /// Connects (resuming after `cursor` when given) and checks that the stack took the
    /// credential for `expected`. No reconnects: a smoke test reports a failed connect
    /// or a drop instead of riding it out.
    pub async fn connect(
        name: &str,
        target: &Target<'_>,
        (credential, expected): &(Credential, String),
        carrier: Carrier,
        cursor: Option<u64>,
    ) -> Result<Self, String> {
        let mut config = Config::new(target.url, auth(credential, carrier));
        config.request_timeout = target.timeout;
        config.max_attempts = Some(0);
        let connecting = async {
            match cursor {
                Some(cursor) => Client::connect_after(config, cursor).await,
                None => Client::connect(config).await,
            }
        };
        let (client, mut events) = match tokio::time::timeout(target.timeout, connecting).await {
            Err(_) => {
                return Err(format!(
                    "{name}: no resume ack within {:?} of connecting",
                    target.timeout
                ));
            }
            Ok(Err(ClientError::Closed(StopReason::Unauthorized(status)))) => {
                return Err(refused_upgrade(status, credential));
            }
            Ok(Err(ClientError::Closed(StopReason::GaveUp))) => {
                return Err(why_not_connected(target, credential, carrier).await);
            }
            Ok(Err(error)) => return Err(format!("{name}: could not connect: {error}")),
            Ok(Ok(connected)) => connected,
        };
        // Everything up to the `resume` ack is already queued when `connect` returns.
        let (mut kept, mut resume_ack) = (VecDeque::new(), None);
        while let Some(event) = events.try_next() {
            match event {
                Event::Push { seq, frame } => kept.push_back((seq, frame)),
                Event::Resumed(ack) => {
                    resume_ack = Some(ack);
                    break;
                }
                _ => {}
            }
        }
        let resume_ack = resume_ack.ok_or(format!("{name}: connected without a resume ack"))?;
        if resume_ack.get("playerId").and_then(Value::as_str) != Some(expected.as_str()) {
            return Err(format!(
                "{name}: the stack says this is player {}, not {expected}",
                resume_ack.get("playerId").unwrap_or(&Value::Null)
            ));
        }
        Ok(Self {
            client,
            events,
            kept,
            name: name.to_owned(),
            resume_ack,
        })
    }

    /// The first push (kept or new) for which `wanted` is true, within `timeout`.
    pub async fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        wanted: impl Fn(&ServerFrame) -> bool,
    ) -> Result<Push, String> {
        if let Some(index) = self.kept.iter().position(|(_, frame)| wanted(frame))
            && let Some(push) = self.kept.remove(index)
        {
            return Ok(push);
        }
        let deadline = Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.events.next()).await {
                Err(_) => return Err(format!("{}: no {what} in time", self.name)),
                Ok(None) => {
                    return Err(format!(
                        "{}: the client ended, waiting for {what}",
                        self.name
                    ));
                }
                Ok(Some(Event::Closed(reason))) => {
                    return Err(format!(
                        "{}: the client stopped ({reason:?}), waiting for {what}",
                        self.name
                    ));
                }
                Ok(Some(Event::Push { seq, frame })) if wanted(&frame) => return Ok((seq, frame)),
                Ok(Some(Event::Push { seq, frame })) => self.kept.push_back((seq, frame)),
                Ok(Some(_)) => {}
            }
        }
    }

    /// True if a push already read (and not yet waited for) satisfies `wanted`: right
    /// after `connect`, one replayed before the `resume` ack.
    pub fn has_kept(&self, wanted: impl Fn(&ServerFrame) -> bool) -> bool {
        self.kept.iter().any(|(_, frame)| wanted(frame))
    }

    /// Why the client stopped, within `timeout` (e.g. `SessionReplaced` after a takeover).
    pub async fn stopped(&mut self, timeout: Duration) -> Result<StopReason, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.events.next()).await {
                Err(_) => return Err(format!("{}: still running after {timeout:?}", self.name)),
                Ok(None) => {
                    return Err(format!("{}: the client ended without a reason", self.name));
                }
                Ok(Some(Event::Closed(reason))) => return Ok(reason),
                Ok(Some(_)) => {}
            }
        }
    }

    /// Leaves as a game does: the client closes its socket (1000) and stops.
    pub async fn close(mut self) {
        self.client.close();
        let _ = self.stopped(Duration::from_secs(5)).await;
    }
}

/// The client says only that it gave up; a raw attempt says why (DNS, TLS, refused...).
async fn why_not_connected(
    target: &Target<'_>,
    credential: &Credential,
    carrier: Carrier,
) -> String {
    let raw = RawSocket::connect(
        "probe",
        target.url,
        credential,
        carrier,
        target.tls.clone(),
        target.timeout,
    )
    .await;
    match raw {
        Err(why) => why,
        Ok(socket) => {
            socket.close().await;
            "could not connect (the client gave up; a second attempt connected)".to_owned()
        }
    }
}
