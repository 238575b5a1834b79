//! The end-to-end harness: the local stack started in-process on a random port, and a
//! WebSocket client speaking the client protocol over a real socket.
//!
//! That client stays a raw socket on purpose, not the Rust client (clients/rust): the
//! suites send malformed and fragmented frames and check exact frames, close codes and
//! duplicates that the client exists to hide. The client has its own suites
//! (`rust_client`, `rust_client_routes`), and the smoke tool plays its players with it.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use local::gamelift::{DesiredPlayer, GroupPlacementRequest};
use local::{LocalStack, RunningStack, Settings};
use serde_json::Value;
use shared::domain::{PlacementId, PlayerId, PresenceStatus};
use shared::placement::PlacementRecord;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

/// How long `next_frame` and `expect_close` wait by default.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a `resume` may take to be acknowledged: its ack comes after the replay and
/// the hand-over's transaction, which a loaded DynamoDB Local can take seconds over.
pub const RESUME_TIMEOUT: Duration = Duration::from_secs(15);

/// How long the `wait_for_stream_*` helpers wait.
pub const STREAM_TIMEOUT: Duration = Duration::from_secs(5);

/// A local stack for one test.
pub struct TestStack {
    stack: RunningStack,
    /// Whether its clients check every frame against protocol/schema.json (the default).
    check_frames: bool,
}

impl TestStack {
    /// The demo defaults on a random port.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// The demo defaults on a random port, adjusted by `adjust`.
    pub async fn start_with(adjust: impl FnOnce(&mut Settings)) -> Self {
        Self::start_custom(adjust, |_| {}).await
    }

    /// As [`TestStack::start_with`], with every handler, the sweeper and the gateway's
    /// timestamps on `clock` (the gateway's idle timers stay on real time).
    pub async fn start_with_clock(
        adjust: impl FnOnce(&mut Settings),
        clock: shared::ports::ManualClock,
    ) -> Self {
        Self::build_and_start(adjust, |_| {}, std::sync::Arc::new(clock)).await
    }

    /// As [`TestStack::start_with`], and `customize` may change the assembled stack
    /// (wrap or add routes) before it serves.
    pub async fn start_custom(
        adjust: impl FnOnce(&mut Settings),
        customize: impl FnOnce(&mut LocalStack),
    ) -> Self {
        let clock = std::sync::Arc::new(shared::ports::SystemClock);
        Self::build_and_start(adjust, customize, clock).await
    }

    async fn build_and_start(
        adjust: impl FnOnce(&mut Settings),
        customize: impl FnOnce(&mut LocalStack),
        clock: std::sync::Arc<dyn shared::ports::Clock>,
    ) -> Self {
        let mut settings = Settings::default();
        settings.gateway.port = 0;
        adjust(&mut settings);
        let mut stack = LocalStack::build_with_clock(settings, clock)
            .await
            .unwrap_or_else(|e| panic!("the local stack did not build: {e}"));
        customize(&mut stack);
        let stack = stack
            .start()
            .await
            .unwrap_or_else(|e| panic!("the local stack did not start: {e}"));
        Self {
            stack,
            check_frames: true,
        }
    }

    /// Its clients no longer check frames against protocol/schema.json: for stacks whose
    /// test routes, or raw management API posts, send frames outside the protocol.
    pub fn without_schema_check(mut self) -> Self {
        self.check_frames = false;
        self
    }

    /// `ws://127.0.0.1:{port}/{stage}`
    pub fn url(&self) -> String {
        self.stack.url()
    }

    /// `http://127.0.0.1:{port}/{stage}`
    pub fn management_endpoint(&self) -> String {
        self.stack.management_endpoint()
    }

    /// `http://127.0.0.1:{port}`: the backend API's base URL.
    pub fn backend_api_url(&self) -> String {
        self.stack.backend_api_url()
    }

