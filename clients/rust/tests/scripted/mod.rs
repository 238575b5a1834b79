//! What the scripted-server tests share: a listener on a free local port, and a client's
//! text frame read as JSON.

use serde_json::Value;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// A listener on a free port of 127.0.0.1, and the `ws://…/stage` URL a client connects to.
pub async fn listen() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/stage", listener.local_addr().unwrap());
    (listener, url)
}

/// The frame a text message carries; `None` for other messages (pings, closes).
pub fn frame_of(message: Message) -> Option<Value> {
    let Message::Text(text) = message else {
        return None;
    };
    Some(serde_json::from_str(text.as_str()).unwrap())
}
