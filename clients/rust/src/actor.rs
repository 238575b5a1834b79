//! The background task that owns the sockets: connects, resumes, heartbeats, reconnects,
//! rolls over, de-duplicates pushes and matches replies to requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use gamelift_sockets_protocol::domain::GameSession;
use gamelift_sockets_protocol::{ClientRequest, KeepAlive, Route};
use serde_json::{Map, Value, json};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::{Instant, Interval, MissedTickBehavior, interval};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

use crate::dedupe::RecentKeys;
use crate::types::{ClientError, Config, ConnectionState, Event, StopReason};

mod deliver;
mod keep_alive;
mod recovery;
mod requests;
mod seat;
mod upgrade;

pub use seat::{REFRESH_RETRY_INITIAL, REFRESH_RETRY_MAX, refresh_margin};

use keep_alive::timer;

type Sink = SplitSink<WebSocketStream<MaybeTlsStream<TcpStream>>, Message>;
type Reply = oneshot::Sender<Result<Map<String, Value>, ClientError>>;

pub(crate) enum Command {
    Request { frame: ClientRequest, reply: Reply },
    Close,
}

enum Io {
    Connected { conn: u64, sink: Sink },
    Refused { conn: u64, failure: Failure },
    Text { conn: u64, text: String },
    Closed { conn: u64 },
}

enum Failure {
    Status(u16),
    Token(String),
    Network,
}

struct Conn {
    id: u64,
    sink: Sink,
    resume_id: String,
    live: bool,
    /// Being replaced by our own rollover: its `session_replaced` and close are expected.
    retiring: bool,
    closed: bool,
    resume_deadline: Instant,
}

struct Pending {
    route: Route,
    frame: ClientRequest,
    conn: Option<u64>,
    reply: Reply,
}

pub(crate) struct Actor {
    config: Config,
    commands: mpsc::UnboundedReceiver<Command>,
    events: mpsc::UnboundedSender<Event>,
    first_live: Option<oneshot::Sender<Result<(), ClientError>>>,
    io_tx: mpsc::UnboundedSender<Io>,
    io_rx: mpsc::UnboundedReceiver<Io>,
    tasks: HashMap<u64, JoinHandle<()>>,
    current: Option<Conn>,
    candidate: Option<Conn>,
    retired: Vec<Conn>,
    /// A rollover's new socket is being opened.
    opening_candidate: Option<u64>,
    /// When the rollover began (requests wait for the new socket from then on).
    rolling: Option<Instant>,
    rollover_at: Option<Instant>,
    reconnect_at: Option<Instant>,
    next_id: u64,
    pending: HashMap<String, Pending>,
    queue: Vec<String>,
    last_seq: Option<u64>,
    /// The cursor last sent on `resume` or `heartbeat`: what the server has as processed.
    reported_seq: Option<u64>,
    seqs: RecentKeys,
    messages: RecentKeys,
    placements: RecentKeys,
    attempt: u32,
    stopped: bool,
    /// The timer: what the last `resume` ack's `keepAlive` said (or, without one, the
    /// config's interval and idle frame).
    heartbeat: Interval,
    keep_alive: Option<KeepAlive>,
    /// The seat and its refresh schedule; what [`crate::Client::seat`] reads.
    seat: seat::Seat,
    shared_seat: Arc<Mutex<Option<GameSession>>>,
    refreshed_tx: mpsc::UnboundedSender<seat::Refreshed>,
    refreshed_rx: mpsc::UnboundedReceiver<seat::Refreshed>,
}

impl Actor {
    pub(crate) fn new(
        config: Config,
        commands: mpsc::UnboundedReceiver<Command>,
        events: mpsc::UnboundedSender<Event>,
        first_live: oneshot::Sender<Result<(), ClientError>>,
        shared_seat: Arc<Mutex<Option<GameSession>>>,
    ) -> Self {
        let (io_tx, io_rx) = mpsc::unbounded_channel();
        let (refreshed_tx, refreshed_rx) = mpsc::unbounded_channel();
        let window = config.dedupe_window;
        let heartbeat_interval = config.heartbeat_interval;
        Self {
            config,
            commands,
            events,
            first_live: Some(first_live),
            io_tx,
            io_rx,
            tasks: HashMap::new(),
            current: None,
            candidate: None,
            retired: Vec::new(),
            opening_candidate: None,
            rolling: None,
            rollover_at: None,
            reconnect_at: None,
            next_id: 0,
            pending: HashMap::new(),
            queue: Vec::new(),
            last_seq: None,
            reported_seq: None,
            seqs: RecentKeys::new(window),
            messages: RecentKeys::new(window),
            placements: RecentKeys::new(window),
            attempt: 0,
            stopped: false,
            heartbeat: timer(heartbeat_interval),
            keep_alive: None,
            seat: seat::Seat::default(),
            shared_seat,
            refreshed_tx,
            refreshed_rx,
        }
    }

