use std::sync::Mutex;

use contracts::events::{parse_event, reply_frame, route_event};
use contracts::fixtures::{T0, assert_refused, connected, connection_of, player, player_record};
use contracts::recording_gateway::{GatewayCall, RecordingGateway};
use contracts::unavailable::Unavailable;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{
    InMemoryDeliveryHandover, InMemoryMessageStore, InMemoryPartyStore, InMemoryPlayerStore,
};
use serde_json::json;
use shared::domain::{MessageId, PresenceStatus};
use shared::matchmaking::TicketId;
use shared::messaging::NewMessage;
use shared::party::{CommitScope, Parties};
use shared::pending::Pending;
use shared::ports::{ManualClock, StoreError};

use super::*;
use contracts::ports::*;
use edge::websocket::{RouteEvent, RouteHandler, RouteResult};

struct World {
    /// The `resume` replies per connection, each with how many posts that connection had
    /// received when it went out (so `seen` can put it in its place).
    replies: Mutex<Vec<(String, usize, Value)>>,
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    parties: Arc<InMemoryPartyStore>,
    gateway: Arc<RecordingGateway>,
    clock: ManualClock,
    handler: ResumeHandler,
    wiring: TestWiring,
}

fn world() -> World {
    let w = TestWiring::new();
    World {
        replies: Mutex::default(),
        players: w.tables.players.clone(),
        messages: w.tables.messages.clone(),
        parties: w.tables.parties.clone(),
        gateway: w.gateway.clone(),
        clock: w.clock.clone(),
        handler: wire(&w.wiring()),
        wiring: w,
    }
}

impl World {
    /// Party changes as the handlers make them (setting up a party).
    fn service(&self) -> Parties {
        self.wiring.wiring().parties(CommitScope::Any)
    }
}

/// A chat message `n` to `to`, created at `at`.
fn chat(to: &str, n: i64, at: i64) -> NewMessage {
    let id = MessageId::deterministic(&["chat", &n.to_string()]);
    NewMessage {
        payload: json!({"type": "message", "messageId": id.as_str(), "n": n}).to_string(),
        message_id: id,
        recipient_id: player(to),
        sender_id: "alice".into(),
        kind: MessageKind::Chat,
        created_at: at,
        expire_at_secs: at / 1000 + 86_400,
    }
}

/// `about` went `status`, as watcher `to` is told.
fn presence(to: &str, about: &str, status: &str, n: i64) -> NewMessage {
    NewMessage {
        payload: json!({"type": "presence", "playerId": about, "status": status, "at": n})
            .to_string(),
        message_id: MessageId::deterministic(&["presence", about, &n.to_string(), to]),
        recipient_id: player(to),
        sender_id: "system".into(),
        kind: MessageKind::Presence,
        created_at: T0 + n,
        expire_at_secs: T0 / 1000 + 60,
    }
}

impl World {
    async fn connect(&self, name: &str, connection: &str, at: i64) {
        connected(&*self.players, name, connection, at).await;
    }

    async fn append(&self, messages: &[NewMessage]) {
        self.messages.append(messages).await.unwrap();
    }

    async fn resume_on(&self, name: &str, connection: &str, body: Value) -> RouteResult {
        let text = json!({"route": "resume", "requestId": "r1", "body": body}).to_string();
        let response = self
            .handler
            .handle(route_event("resume", name, connection, T0, Some(&text)))
            .await?;
        if response.body.is_some() {
            let posts = self.gateway.posted_to(connection).len();
            self.replies.lock().unwrap().push((
                connection.to_owned(),
                posts,
                reply_frame(&response),
            ));
        }
        Ok(response)
    }

    async fn resume(&self, name: &str, body: Value) -> RouteResult {
        self.resume_on(name, connection_of(name).as_str(), body)
            .await
    }

    /// Frames posted to `connection`, as JSON.
    fn posted(&self, connection: &str) -> Vec<Value> {
        self.gateway
            .posted_to(connection)
            .iter()
            .map(|text| serde_json::from_str(text).unwrap())
            .collect()
    }

