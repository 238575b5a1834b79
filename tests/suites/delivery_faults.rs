//! The delivery guarantee under the faults real networks produce, end to end over real
//! WebSockets, in memory and on DynamoDB Local (README "Delivery guarantee"):
//! - a socket that goes silent without closing while the player reconnects elsewhere
//!   (a phone moving from Wi-Fi to cellular): no acknowledged message is lost;
//! - a storm of reconnects (abrupt drops, clean closes, takeovers) under traffic: none
//!   lost, none delivered to the wrong player, few duplicates;
//! - two sockets opening for one player at the same instant: exactly one stays open,
//!   the other is told `session_replaced` and closed;
//! - takeovers under traffic: every replaced socket is closed, the new one receives live,
//!   and presence stays online;
//! - a connection that is still opening when messages stream to its player is not taken
//!   for gone.
//!
//! Clients here behave as the README asks: they send `resume` with the `seq` of the last
//! frame they processed, and ignore a `seq` they already have. A frame that reached a
//! socket the client no longer reads counts as not received.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tests::stack::{Client, Received, TestStack};
use tokio::time::Instant;

/// Messages each of the 5 senders of the silent-switch run sends (300 in all).
const SILENT_SWITCH_MESSAGES_PER_SENDER: u64 = 60;
/// Messages each of the 20 senders of the storm sends (800 in all).
const STORM_MESSAGES_PER_SENDER: u64 = 40;

/// How long a reply may take here: DynamoDB Local under a storm of reconnects (and the
/// rest of the test run beside it) answers in seconds rather than milliseconds.
const REPLY_WAIT: Duration = Duration::from_secs(10);

/// A stack in memory, or on DynamoDB Local with fresh tables (`None` when
/// `DYNAMODB_ENDPOINT` is not set: the test is skipped).
async fn stack(dynamodb: bool) -> Option<TestStack> {
    if !dynamodb {
        return Some(TestStack::start().await);
    }
    let endpoint = tests::dynamodb::endpoint_or_skip()?;
    Some(
        TestStack::start_with(|s| {
            tests::dynamodb::use_fresh_tables(&mut s.storage, endpoint);
        })
        .await,
    )
}

/// What every sender was told was queued, per recipient: the tokens of the messages.
type Acked = Arc<Mutex<HashMap<String, HashSet<String>>>>;

/// A player sending `count` `{"token", "to"}` messages to random recipients, one every
/// `every`, recording each acknowledged one. (A count, not a duration: a loaded machine
/// takes longer, but the run still carries the traffic it is meant to.)
async fn sender(
    stack: &TestStack,
    name: String,
    recipients: Arc<Vec<String>>,
    every: Duration,
    count: u64,
    acked: Acked,
) {
    let (mut client, _) = stack.online(&name).await;
    for n in 0..count {
        let to = recipients[fastrand::usize(..recipients.len())].clone();
        let token = format!("{name}-{n}");
        client
            .send_json(json!({"route": "sendMessage", "requestId": token,
                               "body": {"playerIds": [to], "message": {"token": token, "to": to}}}))
            .await;
        // The ack (senders receive nothing else: nobody writes to them).
        let ack = client.next_frame_within(REPLY_WAIT).await;
        if ack["type"] == "ack" && ack["queued"] == 1 {
            acked.lock().unwrap().entry(to).or_default().insert(token);
        }
        tokio::time::sleep(every).await;
    }
}

/// A receiving player as a client app sees it: the frames it processed, on whichever
/// socket it is reading now.
struct Receiver {
    name: String,
    /// The socket being read (none while between two).
    client: Option<Client>,
    /// The last `seq` processed: the cursor of the next `resume`.
    cursor: Option<u64>,
    tokens: HashSet<String>,
    /// Frames `resume` announced as replayed, over every reconnect.
    replayed: u64,
    /// `resume`s answered `unavailable` and sent again.
    resume_retries: u32,
    /// Connections refused with 503 and opened again.
    connect_retries: u32,
    duplicates: usize,
    misdelivered: Vec<Value>,
    /// Sockets given up on without closing (their frames are never read).
    abandoned: Vec<Client>,
}

