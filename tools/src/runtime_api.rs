//! The Lambda Runtime API for one invocation, on 127.0.0.1: what Lambda serves a
//! `provided.al2023` function's `bootstrap` (and what `sam local invoke`'s container
//! serves it, through the runtime interface emulator), so a function's real binary can
//! be run and invoked once on this machine.
//!
//! [`RuntimeApi::bind`] takes a port, [`RuntimeApi::serve`] answers the function's
//! `GET /2018-06-01/runtime/invocation/next` with the event (and the headers Lambda
//! sends) and reports when it was asked (init is over) and what the function posted
//! back; [`run_once`] spawns the binary with the environment Lambda gives it
//! ([`lambda_environment`]) and waits for that outcome. Anything else the function asks
//! this address goes to the caller's [`Other`] (404 without one): `coldstart` answers
//! `@connections` and SSM there.

use std::net::SocketAddr;
use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};

/// Every Lambda binary of the workspace, in deployment order, with the sample event in
/// `events/` it is invoked with (`coldstart`, and the `sam local invoke` test).
pub const SAMPLE_EVENTS: &[(&str, &str)] = &[
    ("authorizer", "authorizer-header-mode.json"),
    ("connect", "connect.json"),
    ("disconnect", "disconnect.json"),
    ("default", "default-not-json.json"),
    ("resume", "resume.json"),
    ("send-message", "send-message.json"),
    ("on-message-inserted", "stream-insert-single.json"),
    (
        "session-placement-request",
        "session-placement-request.json",
    ),
    ("cancel-placement", "cancel-placement.json"),
    ("rejoin-session", "rejoin-session.json"),
    ("on-placement-event", "placement-fulfilled-sns.json"),
    ("presence-timeout", "schedule-presence-timeout.json"),
    ("subscribe-presence", "presence-subscribe.json"),
    ("on-presence-event", "presence-connected.json"),
    ("party", "party-create.json"),
    ("friends", "friends-add.json"),
    ("matchmaking", "start-matchmaking.json"),
    ("on-matchmaking-event", "matchmaking-searching.json"),
    ("backend-api", "backend-api-send-message.json"),
];

/// What the function posted back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutcomeKind {
    /// `POST …/invocation/{id}/response`.
    Response,
    /// `POST …/invocation/{id}/error`.
    Error,
    /// `POST …/init/error`.
    InitError,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Response => "response",
            Self::Error => "error",
            Self::InitError => "init error",
        }
    }
}

/// The function's answer: its kind, when it arrived, and its body (up to 64 KiB).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub at: Instant,
    pub body: String,
}

/// What the API saw, in order.
#[derive(Debug)]
pub enum RuntimeEvent {
    /// The first `GET …/invocation/next`: the function finished init.
    Ready(Instant),
    /// The invocation's outcome.
    Outcome(Outcome),
}

/// One HTTP request the function made to this address.
pub struct Request {
    pub method: String,
    pub path: String,
    /// `X-Amz-Target` (AWS JSON protocols: the operation).
    pub target: Option<String>,
    pub body: Vec<u8>,
    pub received: Instant,
}

/// Answers (a whole HTTP response, see [`http_response`]) what is not the Runtime API.
pub type Other = Arc<dyn Fn(&Request) -> Vec<u8> + Send + Sync>;

/// A bound, not yet serving, Runtime API.
pub struct RuntimeApi {
    listener: TcpListener,
    addr: SocketAddr,
}

/// A serving Runtime API: what it saw, and the task to abort when done.
pub struct Served {
    pub events: mpsc::UnboundedReceiver<RuntimeEvent>,
    pub task: JoinHandle<()>,
}

impl RuntimeApi {
    /// Binds a free port on 127.0.0.1.
    pub async fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        Ok(Self { listener, addr })
    }

    /// `host:port`: the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `event` once to `function` (the name in the invoked ARN); a second poll is
    /// held open, as Lambda holds it while the environment is frozen.
    pub fn serve(self, function: &str, event: Vec<u8>, other: Option<Other>) -> Served {
        let (tx, events) = mpsc::unbounded_channel();
        let server = Server {
            event: Arc::new(event),
            function: function.to_owned(),
            other,
            served: Arc::new(AtomicBool::new(false)),
        };
        let task = tokio::spawn(server.accept(self.listener, tx));
        Served { events, task }
    }
}