    pub(crate) async fn run(mut self) {
        self.emit(Event::State(ConnectionState::Connecting));
        self.open(false);
        // Deadlines (reconnect, rollover, resume) are checked on a short tick.
        let mut tick = interval(Duration::from_millis(25));
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        while !self.stopped {
            tokio::select! {
                command = self.commands.recv() => match command {
                    Some(Command::Request { frame, reply }) => self.on_request(frame, reply).await,
                    Some(Command::Close) | None => self.stop(StopReason::ClosedByClient).await,
                },
                Some(io) = self.io_rx.recv() => self.on_io(io).await,
                Some(refreshed) = self.refreshed_rx.recv() => self.on_seat_refreshed(refreshed),
                _ = self.heartbeat.tick() => self.beat().await,
                _ = tick.tick() => self.on_tick().await,
            }
        }
        for (_, task) in self.tasks.drain() {
            task.abort();
        }
    }

    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Connects in its own task (token, upgrade), which then reads the socket.
    fn open(&mut self, rollover: bool) {
        let conn = self.next_id();
        let io = self.io_tx.clone();
        let (url, auth) = (self.config.url.clone(), self.config.auth.clone());
        if rollover {
            self.opening_candidate = Some(conn);
        }
        let task = tokio::spawn(async move {
            let request = match upgrade::request(&url, auth).await {
                Ok(request) => request,
                Err(failure) => {
                    let _ = io.send(Io::Refused { conn, failure });
                    return;
                }
            };
            let ws = match connect_async(request).await {
                Ok((ws, _)) => ws,
                Err(WsError::Http(response)) => {
                    let failure = Failure::Status(response.status().as_u16());
                    let _ = io.send(Io::Refused { conn, failure });
                    return;
                }
                Err(_) => {
                    let failure = Failure::Network;
                    let _ = io.send(Io::Refused { conn, failure });
                    return;
                }
            };
            let (sink, mut stream) = ws.split();
            if io.send(Io::Connected { conn, sink }).is_err() {
                return;
            }
            while let Some(Ok(message)) = stream.next().await {
                match message {
                    Message::Text(text) => {
                        let text = text.as_str().to_owned();
                        if io.send(Io::Text { conn, text }).is_err() {
                            return;
                        }
                    }
                    Message::Close(_) => break,
                    _ => {}
                }
            }
            let _ = io.send(Io::Closed { conn });
        });
        self.tasks.insert(conn, task);
    }

    async fn on_io(&mut self, io: Io) {
        if self.stopped {
            return;
        }
        match io {
            Io::Connected { conn, sink } => self.on_connected(conn, sink).await,
            Io::Refused { conn, failure } => self.on_refused(conn, failure).await,
            Io::Text { conn, text } => self.on_text(conn, &text).await,
            Io::Closed { conn } => self.on_closed(conn).await,
        }
    }

    async fn on_connected(&mut self, id: u64, sink: Sink) {
        let resume_id = format!("resume-{}", self.next_id());
        let mut conn = Conn {
            id,
            sink,
            resume_id: resume_id.clone(),
            live: false,
            retiring: false,
            closed: false,
            resume_deadline: Instant::now() + self.config.request_timeout,
        };
        // Nothing is pushed before `resume`; the cursor asks for what came after it.
        let mut resume =
            json!({"route": Route::Resume.as_str(), "requestId": resume_id, "body": {}});
        if let Some(cursor) = self.last_seq {
            resume["body"]["cursor"] = json!(cursor);
        }
        let is_candidate = self.opening_candidate == Some(id);
        if !is_candidate && self.current.is_some() {
            // A connect that is no longer wanted (its rollover was given up).
            let _ = conn.sink.close().await;
            return;
        }
        if conn
            .sink
            .send(Message::text(resume.to_string()))
            .await
            .is_ok()
        {
            self.reported_seq = self.last_seq;
        }
        if is_candidate {
            self.opening_candidate = None;
            self.candidate = Some(conn);
        } else {
            self.current = Some(conn);
        }
    }