impl Receiver {
    async fn online(stack: &TestStack, name: String) -> Self {
        let (client, _) = stack.online(&name).await;
        Self {
            name,
            client: Some(client),
            cursor: None,
            tokens: HashSet::new(),
            replayed: 0,
            resume_retries: 0,
            connect_retries: 0,
            duplicates: 0,
            misdelivered: Vec::new(),
            abandoned: Vec::new(),
        }
    }

    fn socket(&mut self) -> &mut Client {
        self.client.as_mut().expect("a socket")
    }

    /// Processes every frame that arrives until `done` is set.
    async fn read_until(&mut self, done: &AtomicBool) {
        while !done.load(Ordering::SeqCst) {
            self.read_for(Duration::from_millis(50)).await;
        }
    }

    /// Processes every frame that arrives for `wait`.
    async fn read_for(&mut self, wait: Duration) {
        let until = Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self.socket().receive(left).await {
                Received::Text(text) => self.process(serde_json::from_str(&text).unwrap()),
                Received::Nothing => return,
                other => panic!("{}: the socket ended unexpectedly: {other:?}", self.name),
            }
        }
    }

    fn process(&mut self, frame: Value) {
        if let Some(seq) = frame["seq"].as_u64() {
            if self.cursor.is_some_and(|last| seq <= last) {
                // Already processed: ignored, as the README asks, but counted.
                self.duplicates += 1;
                return;
            }
            self.cursor = Some(seq);
        }
        if frame["type"] != "message" {
            return;
        }
        let message = &frame["message"];
        if message["to"] != self.name.as_str() {
            self.misdelivered.push(frame.clone());
            return;
        }
        let token = message["token"].as_str().unwrap_or_default().to_owned();
        if !self.tokens.insert(token) {
            self.duplicates += 1;
        }
    }

    /// Resumes on the current socket with the cursor, processing the replay (live
    /// frames may come in between: each is processed as it comes). An `unavailable`
    /// answer is retried, as the README asks of clients.
    async fn resume(&mut self) {
        for _ in 0..5 {
            let body = match self.cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            self.socket()
                .send_json(json!({"route": "resume", "body": body}))
                .await;
            loop {
                let frame = self.socket().next_frame_within(REPLY_WAIT).await;
                if frame["route"] == "resume" && frame["type"] == "ack" {
                    self.replayed += frame["pendingMessages"].as_u64().unwrap_or(0);
                    return;
                }
                if frame["route"] == "resume" && frame["code"] == "unavailable" {
                    self.resume_retries += 1;
                    break;
                }
                self.process(frame);
            }
        }
        panic!("{}: resume kept failing", self.name);
    }

    /// Moves to a new socket: `old` is what becomes of the current one.
    async fn reconnect(&mut self, stack: &TestStack, old: Leave) {
        let previous = self.client.take().expect("a socket");
        match old {
            Leave::Close => previous.close().await,
            Leave::Drop => previous.vanish(),
            Leave::Silent | Leave::TakeOver => self.abandoned.push(previous),
        }
        self.client = Some(self.connect(stack).await);
        self.resume().await;
    }

    /// Opens a socket, trying again after a 503 (the store was unavailable), as the
    /// README asks of clients.
    async fn connect(&mut self, stack: &TestStack) -> Client {
        for attempt in 1..=5 {
            match stack
                .connect_query(&format!("playerId={}", self.name))
                .await
            {
                Ok(client) => return client,
                Err(503) => {
                    self.connect_retries += 1;
                    tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
                }
                Err(status) => panic!("{}: connecting was refused with {status}", self.name),
            }
        }
        panic!("{}: connecting kept being refused with 503", self.name);
    }

    /// The network switch: the current socket goes silent (kept open, never read again),
    /// and after `gap` the player connects anew and resumes.
    async fn switch_network(&mut self, stack: &TestStack, gap: Duration) {
        tokio::time::sleep(gap).await;
        self.reconnect(stack, Leave::Silent).await;
    }
}