#[derive(Clone)]
struct Server {
    event: Arc<Vec<u8>>,
    function: String,
    other: Option<Other>,
    served: Arc<AtomicBool>,
}

impl Server {
    async fn accept(self, listener: TcpListener, events: mpsc::UnboundedSender<RuntimeEvent>) {
        let mut connections = JoinSet::new();
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(1)).await;
                continue;
            };
            let _ = socket.set_nodelay(true);
            connections.spawn(self.clone().connection(socket, events.clone()));
        }
    }

    /// Requests one after another on one keep-alive connection.
    async fn connection(self, mut socket: TcpStream, events: mpsc::UnboundedSender<RuntimeEvent>) {
        let mut buffer = Vec::with_capacity(8192);
        while let Some(request) = read_request(&mut socket, &mut buffer).await {
            let path = request.path.as_str();
            let response =
                if request.method == "GET" && path == "/2018-06-01/runtime/invocation/next" {
                    if self.served.swap(true, Ordering::SeqCst) {
                        std::future::pending::<()>().await;
                        return;
                    }
                    let _ = events.send(RuntimeEvent::Ready(request.received));
                    self.next_response()
                } else if request.method == "POST" && path.starts_with("/2018-06-01/runtime/") {
                    let kind = if path.ends_with("/response") {
                        Some(OutcomeKind::Response)
                    } else if path == "/2018-06-01/runtime/init/error" {
                        Some(OutcomeKind::InitError)
                    } else if path.ends_with("/error") {
                        Some(OutcomeKind::Error)
                    } else {
                        None
                    };
                    match kind {
                        Some(kind) => {
                            let body = String::from_utf8_lossy(&request.body);
                            let _ = events.send(RuntimeEvent::Outcome(Outcome {
                                kind,
                                at: request.received,
                                body: body.chars().take(64 * 1024).collect(),
                            }));
                            http_response(202, "Accepted", &[], br#"{"status":"OK"}"#)
                        }
                        None => http_response(404, "Not Found", &[], b""),
                    }
                } else if let Some(other) = &self.other {
                    other(&request)
                } else {
                    http_response(404, "Not Found", &[], b"")
                };
            if socket.write_all(&response).await.is_err() {
                return;
            }
        }
    }

    /// The invocation, with the headers Lambda sends.
    fn next_response(&self) -> Vec<u8> {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let headers = [
            (
                "Lambda-Runtime-Aws-Request-Id",
                format!("c0ld5747-0000-4000-8000-{now_ms:012x}"),
            ),
            ("Lambda-Runtime-Deadline-Ms", (now_ms + 10_000).to_string()),
            (
                "Lambda-Runtime-Invoked-Function-Arn",
                format!(
                    "arn:aws:lambda:us-east-1:123456789012:function:{}",
                    self.function
                ),
            ),
            (
                "Lambda-Runtime-Trace-Id",
                "Root=1-67a88a42-1d2c3b4a5e6f708192a3b4c5;Parent=53995c3f42cd8ad8;Sampled=0"
                    .to_owned(),
            ),
        ];
        http_response(200, "OK", &headers, &self.event)
    }
}

/// The variables Lambda itself gives every `provided.al2023` function (its own come from
/// the template), for `function` polling `runtime_api`. Not the credentials and region:
/// the caller chooses those.
pub fn lambda_environment(function: &str, runtime_api: SocketAddr) -> Vec<(String, String)> {
    [
        ("AWS_LAMBDA_RUNTIME_API", runtime_api.to_string()),
        ("AWS_LAMBDA_FUNCTION_NAME", function.to_owned()),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128".to_owned()),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST".to_owned()),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".to_owned()),
        ("AWS_LAMBDA_LOG_FORMAT", "JSON".to_owned()),
        (
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{function}"),
        ),
        (
            "AWS_LAMBDA_LOG_STREAM_NAME",
            "2026/11/22/[$LATEST]0123456789abcdef".to_owned(),
        ),
        ("AWS_EXECUTION_ENV", "AWS_Lambda_provided.al2023".to_owned()),
        ("TZ", ":UTC".to_owned()),
        ("LAMBDA_TASK_ROOT", "/var/task".to_owned()),
        ("LANG", "en_US.UTF-8".to_owned()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect()
}

/// How a run ended when the function posted nothing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ended {
    /// The process ended before answering (a configuration error, a panic at init).
    Exited(String),
    TimedOut,
    /// The Runtime API stopped (it never does on its own).
    Stopped,
}