    /// Calls the backend API: `method path` with a JSON `body`.
    pub async fn backend_api(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> crate::http::HttpResponse {
        let body = body.map(|b| b.to_string());
        crate::http::request(&self.backend_api_url(), method, path, body.as_deref(), &[]).await
    }

    pub fn stack(&self) -> &RunningStack {
        &self.stack
    }

    /// Connects as `player` and sends `resume` (what every client does first: pushed
    /// frames flow only after it); returns the client and the ack. Frames the resume
    /// replays are left to read.
    pub async fn online(&self, player: &str) -> (Client, Value) {
        let mut client = self.connect(player).await;
        let ack = client.resume(None).await;
        (client, ack)
    }

    /// The test hook for placing `players` together, as a matchmaker would ask for it: one
    /// PENDING placement of theirs (the first asks) on "default-queue", and the simulator
    /// asked to place them in one game. The placement's id.
    pub async fn place_together(&self, players: &[&str]) -> PlacementId {
        let ids: Vec<PlayerId> = players
            .iter()
            .map(|p| PlayerId::parse(*p).unwrap())
            .collect();
        let now = shared::ports::Clock::now_millis(&shared::ports::SystemClock);
        let placement_id = PlacementId::new_at(now);
        let mut record =
            PlacementRecord::pending(placement_id.clone(), ids[0].clone(), "default-queue", now);
        record.player_ids = ids.clone();
        let stack = self.stack();
        let stores = &stack.dependencies().stores;
        stores.placement_recorder().create(&record).await.unwrap();
        stack
            .simulator()
            .start_group_placement(GroupPlacementRequest {
                placement_id: placement_id.clone(),
                queue: "default-queue".into(),
                max_players: 8,
                players: ids
                    .into_iter()
                    .map(|player_id| DesiredPlayer {
                        player_id,
                        player_data: None,
                    })
                    .collect(),
                matchmaker_data: None,
            })
            .unwrap();
        placement_id
    }

    /// Connects as `player` with `?playerId=` (AUTH_MODE=header); panics if refused.
    pub async fn connect(&self, player: &str) -> Client {
        self.connect_query(&format!("playerId={player}"))
            .await
            .unwrap_or_else(|status| panic!("connecting as {player} was refused with {status}"))
    }

    /// Connects to the stage URL with a raw query string; `Err(status)` if the upgrade
    /// was refused.
    pub async fn connect_query(&self, query: &str) -> Result<Client, u16> {
        self.connect_url(&format!("{}?{query}", self.url())).await
    }

    /// Connects to the stage URL with one extra request header (e.g. `Authorization`);
    /// `Err(status)` if the upgrade was refused.
    pub async fn connect_with_header(&self, name: &str, value: &str) -> Result<Client, u16> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
        let mut request = self
            .url()
            .into_client_request()
            .expect("the stage URL is a WebSocket URL");
        request.headers_mut().insert(
            HeaderName::from_bytes(name.as_bytes()).expect("a valid header name"),
            HeaderValue::from_str(value).expect("a valid header value"),
        );
        match connect_async_with_config(request, None, true).await {
            Ok((ws, _response)) => Ok(Client::new(ws, self.check_frames)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(other) => panic!("connecting with {name} failed: {other}"),
        }
    }

    /// Connects to any URL; `Err(status)` if the upgrade was refused.
    pub async fn connect_url(&self, url: &str) -> Result<Client, u16> {
        // TCP_NODELAY, as a latency-minded game client would: frames go out at once.
        match connect_async_with_config(url, None, true).await {
            Ok((ws, _response)) => Ok(Client::new(ws, self.check_frames)),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(other) => panic!("connecting to {url} failed: {other}"),
        }
    }

    /// `player`'s record in the player store (they must have one).
    pub async fn record(&self, player: &str) -> shared::players::PlayerRecord {
        let id = PlayerId::parse(player).expect("a valid player id");
        self.stack
            .players()
            .get(&id)
            .await
            .expect("the store answers")
            .unwrap_or_else(|| panic!("{player} has no record"))
    }

    /// The id of `player`'s current connection, from the player store.
    pub async fn connection_id(&self, player: &str) -> String {
        self.record(player).await.connection_id.to_string()
    }

    /// The GetPlayerConnectionDetails calls the simulator has answered so far.
    pub fn connection_details_calls(&self) -> u64 {
        self.stack.simulator().snapshot().connection_details_calls
    }

    /// Closes `player`'s `client` and waits until `$disconnect` has run (the store shows
    /// them Disconnected, within their reconnect grace period).
    pub async fn close(&self, client: Client, player: &str) {
        client.close().await;
        self.wait_for_status(player, PresenceStatus::Disconnected)
            .await;
    }

    /// Waits until the store shows `player` with `status` (e.g. `Disconnected` once
    /// `$disconnect` has run).
    pub async fn wait_for_status(&self, player: &str, status: PresenceStatus) {
        let id = PlayerId::parse(player).expect("a valid player id");
        let deadline = tokio::time::Instant::now() + FRAME_TIMEOUT;
        loop {
            let record = self
                .stack
                .players()
                .get(&id)
                .await
                .expect("the store answers");
            if record.as_ref().is_some_and(|r| r.status == status) {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{player} is not {status:?}: {record:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until the Messages stream's consumer has nothing waiting or in flight
    /// (every record received so far is delivered, kept for replay, or skipped).
    pub async fn wait_for_stream_idle(&self) -> local::StreamStatsSnapshot {
        self.wait_for_stream_records(0).await
    }

    /// Waits until the consumer has finished with at least `records` records and has
    /// nothing in flight. On DynamoDB the poller has to read them first, so name how
    /// many are expected.
    pub async fn wait_for_stream_records(&self, records: u64) -> local::StreamStatsSnapshot {
        let deadline = tokio::time::Instant::now() + STREAM_TIMEOUT;
        loop {
            let stats = self.stack.stream_stats();
            if stats.is_idle() && stats.completed >= records {
                return stats;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the stream consumer did not finish {records} record(s): {stats:?}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Every unexpired message in `player`'s inbox, oldest first.
    pub async fn inbox(&self, player: &str) -> Vec<shared::messaging::StoredMessage> {
        let id = PlayerId::parse(player).expect("a valid player id");
        let now = shared::ports::Clock::now_millis(self.stack.dependencies().clock.as_ref());
        self.stack
            .dependencies()
            .stores
            .inbox_reader()
            .read(&id, &shared::messaging::ReplayFrom::EVERYTHING, now)
            .await
            .expect("the store answers")
            .messages
    }

    /// Waits until no connection is registered (every close processed).
    pub async fn wait_until_no_connections(&self) {
        let deadline = tokio::time::Instant::now() + FRAME_TIMEOUT;
        while !self.stack.connections().is_empty() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "connections still open: {:?}",
                self.stack.connections().ids()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn shutdown(self) {
        self.stack.shutdown().await;
    }
}

/// One text message cut into frames of at most 30 KiB (a message over API Gateway's
/// 32 KB frame limit can only be sent this way), each sent with
/// `client.send_message(Message::Frame(frame))`.
pub fn fragmented(text: &str) -> Vec<Frame> {
    let chunks: Vec<Vec<u8>> = text
        .as_bytes()
        .chunks(30 * 1024)
        .map(<[u8]>::to_vec)
        .collect();
    let last = chunks.len().saturating_sub(1);
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let opcode = if i == 0 { Data::Text } else { Data::Continue };
            Frame::message(chunk, OpCode::Data(opcode), i == last)
        })
        .collect()
}

/// What arrived instead of the expected frame.
#[derive(Debug)]
pub enum Received {
    Text(String),
    Binary(Vec<u8>),
    Close(Option<u16>),
    Ended,
    Error(String),
    Nothing,
}

/// A game client on a real WebSocket. It remembers the highest `seq` of the frames it
/// received, the cursor a real client would report on its next `resume`.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    last_seq: Option<u64>,
    /// Frames read while waiting for a `resume` ack (the replay comes before it),
    /// handed out first by [`Client::receive`].
    pending: std::collections::VecDeque<String>,
    /// Checks every frame received against protocol/schema.json.
    check_frames: bool,
}

impl Client {
    fn new(ws: WebSocketStream<MaybeTlsStream<TcpStream>>, check_frames: bool) -> Self {
        Self {
            ws,
            last_seq: None,
            pending: std::collections::VecDeque::new(),
            check_frames,
        }
    }

    /// The highest `seq` received on this socket.
    pub fn cursor(&self) -> Option<u64> {
        self.last_seq
    }

    /// Sends `resume` (with `cursor` if given) and returns its ack; panics if the reply
    /// is an error. The ack comes after the replayed frames: those stay queued, in
    /// order, for the next reads.
    pub async fn resume(&mut self, cursor: Option<u64>) -> Value {
        let body = match cursor {
            Some(cursor) => serde_json::json!({ "cursor": cursor }),
            None => serde_json::json!({}),
        };
        self.send_json(serde_json::json!({ "route": "resume", "body": body }))
            .await;
        let mut replayed = Vec::new();
        let ack = loop {
            let text = match self.read(RESUME_TIMEOUT).await {
                Received::Text(text) => text,
                other => panic!("expected the resume ack, got {other:?}"),
            };
            let frame: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("frame is not JSON ({e}): {text}"));
            if frame["route"] == "resume" {
                break frame;
            }
            replayed.push(text);
        };
        assert_eq!(ack["type"], "ack", "{ack}");
        self.pending.extend(replayed);
        ack
    }

    pub async fn send_json(&mut self, value: Value) {
        self.send_text(&value.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::text(text))
            .await
            .expect("sending a text frame");
    }

    pub async fn send_message(&mut self, message: Message) {
        self.ws.send(message).await.expect("sending a frame");
    }

    /// Sends `{"route": route}` with `body` and returns the next frame.
    pub async fn request(&mut self, route: &str, body: Value) -> Value {
        self.send_json(serde_json::json!({ "route": route, "body": body }))
            .await;
        self.next_frame().await
    }

    /// The next data or close frame (pings and pongs are skipped), within `wait`.
    pub async fn receive(&mut self, wait: Duration) -> Received {
        match self.pending.pop_front() {
            Some(text) => Received::Text(text),
            None => self.read(wait).await,
        }
    }

    /// The next frame off the socket itself.
    async fn read(&mut self, wait: Duration) -> Received {
        let next = async {
            loop {
                match self.ws.next().await {
                    Some(Ok(Message::Text(text))) => {
                        if self.check_frames {
                            crate::schema::assert_server_frame(text.as_str());
                        }
                        if let Some(seq) = serde_json::from_str::<Value>(text.as_str())
                            .ok()
                            .and_then(|frame| frame["seq"].as_u64())
                        {
                            self.last_seq = Some(self.last_seq.map_or(seq, |last| last.max(seq)));
                        }
                        return Received::Text(text.to_string());
                    }
                    Some(Ok(Message::Binary(bytes))) => return Received::Binary(bytes.to_vec()),
                    Some(Ok(Message::Close(frame))) => {
                        return Received::Close(frame.map(|f| u16::from(f.code)));
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Received::Error(e.to_string()),
                    None => return Received::Ended,
                }
            }
        };
        tokio::time::timeout(wait, next)
            .await
            .unwrap_or(Received::Nothing)
    }

    /// The next frame as JSON; panics after [`FRAME_TIMEOUT`] or on anything else.
    pub async fn next_frame(&mut self) -> Value {
        self.next_frame_within(FRAME_TIMEOUT).await
    }

    /// The next frame as JSON within `wait`; panics otherwise.
    pub async fn next_frame_within(&mut self, wait: Duration) -> Value {
        match self.receive(wait).await {
            Received::Text(text) => serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("frame is not JSON ({e}): {text}")),
            other => panic!("expected a JSON frame, got {other:?}"),
        }
    }

    /// Waits for the server's close frame and returns its code; panics on a data frame.
    pub async fn expect_close(&mut self) -> u16 {
        self.expect_close_within(FRAME_TIMEOUT).await
    }

    pub async fn expect_close_within(&mut self, wait: Duration) -> u16 {
        match self.receive(wait).await {
            Received::Close(Some(code)) => code,
            other => panic!("expected a close frame with a code, got {other:?}"),
        }
    }

    /// Asserts nothing arrives for `wait` (the socket stays open and quiet).
    pub async fn expect_no_frame(&mut self, wait: Duration) {
        match self.receive(wait).await {
            Received::Nothing => {}
            other => panic!("expected nothing for {wait:?}, got {other:?}"),
        }
    }

    /// Drops the TCP connection without a closing handshake, as a client that loses
    /// its network does: the server sees the socket end abnormally (1006).
    pub fn vanish(self) {
        drop(self.ws);
    }

    /// Closes normally (1000) and waits for the server's reply.
    pub async fn close(mut self) {
        let _ = self
            .ws
            .close(Some(CloseFrame {
                code: 1000.into(),
                reason: "bye".into(),
            }))
            .await;
        let _ = tokio::time::timeout(FRAME_TIMEOUT, async {
            while let Some(Ok(_)) = self.ws.next().await {}
        })
        .await;
    }
}