/// What becomes of a socket a player moves away from.
#[derive(Clone, Copy, Debug)]
enum Leave {
    /// Kept open and never read again (the network went away under it).
    Silent,
    /// The TCP connection dropped without a closing handshake.
    Drop,
    /// A clean close (1000), then a new socket.
    Close,
    /// A new socket opens while this one is still open and read until then: the server
    /// replaces it.
    TakeOver,
}

/// What a run found, over every receiver.
#[derive(Debug, Default)]
struct Tally {
    acked: usize,
    received: usize,
    /// Recovered by `resume` replays (frames a lost socket took with it).
    replayed: u64,
    lost: Vec<String>,
    duplicates: usize,
    misdelivered: usize,
    /// Sockets refused (503) and `resume`s answered `unavailable`, each tried again.
    retries: u32,
}

async fn tally(stack: &TestStack, receivers: &mut [Receiver], acked: &Acked) -> Tally {
    // Everything acknowledged has been appended; let the stream finish, then read what
    // is left.
    stack.wait_for_stream_idle().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        for receiver in receivers.iter_mut() {
            receiver.read_for(Duration::from_millis(50)).await;
        }
        let acked = acked.lock().unwrap();
        let missing = receivers.iter().any(|r| {
            acked
                .get(&r.name)
                .is_some_and(|tokens| !tokens.is_subset(&r.tokens))
        });
        if !missing || Instant::now() > deadline {
            break;
        }
    }
    let acked = acked.lock().unwrap();
    let mut tally = Tally::default();
    for receiver in receivers.iter() {
        let expected = acked.get(&receiver.name).cloned().unwrap_or_default();
        tally.acked += expected.len();
        tally.received += receiver.tokens.len();
        tally.replayed += receiver.replayed;
        tally.duplicates += receiver.duplicates;
        tally.misdelivered += receiver.misdelivered.len();
        tally.retries += receiver.connect_retries + receiver.resume_retries;
        tally
            .lost
            .extend(expected.difference(&receiver.tokens).cloned());
    }
    tally
}

// --- The silent network switch ---

async fn silent_network_switch(stack: &TestStack) -> Tally {
    let receivers: Vec<String> = (0..20).map(|i| format!("switch-r{i}")).collect();
    let mut players = Vec::new();
    for name in &receivers {
        players.push(Receiver::online(stack, name.clone()).await);
    }
    let acked: Acked = Arc::default();
    let done = AtomicBool::new(false);
    let targets = Arc::new(receivers.clone());
    let senders = async {
        futures_util::future::join_all((0..5).map(|i| {
            sender(
                stack,
                format!("switch-s{i}"),
                targets.clone(),
                Duration::from_millis(15),
                SILENT_SWITCH_MESSAGES_PER_SENDER,
                acked.clone(),
            )
        }))
        .await;
        done.store(true, Ordering::SeqCst);
    };
    let switching = players.iter_mut().map(|player| async {
        // Read a while, switch (the old socket goes silent), twice over.
        for _ in 0..2 {
            player
                .read_for(Duration::from_millis(300 + fastrand::u64(..900)))
                .await;
            let gap = Duration::from_millis(200 + fastrand::u64(..=600));
            player.switch_network(stack, gap).await;
        }
        player.read_until(&done).await;
    });
    tokio::join!(senders, futures_util::future::join_all(switching));
    tally(stack, &mut players, &acked).await
}

