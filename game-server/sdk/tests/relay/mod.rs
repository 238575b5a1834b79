//! A TCP relay between the SDK and the stack (local_stack.rs), to cut the SDK's socket as a
//! network does.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A TCP relay in front of one of the stack's ports: the SDK connects through it, the
/// test cuts every connection (as a network that drops), and it records what the SDK
/// sent on each connection (readable over ws:// only).
pub struct Relay {
    /// `ws://` or `wss://` `127.0.0.1:{port}` of the relay.
    pub url: String,
    cut: watch::Sender<u64>,
    /// Closed: connections are dropped as soon as they are accepted (a network that
    /// stays down).
    closed: Arc<AtomicBool>,
    accepted: Arc<AtomicUsize>,
    /// The bytes each connection sent upstream, in order of connection.
    sent: Arc<Mutex<Vec<Log>>>,
}

/// The bytes one connection sent upstream.
type Log = Arc<Mutex<Vec<u8>>>;

impl Relay {
    pub async fn start(upstream_url: &str) -> Self {
        let (scheme, upstream) = upstream_url.split_once("://").unwrap();
        let upstream = upstream.to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("{scheme}://{}", listener.local_addr().unwrap());
        let (cut, _) = watch::channel(0u64);
        let accepted = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let sent: Arc<Mutex<Vec<Log>>> = Arc::default();
        let relay = Self {
            url,
            cut: cut.clone(),
            closed: closed.clone(),
            accepted: accepted.clone(),
            sent: sent.clone(),
        };
        tokio::spawn(async move {
            while let Ok((downstream, _)) = listener.accept().await {
                if closed.load(Ordering::SeqCst) {
                    continue;
                }
                accepted.fetch_add(1, Ordering::SeqCst);
                let log: Log = Arc::default();
                sent.lock().unwrap().push(log.clone());
                let mut cut = cut.subscribe();
                let upstream = TcpStream::connect(&upstream).await.unwrap();
                tokio::spawn(async move {
                    let (down_read, down_write) = downstream.into_split();
                    let (up_read, up_write) = upstream.into_split();
                    // Either side ending or the cut drops both halves of both sockets.
                    tokio::select! {
                        () = pipe(down_read, up_write, Some(log)) => {}
                        () = pipe(up_read, down_write, None) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        relay
    }

    /// Drops every open connection.
    pub fn cut(&self) {
        self.cut.send_modify(|generation| *generation += 1);
    }

    /// Cuts every connection and refuses new ones (`false`: lets them through again).
    pub fn set_down(&self, down: bool) {
        self.closed.store(down, Ordering::SeqCst);
        if down {
            self.cut();
        }
    }

    pub fn connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// The `Action` of each request the SDK sent, per connection.
    pub fn actions(&self) -> Vec<Vec<String>> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|log| {
                client_texts(&log.lock().unwrap())
                    .iter()
                    .filter_map(|text| serde_json::from_str::<Value>(text).ok())
                    .filter_map(|frame| frame["Action"].as_str().map(str::to_owned))
                    .collect()
            })
            .collect()
    }
}

async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    log: Option<Log>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if let Some(log) = &log {
            log.lock().unwrap().extend_from_slice(&buffer[..n]);
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// The text frames in a client's side of a WebSocket connection (its HTTP upgrade
/// request first, then masked frames, each unfragmented as tungstenite writes them).
fn client_texts(bytes: &[u8]) -> Vec<String> {
    let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Vec::new();
    };
    let mut rest = &bytes[end + 4..];
    let mut texts = Vec::new();
    while rest.len() >= 2 {
        let opcode = rest[0] & 0x0f;
        let masked = rest[1] & 0x80 != 0;
        let (mut len, mut at) = (usize::from(rest[1] & 0x7f), 2);
        if len == 126 {
            if rest.len() < 4 {
                break;
            }
            len = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
            at = 4;
        } else if len == 127 {
            if rest.len() < 10 {
                break;
            }
            len = usize::try_from(u64::from_be_bytes(rest[2..10].try_into().unwrap())).unwrap();
            at = 10;
        }
        let mask = if masked {
            if rest.len() < at + 4 {
                break;
            }
            at += 4;
            Some([rest[at - 4], rest[at - 3], rest[at - 2], rest[at - 1]])
        } else {
            None
        };
        if rest.len() < at + len {
            break;
        }
        let mut payload = rest[at..at + len].to_vec();
        if let Some(mask) = mask {
            for (i, byte) in payload.iter_mut().enumerate() {
                *byte ^= mask[i % 4];
            }
        }
        if opcode == 1 {
            texts.push(String::from_utf8_lossy(&payload).into_owned());
        }
        rest = &rest[at + len..];
    }
    texts
}