    /// What the client on `connection` received, in order: posted frames, and each
    /// `resume` reply after the frames posted before it.
    fn seen(&self, connection: &str) -> Vec<Value> {
        let posted = self.posted(connection);
        let replies = self.replies.lock().unwrap();
        let mut seen = Vec::new();
        let mut next = 0;
        for (to, at, reply) in replies.iter().filter(|(to, _, _)| to == connection) {
            let _ = to;
            seen.extend(posted[next..*at].iter().cloned());
            next = *at;
            seen.push(reply.clone());
        }
        seen.extend(posted[next..].iter().cloned());
        seen
    }

    async fn record(&self, name: &str) -> PlayerRecord {
        player_record(&*self.players, name).await
    }
}

fn ns(frames: &[Value]) -> Vec<i64> {
    frames.iter().filter_map(|f| f["n"].as_i64()).collect()
}

#[tokio::test]
async fn given_a_live_matchmaking_ticket_when_resuming_then_the_ack_names_it_instead_of_a_placement()
 {
    let w = world();
    w.connect("alice", "c-alice", T0).await;
    let ticket = TicketId::new_at(T0);
    w.players
        .reserve(&player("alice"), &Pending::of_ticket(&ticket).unwrap())
        .await
        .unwrap();
    w.resume("alice", json!({})).await.unwrap();
    let ack = w.seen("c-alice").pop().unwrap();
    assert_eq!(ack["placement"], Value::Null);
    assert_eq!(ack["matchmaking"], json!({"ticketId": ticket.as_str()}));
}

#[tokio::test]
async fn given_nothing_waiting_when_resuming_then_the_ack_is_the_reply_and_the_connection_goes_live()
 {
    let w = world();
    w.connect("alice", "c-alice", T0).await;
    let response = w.resume("alice", json!({})).await.unwrap();
    assert_eq!(response.status_code, 200);
    assert!(w.posted("c-alice").is_empty(), "nothing to replay");
    assert_eq!(
        w.seen("c-alice"),
        vec![
            json!({"type": "ack", "route": "resume", "requestId": "r1", "playerId": "alice",
                    "connectionId": "c-alice", "resumed": false, "pendingMessages": 0, "cursor": null,
                    "placement": null, "matchmaking": null, "gameSession": null, "party": null,
                    "keepAlive": {"route": "heartbeat", "intervalSeconds": 40}})
        ]
    );
    let record = w.record("alice").await;
    assert!(record.is_live());
    assert_eq!(record.live_from, Some(Seq::ZERO));
}

#[tokio::test]
async fn given_messages_waiting_when_resuming_then_each_frame_in_seq_order_then_the_ack() {
    // Given carol got two messages before she ever connected
    let w = world();
    w.append(&[chat("carol", 1, T0), chat("carol", 2, T0)])
        .await;
    w.connect("carol", "c-carol", T0 + 5).await;

    // When she resumes without a cursor
    w.resume("carol", json!({})).await.unwrap();

    // Then both come with their seqs, then the ack counting them and naming the head
    let seen = w.seen("c-carol");
    let epoch = Seq::epoch_start(T0).get();
    assert_eq!(ns(&seen[..2]), vec![1, 2]);
    assert_eq!(seen[0]["seq"], json!(epoch));
    assert_eq!(seen[1]["seq"], json!(epoch + 1));
    assert_eq!(seen[2]["type"], "ack");
    assert_eq!(seen[2]["pendingMessages"], 2);
    assert_eq!(seen[2]["cursor"], json!(epoch + 1));
    // And live delivery takes over after them.
    let record = w.record("carol").await;
    assert!(record.is_live());
    assert_eq!(record.live_from, Seq::new(epoch + 1).ok());
    assert_eq!(record.acked_seq, Seq::new(epoch + 1).ok(), "what was sent");
}

