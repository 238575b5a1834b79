//! A player's client for the scenario suites (parties, matchmaking, the player gateway):
//! it keeps, in order, the pushes it reads while waiting for a reply.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};

use crate::stack::{Client, Received, TestStack};

/// How long a reply or an awaited push may take.
pub const WAIT: Duration = Duration::from_secs(10);

/// A connected player and the pushes read but not yet taken.
pub struct Player {
    pub name: &'static str,
    pub client: Client,
    pub pushes: VecDeque<Value>,
}

impl Player {
    /// Connects and resumes; what the resume replayed is kept as pushes.
    pub async fn online(stack: &TestStack, name: &'static str) -> Self {
        Self::back(stack, name, None).await.0
    }

    /// Connects (again) and resumes from `cursor`; the resume's ack. What it replayed is
    /// kept as pushes.
    pub async fn back(stack: &TestStack, name: &'static str, cursor: Option<u64>) -> (Self, Value) {
        let mut client = stack.connect(name).await;
        let ack = client.resume(cursor).await;
        let mut player = Self {
            name,
            client,
            pushes: VecDeque::new(),
        };
        // The replayed frames are queued in the client, ahead of anything live.
        while let Received::Text(text) = player.client.receive(Duration::ZERO).await {
            player
                .pushes
                .push_back(serde_json::from_str(&text).unwrap());
        }
        (player, ack)
    }

    /// Sends a request; its reply (ack or error). Pushes read meanwhile are kept.
    pub async fn ask(&mut self, route: &str, body: Value) -> Value {
        self.client
            .send_json(json!({"route": route, "body": body}))
            .await;
        self.reply(route).await
    }

    /// The reply to `route`, reading (and keeping) pushes until it comes.
    pub async fn reply(&mut self, route: &str) -> Value {
        loop {
            let frame = self.client.next_frame_within(WAIT).await;
            if frame["route"] == route && matches!(frame["type"].as_str(), Some("ack" | "error")) {
                return frame;
            }
            self.pushes.push_back(frame);
        }
    }

    /// Sends a request that must be acked; the ack.
    pub async fn ok(&mut self, route: &str, body: Value) -> Value {
        let reply = self.ask(route, body.clone()).await;
        assert_eq!(
            reply["type"], "ack",
            "{} {route} {body}: {reply}",
            self.name
        );
        reply
    }

    /// The next push.
    pub async fn push(&mut self) -> Value {
        match self.pushes.pop_front() {
            Some(frame) => frame,
            None => self.client.next_frame_within(WAIT).await,
        }
    }

    /// The next push of `kind` whose `status` is `status` (others skipped).
    pub async fn push_of(&mut self, kind: &str, status: &str) -> Value {
        loop {
            let frame = self.push().await;
            if frame["type"] == kind && frame["status"] == status {
                return frame;
            }
        }
    }

    /// The next push, which must be a frame of `kind` pushed through the inbox, with each
    /// of `fields` as given.
    async fn inbox_push(&mut self, kind: &str, fields: [(&str, &str); 2]) -> Value {
        let frame = self.push().await;
        assert_eq!(frame["type"], kind, "{}: {frame}", self.name);
        for (field, value) in fields {
            assert_eq!(frame[field], *value, "{}: {frame}", self.name);
        }
        assert!(frame["seq"].is_u64(), "pushed through the inbox: {frame}");
        frame
    }

    /// The next push, which must be a party frame of `change` about `subject`.
    pub async fn party(&mut self, change: &str, subject: &str) -> Value {
        self.inbox_push("party", [("change", change), ("playerId", subject)])
            .await
    }

    /// The next push, which must be a `friend` frame saying the relation with `about`
    /// became `state`.
    pub async fn friend(&mut self, about: &str, state: &str) -> Value {
        self.inbox_push("friend", [("playerId", about), ("state", state)])
            .await
    }

    /// Starts matchmaking; the ticket id of the QUEUED ack.
    pub async fn start(&mut self, body: Value) -> String {
        let ack = self.ok("startMatchmaking", body).await;
        assert_eq!(ack["status"], "QUEUED", "{ack}");
        ack["ticketId"].as_str().unwrap().to_owned()
    }

    /// The next `matchmaking` push (other pushes skipped), which must be `status`.
    pub async fn status(&mut self, ticket: &str, status: &str) -> Value {
        let frame = self.next_matchmaking(WAIT).await.unwrap_or_else(|| {
            panic!(
                "{}: no matchmaking frame ({status}) within {WAIT:?}",
                self.name
            )
        });
        assert_eq!(frame["ticketId"], ticket, "{}: {frame}", self.name);
        assert_eq!(frame["status"], status, "{}: {frame}", self.name);
        assert!(frame["seq"].is_u64(), "pushed through the inbox: {frame}");
        frame
    }

    /// The next `matchmaking` push within `wait` (other pushes skipped), if any.
    pub async fn next_matchmaking(&mut self, wait: Duration) -> Option<Value> {
        while let Some(frame) = self.pushes.pop_front() {
            if frame["type"] == "matchmaking" {
                return Some(frame);
            }
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.client.receive(left).await {
                Received::Text(text) => {
                    let frame: Value = serde_json::from_str(&text).unwrap();
                    if frame["type"] == "matchmaking" {
                        return Some(frame);
                    }
                }
                Received::Nothing => return None,
                other => panic!("{}: {other:?}", self.name),
            }
        }
    }
}