    async fn on_refused(&mut self, conn: u64, failure: Failure) {
        self.tasks.remove(&conn);
        if self.opening_candidate == Some(conn) {
            self.opening_candidate = None;
            return self.rollover_failed().await;
        }
        match failure {
            Failure::Status(status @ (401 | 403)) => {
                self.stop(StopReason::Unauthorized(status)).await;
            }
            Failure::Token(why) => self.stop(StopReason::TokenFailed(why)).await,
            Failure::Status(_) | Failure::Network => self.schedule_reconnect().await,
        }
    }

    fn conn_mut(&mut self, id: u64) -> Option<&mut Conn> {
        if self.current.as_ref().is_some_and(|c| c.id == id) {
            return self.current.as_mut();
        }
        if self.candidate.as_ref().is_some_and(|c| c.id == id) {
            return self.candidate.as_mut();
        }
        self.retired.iter_mut().find(|c| c.id == id)
    }

    async fn on_text(&mut self, id: u64, text: &str) {
        let Ok(Value::Object(frame)) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let Some(kind) = frame.get("type").and_then(Value::as_str).map(str::to_owned) else {
            // Not a protocol frame (e.g. API Gateway's `{"message": "Internal server error"}`).
            return;
        };
        let Some(conn) = self.conn_mut(id) else {
            return;
        };
        let (resume_id, retiring) = (conn.resume_id.clone(), conn.retiring);
        let is_current = self.current.as_ref().is_some_and(|c| c.id == id);
        match kind.as_str() {
            "ack" | "error"
                if frame.get("requestId").and_then(Value::as_str) == Some(&resume_id) =>
            {
                self.on_resume(id, kind == "ack", frame).await;
            }
            "ack" | "error" => self.on_reply(kind == "ack", frame),
            // Our own rollover replaced this socket: expected. Otherwise another device took over.
            "session_replaced" if is_current && !retiring => {
                self.stop(StopReason::SessionReplaced).await;
            }
            "session_replaced" | "disconnected" => {}
            _ => self.deliver(frame),
        }
    }

    async fn on_resume(&mut self, id: u64, ok: bool, ack: Map<String, Value>) {
        if !ok {
            // `unavailable` or worse: this socket is no use; its close reconnects.
            if let Some(conn) = self.conn_mut(id) {
                let _ = conn.sink.close().await;
            }
            return;
        }
        let resumed = ack.get("resumed").and_then(Value::as_bool).unwrap_or(false);
        if self.candidate.as_ref().is_some_and(|c| c.id == id) {
            let Some(mut new) = self.candidate.take() else {
                return;
            };
            new.live = true;
            if let Some(mut old) = self.current.replace(new) {
                old.retiring = true;
                self.fail_pending(old.id);
                let _ = old.sink.close().await;
                self.retired.push(old);
            }
            self.rolling = None;
            self.emit(Event::Rollover { resumed });
        } else if let Some(conn) = self.current.as_mut().filter(|c| c.id == id) {
            conn.live = true;
        } else {
            return;
        }
        self.attempt = 0;
        self.follow_keep_alive(&ack);
        // The server's word on the seat (replayed pushes came before this ack).
        if let Some(seat) = seat::seat_of(&ack) {
            self.set_seat(seat);
        }
        self.rollover_at = Some(Instant::now() + self.config.rollover_after);
        self.emit(Event::State(ConnectionState::Live));
        self.emit(Event::Resumed(ack));
        if let Some(first) = self.first_live.take() {
            let _ = first.send(Ok(()));
        }
        self.flush_queue().await;
    }

    async fn on_closed(&mut self, id: u64) {
        self.tasks.remove(&id);
        self.retired.retain(|c| c.id != id);
        if self.candidate.as_ref().is_some_and(|c| c.id == id) {
            self.candidate = None;
            return self.rollover_failed().await;
        }
        match self.current.as_mut() {
            Some(conn) if conn.id == id && conn.retiring => conn.closed = true,
            Some(conn) if conn.id == id => self.lost().await,
            _ => {}
        }
    }

    async fn stop(&mut self, reason: StopReason) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        for conn in [self.current.as_mut(), self.candidate.as_mut()]
            .into_iter()
            .flatten()
        {
            let _ = conn.sink.close().await;
        }
        for (_, pending) in self.pending.drain() {
            let _ = pending.reply.send(Err(ClientError::Closed(reason.clone())));
        }
        self.queue.clear();
        self.emit(Event::State(ConnectionState::Closed));
        self.emit(Event::Closed(reason.clone()));
        if let Some(first) = self.first_live.take() {
            let _ = first.send(Err(ClientError::Closed(reason)));
        }
    }
}