#[tokio::test]
async fn given_a_cursor_when_resuming_then_only_frames_after_it_are_replayed_and_it_is_remembered()
{
    let w = world();
    w.append(&[chat("bob", 1, T0), chat("bob", 2, T0), chat("bob", 3, T0)])
        .await;
    w.connect("bob", "c-bob", T0 + 5).await;
    let first = Seq::epoch_start(T0);

    w.resume("bob", json!({"cursor": first.get()}))
        .await
        .unwrap();

    let seen = w.seen("c-bob");
    assert_eq!(ns(&seen[..2]), vec![2, 3]);
    assert_eq!(seen[2]["pendingMessages"], 2);
    assert_eq!(w.record("bob").await.acked_seq, Some(first));
}

#[tokio::test]
async fn given_a_second_resume_without_a_cursor_on_the_same_connection_then_nothing_is_replayed_twice()
 {
    let w = world();
    w.append(&[chat("carol", 1, T0)]).await;
    w.connect("carol", "c-carol", T0 + 5).await;
    w.resume("carol", json!({})).await.unwrap();
    w.resume("carol", json!({})).await.unwrap();
    let seen = w.seen("c-carol");
    assert_eq!(
        seen.len(),
        3,
        "the message, its ack, then only the second ack"
    );
    assert_eq!(seen[2]["pendingMessages"], 0);
}

#[tokio::test]
async fn given_a_live_connection_when_it_resumes_again_without_a_cursor_then_nothing_it_got_live_is_replayed()
 {
    let w = world();
    w.connect("bob", "c-bob", T0).await;
    w.resume("bob", json!({})).await.unwrap();
    // Delivered live meanwhile (the stream posts it to the live socket).
    w.append(&[chat("bob", 1, T0 + 1)]).await;
    w.resume("bob", json!({})).await.unwrap();
    let seen = w.seen("c-bob");
    assert_eq!(seen.len(), 2, "two acks, no replay: {seen:?}");
    assert_eq!(seen[1]["pendingMessages"], 0);
    assert_eq!(seen[1]["cursor"], json!(Seq::epoch_start(T0 + 1).get()));
    let record = w.record("bob").await;
    assert!(record.is_live());
    assert_eq!(
        record.live_from,
        Some(Seq::ZERO),
        "live delivery still posts what the stream has not yet"
    );
}

#[tokio::test]
async fn given_a_reconnect_without_a_cursor_then_frames_since_the_old_connections_last_sign_of_life_are_replayed()
 {
    // Given bob was live and heartbeating; message 1 long before his last heartbeat,
    // message 2 just before it, message 3 after it (his socket died silently)
    let w = world();
    w.connect("bob", "c-bob", T0).await;
    w.resume("bob", json!({})).await.unwrap();
    let last_heartbeat = T0 + 60_000;
    w.append(&[chat("bob", 1, T0 + 1_000)]).await;
    w.append(&[chat("bob", 2, last_heartbeat - 3_000)]).await;
    w.players
        .heartbeat(
            &player("bob"),
            &connection_of("bob"),
            last_heartbeat,
            last_heartbeat + 90_000,
            None,
        )
        .await
        .unwrap();
    w.append(&[chat("bob", 3, last_heartbeat + 1_000)]).await;

    // When he reconnects on another socket and resumes without a cursor
    w.clock.set(last_heartbeat + 5_000);
    w.connect("bob", "c-bob-2", last_heartbeat + 5_000).await;
    w.resume_on("bob", "c-bob-2", json!({})).await.unwrap();

    // Then what may not have reached him is replayed: 2 (within the margin) and 3
    assert_eq!(ns(&w.posted("c-bob-2")), vec![2, 3]);
}