async fn assert_nothing_lost_across_silent_switches(dynamodb: bool) {
    let Some(stack) = stack(dynamodb).await else {
        return;
    };
    let tally = silent_network_switch(&stack).await;
    eprintln!("silent switch (dynamodb: {dynamodb}): {tally:?}");
    assert!(
        tally.acked > 150,
        "enough traffic to mean something: {tally:?}"
    );
    assert!(
        tally.replayed > 0,
        "silent sockets took frames with them, for the replay to recover: {tally:?}"
    );
    assert_eq!(tally.lost, Vec::<String>::new(), "{tally:?}");
    assert_eq!(tally.misdelivered, 0, "{tally:?}");
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_sockets_that_go_silent_while_players_reconnect_elsewhere_then_no_acked_message_is_lost()
 {
    assert_nothing_lost_across_silent_switches(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_sockets_that_go_silent_while_players_reconnect_then_no_acked_message_is_lost()
 {
    assert_nothing_lost_across_silent_switches(true).await;
}

// --- A reconnect storm ---

async fn reconnect_storm(stack: &TestStack) -> Tally {
    let receivers: Vec<String> = (0..80).map(|i| format!("storm-r{i}")).collect();
    let mut players = Vec::new();
    for name in &receivers {
        players.push(Receiver::online(stack, name.clone()).await);
    }
    let acked: Acked = Arc::default();
    let done = AtomicBool::new(false);
    let targets = Arc::new(receivers.clone());
    let senders = async {
        futures_util::future::join_all((0..20).map(|i| {
            sender(
                stack,
                format!("storm-s{i}"),
                targets.clone(),
                Duration::from_millis(60),
                STORM_MESSAGES_PER_SENDER,
                acked.clone(),
            )
        }))
        .await;
        done.store(true, Ordering::SeqCst);
    };
    let storming = players.iter_mut().map(|player| async {
        for round in 0..10 {
            player
                .read_for(Duration::from_millis(100 + fastrand::u64(..300)))
                .await;
            let how = [Leave::Drop, Leave::Close, Leave::TakeOver, Leave::Silent][round % 4];
            player.reconnect(stack, how).await;
        }
        player.read_until(&done).await;
    });
    tokio::join!(senders, futures_util::future::join_all(storming));
    tally(stack, &mut players, &acked).await
}

async fn assert_a_reconnect_storm_loses_nothing(dynamodb: bool) {
    let Some(stack) = stack(dynamodb).await else {
        return;
    };
    let tally = reconnect_storm(&stack).await;
    eprintln!("reconnect storm (dynamodb: {dynamodb}): {tally:?}");
    assert!(
        tally.acked > 300,
        "enough traffic to mean something: {tally:?}"
    );
    assert_eq!(tally.lost, Vec::<String>::new(), "{tally:?}");
    assert_eq!(tally.misdelivered, 0, "{tally:?}");
    assert!(
        tally.duplicates * 20 < tally.received,
        "duplicates under 5 %: {tally:?}"
    );
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_80_players_reconnecting_10_times_each_under_traffic_then_nothing_is_lost_or_misdelivered_and_few_duplicates()
 {
    assert_a_reconnect_storm_loses_nothing(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_80_players_reconnecting_10_times_each_under_traffic_then_nothing_is_lost_or_misdelivered_and_few_duplicates()
 {
    assert_a_reconnect_storm_loses_nothing(true).await;
}

// --- Two sockets opening at the same instant ---

/// Reads `client` until it closes: the frames it got before the close.
async fn frames_until_close(client: &mut Client, wait: Duration) -> Option<Vec<Value>> {
    let until = Instant::now() + wait;
    let mut frames = Vec::new();
    loop {
        match client
            .receive(until.saturating_duration_since(Instant::now()))
            .await
        {
            Received::Text(text) => frames.push(serde_json::from_str(&text).unwrap()),
            Received::Close(_) | Received::Ended | Received::Error(_) => return Some(frames),
            Received::Nothing => return None,
            Received::Binary(_) => {}
        }
    }
}

async fn double_opens(stack: &TestStack, players: usize) {
    let trials = (0..players).map(|i| async move {
        let name = format!("twin-{i}");
        let (a, b) = tokio::join!(stack.connect(&name), stack.connect(&name));
        let (mut a, mut b) = (a, b);
        // Each does what a client does first.
        for client in [&mut a, &mut b] {
            client.send_json(json!({"route": "resume"})).await;
        }
        let (a_end, b_end) = tokio::join!(
            frames_until_close(&mut a, Duration::from_secs(4)),
            frames_until_close(&mut b, Duration::from_secs(4)),
        );
        let (mut winner, loser) = match (a_end, b_end) {
            (None, Some(frames)) => (a, frames),
            (Some(frames), None) => (b, frames),
            other => panic!("{name}: exactly one socket must close, got {other:?}"),
        };
        assert!(
            loser.contains(&json!({"type": "session_replaced"})),
            "{name}: the closed one was told why: {loser:?}"
        );
        // The one left open is the player's current connection, and answers.
        winner
            .send_json(json!({"route": "heartbeat", "requestId": "hb"}))
            .await;
        let ack = winner.next_frame().await;
        assert_eq!(ack["type"], "ack", "{name}: {ack}");
        let current = stack.connection_id(&name).await;
        assert!(
            stack.stack().connections().get(&current).is_ok(),
            "{name}: the record's connection is the open one"
        );
    });
    futures_util::future::join_all(trials).await;
}

async fn assert_double_opens_leave_one_socket(dynamodb: bool) {
    let Some(stack) = stack(dynamodb).await else {
        return;
    };
    double_opens(&stack, 50).await;
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_two_sockets_opening_for_one_player_at_the_same_instant_then_one_stays_open_and_the_other_is_told_and_closed()
 {
    assert_double_opens_leave_one_socket(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_two_sockets_opening_at_the_same_instant_then_one_stays_open_and_the_other_is_told_and_closed()
 {
    assert_double_opens_leave_one_socket(true).await;
}

// --- Takeovers under traffic ---

async fn takeovers_under_traffic(stack: &TestStack, takeovers: usize) {
    // bob watches alice; alice gets a steady stream of messages from carol.
    let (mut bob, _) = stack.online("bob").await;
    let ack = bob
        .request("subscribePresence", json!({"playerIds": ["alice"]}))
        .await;
    assert_eq!(ack["presence"]["alice"], "offline", "{ack}");
    let mut alice = Receiver::online(stack, "alice".into()).await;
    let online = bob.next_frame().await;
    assert_eq!(online["status"], "online", "{online}");
    let acked: Acked = Arc::default();
    let stop = Instant::now() + Duration::from_secs(30);
    let done = Arc::new(AtomicBool::new(false));
    let traffic = {
        let acked = acked.clone();
        let done = done.clone();
        async move {
            let (mut carol, _) = stack.online("carol").await;
            let mut n = 0;
            while !done.load(Ordering::SeqCst) && Instant::now() < stop {
                let token = format!("carol-{n}");
                n += 1;
                carol
                    .send_json(
                        json!({"route": "sendMessage", "body": {"playerIds": ["alice"],
                                       "message": {"token": token, "to": "alice"}}}),
                    )
                    .await;
                if carol.next_frame_within(REPLY_WAIT).await["queued"] == 1 {
                    acked
                        .lock()
                        .unwrap()
                        .entry("alice".into())
                        .or_default()
                        .insert(token);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    let taking_over = async {
        for round in 0..takeovers {
            alice.read_for(Duration::from_millis(20)).await;
            // The new socket opens while the old one is still open and read.
            let mut old = alice.client.take().expect("a socket");
            alice.client = Some(stack.connect("alice").await);
            alice.resume().await;
            // The replaced one is told and closed (what it got meanwhile is not read).
            let goodbye = frames_until_close(&mut old, Duration::from_secs(2))
                .await
                .unwrap_or_else(|| panic!("takeover {round}: the replaced socket stayed open"));
            assert!(
                goodbye.contains(&json!({"type": "session_replaced"})),
                "takeover {round}: {goodbye:?}"
            );
        }
        done.store(true, Ordering::SeqCst);
    };
    tokio::join!(traffic, taking_over);

    // The last socket receives live.
    let mut players = [alice];
    let tally = tally(stack, &mut players, &acked).await;
    assert_eq!(tally.lost, Vec::<String>::new(), "{tally:?}");
    let [mut alice] = players;
    let (mut dave, _) = stack.online("dave").await;
    dave.request(
        "sendMessage",
        json!({"playerIds": ["alice"], "message": {"token": "probe", "to": "alice"}}),
    )
    .await;
    alice.read_for(Duration::from_millis(500)).await;
    assert!(
        alice.tokens.contains("probe"),
        "the current socket receives live"
    );
    // Presence stayed online the whole time: bob heard nothing more about alice.
    bob.expect_no_frame(Duration::from_millis(200)).await;
    stack
        .wait_for_status("alice", shared::domain::PresenceStatus::Online)
        .await;
}

async fn assert_takeovers_under_traffic(dynamodb: bool, takeovers: usize) {
    let Some(stack) = stack(dynamodb).await else {
        return;
    };
    takeovers_under_traffic(&stack, takeovers).await;
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_100_takeovers_under_traffic_then_every_replaced_socket_closes_the_new_one_receives_live_and_presence_stays_online()
 {
    assert_takeovers_under_traffic(false, 100).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_takeovers_under_traffic_then_every_replaced_socket_closes_and_presence_stays_online()
 {
    assert_takeovers_under_traffic(true, 40).await;
}

// --- A connection still opening is not gone ---

async fn opening_connection_under_traffic(stack: &TestStack) {
    let (mut bob, _) = stack.online("bob").await;
    bob.request("subscribePresence", json!({"playerIds": ["pat"]}))
        .await;
    // Messages stream to pat before and while pat's socket opens.
    let (mut alice, _) = stack.online("alice").await;
    let streaming = async {
        for n in 0..60 {
            alice
                .send_json(
                    json!({"route": "sendMessage", "body": {"playerIds": ["pat"],
                                   "message": {"token": format!("pre-{n}"), "to": "pat"}}}),
                )
                .await;
            alice.next_frame_within(REPLY_WAIT).await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let (_, mut pat) = tokio::join!(streaming, async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Receiver::online(stack, "pat".into()).await
    });
    // pat is online and live: a probe arrives at once, and nobody saw pat go offline.
    alice
        .request(
            "sendMessage",
            json!({"playerIds": ["pat"], "message": {"token": "probe", "to": "pat"}}),
        )
        .await;
    pat.read_for(Duration::from_millis(500)).await;
    assert!(pat.tokens.contains("probe"), "delivered live");
    let record = stack.record("pat").await;
    assert!(record.is_live(), "{record:?}");
    let mut about_pat = Vec::new();
    while let Received::Text(text) = bob.receive(Duration::from_millis(300)).await {
        let frame: Value = serde_json::from_str(&text).unwrap();
        if frame["playerId"] == "pat" {
            about_pat.push(frame["status"].clone());
        }
    }
    assert_eq!(about_pat, vec![json!("online")], "pat never went offline");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_messages_streaming_to_a_player_whose_socket_is_opening_then_it_is_not_taken_for_gone()
 {
    let stack = stack(false).await.unwrap();
    opening_connection_under_traffic(&stack).await;
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn given_dynamodb_local_and_messages_streaming_to_a_player_whose_socket_is_opening_then_it_is_not_taken_for_gone()
 {
    if let Some(stack) = stack(true).await {
        opening_connection_under_traffic(&stack).await;
        stack.shutdown().await;
    }
}