/// One spawned binary's invocation.
#[derive(Debug)]
pub struct Run {
    pub started: Instant,
    /// When it first asked for an invocation (its init was over).
    pub ready: Option<Instant>,
    pub result: Result<Outcome, Ended>,
    /// `VmHWM` (peak RSS, KiB) read after the outcome, before the kill, when asked for.
    pub hwm_kb: Option<u64>,
}

/// Spawns `command` (its environment already set, `AWS_LAMBDA_RUNTIME_API` among it),
/// waits up to `timeout` for the outcome `served` reports, then kills it.
pub async fn run_once(
    mut command: Command,
    mut served: Served,
    timeout: Duration,
    measure_hwm: bool,
) -> Run {
    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            served.task.abort();
            return Run {
                started,
                ready: None,
                result: Err(Ended::Exited(format!("spawn failed: {error}"))),
                hwm_kb: None,
            };
        }
    };
    let deadline = tokio::time::Instant::from_std(started + timeout);
    let mut ready = None;
    let result = loop {
        tokio::select! {
            event = served.events.recv() => match event {
                Some(RuntimeEvent::Ready(at)) => ready = Some(at),
                Some(RuntimeEvent::Outcome(outcome)) => break Ok(outcome),
                None => break Err(Ended::Stopped),
            },
            () = tokio::time::sleep(Duration::from_millis(2)) => {
                if let Ok(Some(status)) = child.try_wait() {
                    break Err(Ended::Exited(status.to_string()));
                }
            }
            () = tokio::time::sleep_until(deadline) => break Err(Ended::TimedOut),
        }
    };
    let hwm_kb = if measure_hwm && result.is_ok() {
        vm_hwm_kb(child.id())
    } else {
        None
    };
    stop(&mut child);
    served.task.abort();
    Run {
        started,
        ready,
        result,
        hwm_kb,
    }
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A whole HTTP/1.1 response with a JSON content type.
pub fn http_response(
    status: u16,
    reason: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// One HTTP/1.1 request (Content-Length or chunked body), or None at end of stream.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Request> {
    let head_end = loop {
        if let Some(pos) = find(buffer, b"\r\n\r\n") {
            break pos + 4;
        }
        if buffer.len() > 64 * 1024 || !fill(socket, buffer).await {
            return None;
        }
    };
    let received = Instant::now();
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end);
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let mut content_length = 0usize;
    let mut chunked = false;
    let mut target = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "x-amz-target" {
                target = Some(value.to_owned());
            } else if name == "content-length" {
                content_length = value.parse().ok()?;
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let body = if chunked {
        read_chunked(socket, buffer).await?
    } else {
        while buffer.len() < content_length {
            if !fill(socket, buffer).await {
                return None;
            }
        }
        buffer.drain(..content_length).collect()
    };
    Some(Request {
        method,
        path,
        target,
        body,
        received,
    })
}

async fn read_chunked(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(pos) = find(buffer, b"\r\n") {
                break pos;
            }
            if !fill(socket, buffer).await {
                return None;
            }
        };
        let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        buffer.drain(..line_end + 2);
        if size == 0 {
            // Trailers, then the empty line.
            loop {
                if let Some(pos) = find(buffer, b"\r\n") {
                    let empty = pos == 0;
                    buffer.drain(..pos + 2);
                    if empty {
                        return Some(body);
                    }
                } else if !fill(socket, buffer).await {
                    return None;
                }
            }
        }
        while buffer.len() < size + 2 {
            if !fill(socket, buffer).await {
                return None;
            }
        }
        body.extend_from_slice(&buffer[..size]);
        buffer.drain(..size + 2);
    }
}

async fn fill(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buffer.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