#[tokio::test]
async fn given_several_presence_changes_of_one_player_then_only_the_latest_is_replayed() {
    let w = world();
    w.append(&[
        presence("bob", "dave", "online", 1),
        chat("bob", 7, T0 + 2),
        presence("bob", "erin", "online", 3),
        presence("bob", "dave", "offline", 4),
    ])
    .await;
    w.connect("bob", "c-bob", T0 + 5).await;
    w.resume("bob", json!({})).await.unwrap();
    let seen = w.seen("c-bob");
    let (ack, replayed) = seen.split_last().unwrap();
    let kinds: Vec<(String, String)> = replayed
        .iter()
        .map(|f| {
            (
                f["type"].as_str().unwrap().to_owned(),
                f["playerId"].as_str().unwrap_or("").to_owned()
                    + f["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("message".to_owned(), "".to_owned()),
            ("presence".to_owned(), "erinonline".to_owned()),
            ("presence".to_owned(), "daveoffline".to_owned())
        ]
    );
    assert_eq!(ack["type"], "ack", "the ack comes after the replay");
    assert_eq!(ack["pendingMessages"], 3);
}

#[tokio::test]
async fn given_a_malformed_cursor_then_bad_request_names_it_and_nothing_is_replayed() {
    let w = world();
    w.connect("bob", "c-bob", T0).await;
    for cursor in [
        json!(-1),
        json!("7"),
        json!(1.5),
        json!(9_007_199_254_740_992_u64),
    ] {
        let response = w.resume("bob", json!({ "cursor": cursor })).await.unwrap();
        let frame = reply_frame(&response);
        assert_refused(&frame, "bad_request", "`cursor`");
        assert_eq!(frame["route"], "resume");
        assert_eq!(frame["requestId"], "r1");
    }
    assert!(w.gateway.calls().is_empty());
    assert!(!w.record("bob").await.is_live());
}

#[tokio::test]
async fn given_a_connection_that_was_replaced_when_it_resumes_then_it_is_told_and_closed() {
    // Given bob connected on c-bob-old, then on c-bob-new (the old one still opening,
    // or simply slower)
    let w = world();
    w.connect("bob", "c-bob-old", T0).await;
    w.connect("bob", "c-bob-new", T0 + 1).await;

    // When the old one sends resume
    w.resume_on("bob", "c-bob-old", json!({})).await.unwrap();

    // Then it gets session_replaced and is closed, and nothing changes for the new one
    assert_eq!(
        w.posted("c-bob-old"),
        vec![json!({"type": "session_replaced"})]
    );
    assert!(w.gateway.calls().contains(&GatewayCall::Delete {
        endpoint: "https://abcdef1234.execute-api.us-east-1.amazonaws.com/Development".into(),
        connection: "c-bob-old".into(),
    }));
    assert!(!w.record("bob").await.is_live());
}

#[tokio::test]
async fn given_a_connection_the_server_gave_up_on_when_it_resumes_then_it_is_told_why_and_closed() {
    let w = world();
    w.connect("bob", "c-bob", T0).await;
    w.players
        .disconnect(&player("bob"), &connection_of("bob"), T0, T0 + 30_000)
        .await
        .unwrap();
    w.resume("bob", json!({})).await.unwrap();
    assert_eq!(
        w.posted("c-bob"),
        vec![json!({"type": "disconnected", "reason": "connection_lost"})]
    );
    assert_eq!(w.record("bob").await.status, PresenceStatus::Disconnected);
}

#[tokio::test]
async fn given_a_takeover_when_the_new_connection_resumes_then_the_old_one_is_closed_again() {
    // Given bob was live on c-bob-old when c-bob-new connected (a takeover whose close
    // may have found the old socket still opening)
    let w = world();
    w.connect("bob", "c-bob-old", T0).await;
    w.resume_on("bob", "c-bob-old", json!({})).await.unwrap();
    w.connect("bob", "c-bob-new", T0 + 1).await;

    w.resume_on("bob", "c-bob-new", json!({})).await.unwrap();

    assert_eq!(
        w.posted("c-bob-old").last(),
        Some(&json!({"type": "session_replaced"}))
    );
    assert!(w.gateway.calls().iter().any(|call| matches!(call,
        GatewayCall::Delete { connection, .. } if connection == "c-bob-old")));
    let record = w.record("bob").await;
    assert!(record.is_live());
    assert_eq!(
        record.live_connection_id,
        Some(contracts::fixtures::connection("c-bob-new"))
    );
}

/// A hand-over that lets `arrivals` append first, as messages arriving during a replay.
struct ArrivalsDuringReplay {
    inner: InMemoryDeliveryHandover,
    messages: Arc<InMemoryMessageStore>,
    arrivals: Mutex<Vec<NewMessage>>,
}

#[async_trait]
impl DeliveryHandover for ArrivalsDuringReplay {
    async fn go_live(&self, handover: &Handover) -> Result<HandoverOutcome, StoreError> {
        let arrived = std::mem::take(&mut *self.arrivals.lock().unwrap());
        self.messages.append(&arrived).await?;
        self.inner.go_live(handover).await
    }
}

#[tokio::test]
async fn given_a_message_that_arrives_during_the_replay_then_it_is_replayed_too_before_going_live()
{
    let w = world();
    w.append(&[chat("bob", 1, T0)]).await;
    w.connect("bob", "c-bob", T0 + 5).await;
    let mut arrivals = w.wiring.clone();
    arrivals.replace::<dyn DeliveryHandover>(Arc::new(ArrivalsDuringReplay {
        inner: InMemoryDeliveryHandover::new(w.players.clone(), w.messages.clone()),
        messages: w.messages.clone(),
        arrivals: Mutex::new(vec![chat("bob", 2, T0 + 6)]),
    }));
    let handler = wire(&arrivals.wiring());
    let text = json!({"route": "resume"}).to_string();
    handler
        .handle(route_event("resume", "bob", "c-bob", T0, Some(&text)))
        .await
        .unwrap();
    let posted = w.posted("c-bob");
    assert_eq!(ns(&posted), vec![1, 2], "the late one is not lost");
    let record = w.record("bob").await;
    assert!(record.is_live());
    assert_eq!(
        record.live_from,
        Some(Seq::epoch_start(T0).next()),
        "live from after the late one"
    );
}

#[tokio::test]
async fn given_the_storage_is_down_then_the_reply_is_an_unavailable_frame_with_route_and_request_id()
 {
    let mut w = TestWiring::new();
    let down = Arc::new(Unavailable);
    w.replace::<dyn PlayerReader>(down.clone())
        .replace::<dyn InboxReader>(down.clone())
        .replace::<dyn DeliveryHandover>(down.clone())
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn PartyCommits>(down);
    let gateway = w.gateway.clone();
    let handler = wire(&w.wiring());
    let text = json!({"route": "resume", "requestId": "r9"}).to_string();
    let response = handler
        .handle(route_event("resume", "bob", "c-bob", T0, Some(&text)))
        .await
        .expect("a dependency fault is an answer, not a Lambda error");
    let frame = reply_frame(&response);
    assert_eq!(frame["type"], "error");
    assert_eq!(frame["code"], "unavailable");
    assert_eq!(frame["route"], "resume");
    assert_eq!(frame["requestId"], "r9");
    assert!(gateway.calls().is_empty());
}

#[tokio::test]
async fn given_the_hand_over_fails_after_the_replay_then_the_client_is_told_to_resume_again() {
    let w = world();
    w.append(&[chat("bob", 1, T0)]).await;
    w.connect("bob", "c-bob", T0 + 5).await;
    let mut failing = w.wiring.clone();
    failing.replace::<dyn DeliveryHandover>(Arc::new(Unavailable));
    let handler = wire(&failing.wiring());
    let text = json!({"route": "resume"}).to_string();
    let response = handler
        .handle(route_event("resume", "bob", "c-bob", T0, Some(&text)))
        .await
        .unwrap();
    assert_eq!(reply_frame(&response)["code"], "unavailable");
    assert_eq!(w.posted("c-bob").len(), 1, "the replay went out");
    assert!(!w.record("bob").await.is_live());
}

#[tokio::test]
async fn given_the_socket_dies_during_the_replay_then_it_stops_and_does_not_go_live() {
    let w = world();
    w.append(&[chat("bob", 1, T0)]).await;
    w.connect("bob", "c-bob", T0 + 5).await;
    w.gateway.mark_gone("c-bob");
    let response = w.resume("bob", json!({})).await.unwrap();
    assert_eq!(response.status_code, 200);
    assert!(!w.record("bob").await.is_live());
}

#[tokio::test]
async fn the_sample_resume_event_is_handled() {
    let w = world();
    let event: RouteEvent =
        parse_event(serde_json::from_str(include_str!("../../../events/resume.json")).unwrap());
    let ctx = &event.payload.request_context;
    let name = ctx.authorizer.fields["playerId"]
        .as_str()
        .unwrap()
        .to_owned();
    let connection = ctx.connection_id.clone().unwrap();
    w.connect(&name, &connection, T0).await;
    let response = w.handler.handle(event).await.unwrap();
    assert_eq!(response.status_code, 200);
    assert_eq!(reply_frame(&response)["type"], "ack");
}

#[test]
fn only_the_latest_presence_change_of_each_player_survives_and_order_is_kept() {
    let stored = |m: NewMessage, seq: u64| m.at(Seq::new(seq).unwrap(), Seq::new(1).unwrap());
    let kept = latest_presence_only(vec![
        stored(presence("bob", "dave", "online", 1), 1),
        stored(chat("bob", 1, T0), 2),
        stored(presence("bob", "dave", "offline", 2), 3),
    ]);
    let seqs: Vec<u64> = kept.iter().map(|m| m.seq.get()).collect();
    assert_eq!(seqs, vec![2, 3]);
}

mod parties {
    use super::*;
    use shared::messaging::ReplayFrom;
    use shared::party::{MemberPresence, Party};
    use shared::party::{PartyCommit, PartyCondition};

    /// alice leads a party with bob; both connected at T0. The party, as stored.
    async fn party(w: &World) -> Party {
        w.connect("alice", "c-alice", T0).await;
        w.connect("bob", "c-bob", T0).await;
        w.wiring.party_of(&["alice", "bob"], 4, T0).await
    }

    fn party_frames(frames: &[Value]) -> Vec<&Value> {
        frames.iter().filter(|f| f["type"] == "party").collect()
    }

    #[tokio::test]
    async fn given_a_party_member_when_resuming_then_the_ack_carries_the_party_and_nothing_changes()
    {
        let w = world();
        let party = party(&w).await;
        w.resume("bob", json!({})).await.unwrap();
        let ack = w.seen("c-bob").pop().unwrap();
        assert_eq!(ack["type"], "ack");
        assert_eq!(ack["party"], serde_json::to_value(party.view()).unwrap());
        let stored = w.parties.get(&party.party_id).await.unwrap().unwrap();
        assert_eq!(
            stored.version, party.version,
            "an online member changes nothing"
        );
    }

    #[tokio::test]
    async fn given_a_member_the_sweeper_took_offline_when_resuming_then_presence_online_reaches_every_member()
     {
        let w = world();
        let party = party(&w).await;
        let offline = party
            .set_presence(&player("bob"), MemberPresence::Offline { since: T0 })
            .unwrap();
        let service = w.service();
        w.parties
            .commit(&service.commit_of(&offline, T0))
            .await
            .unwrap();

        w.resume("bob", json!({})).await.unwrap();
        let seen = w.seen("c-bob");
        let ack = seen.last().unwrap();
        assert_eq!(ack["party"]["version"], party.version + 2);
        assert_eq!(ack["party"]["members"][1]["presence"], "online");
        let replayed = party_frames(&seen);
        let last = replayed.last().unwrap();
        assert_eq!(
            last["change"], "presence",
            "replayed before the ack: {seen:?}"
        );
        assert_eq!(last["party"], ack["party"]);
        let alice = w
            .messages
            .read(&player("alice"), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        let told: Value = serde_json::from_str(&alice.messages.last().unwrap().payload).unwrap();
        assert_eq!(told["change"], "presence");
        assert_eq!(told["playerId"], "bob");
    }

    #[tokio::test]
    async fn given_a_link_to_a_party_that_is_gone_when_resuming_then_party_is_null() {
        let w = world();
        let party = party(&w).await;
        let service = w.service();
        // alice leaves; bob's link stays but he is removed behind the handler's back.
        let left = party.leave(&player("alice")).unwrap();
        w.parties
            .commit(&service.commit_of(&left, T0))
            .await
            .unwrap();
        let mut gone = PartyCommit::on(
            party.party_id.clone(),
            PartyCondition::AtVersion(left.after.version),
            T0,
        );
        gone.write = Some(shared::party::PartyWrite::Delete);
        w.parties.commit(&gone).await.unwrap();
        w.resume("bob", json!({})).await.unwrap();
        let ack = w.seen("c-bob").pop().unwrap();
        assert_eq!(ack["type"], "ack");
        assert_eq!(ack["party"], Value::Null);
    }
}

/// The backend's kick of `connection`, in `to`'s inbox.
fn kick(to: &str, connection: &str, n: i64) -> NewMessage {
    NewMessage {
        payload: ServerFrame::DisconnectedByServer {
            reason: "server restarting".into(),
            connection_id: connection.into(),
        }
        .to_json(),
        message_id: MessageId::deterministic(&["kick", &n.to_string()]),
        recipient_id: player(to),
        sender_id: "game-server".into(),
        kind: MessageKind::Kick,
        created_at: T0 + n,
        expire_at_secs: T0 / 1000 + 86_400,
    }
}

#[tokio::test]
async fn given_a_kick_of_this_connection_waiting_when_it_resumes_then_the_frame_is_replayed_the_socket_closed_and_it_does_not_go_live()
 {
    // Given bob connected on c-bob and, before his resume, the backend kicked c-bob
    let w = world();
    w.connect("bob", "c-bob", T0).await;
    w.append(&[
        chat("bob", 1, T0),
        kick("bob", "c-bob", 2),
        chat("bob", 3, T0),
    ])
    .await;

    // When c-bob resumes
    let response = w.resume("bob", json!({})).await.unwrap();

    // Then the chat before the kick, the kick, then the close; no ack, not live
    assert!(response.body.is_none());
    let posted = w.posted("c-bob");
    assert_eq!(posted.len(), 2, "{posted:?}");
    assert_eq!(posted[0]["n"], 1);
    assert_eq!(posted[1]["type"], "disconnected_by_server");
    assert_eq!(posted[1]["reason"], "server restarting");
    assert!(matches!(
        w.gateway.calls().last(),
        Some(GatewayCall::Delete { connection, .. }) if connection == "c-bob"
    ));
    assert!(!w.record("bob").await.is_live());
}

#[tokio::test]
async fn given_a_kick_of_an_earlier_connection_when_the_next_one_resumes_then_it_is_skipped_and_the_connection_goes_live()
 {
    // Given the backend kicked bob's c-bob-1, and he is back on c-bob-2
    let w = world();
    w.connect("bob", "c-bob-1", T0).await;
    w.append(&[kick("bob", "c-bob-1", 1), chat("bob", 2, T0)])
        .await;
    w.players
        .disconnect(&player("bob"), &connection_of("bob-1"), T0 + 5, T0 + 30_000)
        .await
        .unwrap();
    w.connect("bob", "c-bob-2", T0 + 10).await;

    // When c-bob-2 resumes from the start
    w.resume_on("bob", "c-bob-2", json!({"cursor": 0}))
        .await
        .unwrap();

    // Then the stale kick is not replayed, nothing is closed, and c-bob-2 is live
    let seen = w.seen("c-bob-2");
    assert_eq!(ns(&seen), vec![2]);
    assert_eq!(seen.last().unwrap()["type"], "ack");
    assert_eq!(seen.last().unwrap()["pendingMessages"], 1);
    assert!(
        !w.gateway.calls().iter().any(
            |call| matches!(call, GatewayCall::Delete { connection, .. } if connection == "c-bob-2")
        ),
        "c-bob-2 is not closed"
    );
    assert!(w.record("bob").await.is_live());
}
