//! Opening a connection: the URL and credential form of `--auth`, HS256 tokens, TLS, the
//! `resume` handshake, and the preflight through the Rust client.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use shared::requests::{ClientRequest, CursorBody, Route};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::args::{Args, Auth};
use crate::frame::Frame;
use crate::state::Shared;

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub async fn connect_and_resume(i: usize, shared: &Shared) -> Result<Socket, String> {
    let args = &shared.args;
    let player = shared.player(i);
    let separator = if args.url.contains('?') { '&' } else { '?' };
    let url = match args.auth {
        Auth::QueryPlayerId => format!("{}{separator}playerId={player}", args.url),
        Auth::HeaderPlayerId => args.url.clone(),
        Auth::Token => format!("{}{separator}token={}", args.url, token(args, i, &player)?),
    };
    let mut request = url
        .as_str()
        .into_client_request()
        .map_err(|e| format!("bad request: {e}"))?;
    if args.auth == Auth::HeaderPlayerId {
        let value = HeaderValue::from_str(&player).map_err(|e| format!("bad player id: {e}"))?;
        request.headers_mut().insert("X-Player-Id", value);
    }
    let config = WebSocketConfig::default()
        // tungstenite zeroes this much on every read: frames here are a few hundred bytes.
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_message_size(Some(1 << 20));
    let timeout = Duration::from_secs(args.resume_timeout);
    let connecting = tokio_tungstenite::connect_async_tls_with_config(
        request,
        Some(config),
        true,
        shared.tls.clone(),
    );
    let (mut socket, _) = tokio::time::timeout(timeout, connecting)
        .await
        .map_err(|_| "connect timed out".to_owned())?
        .map_err(|e| format!("connect: {e}"))?;
    let resume = ClientRequest::Resume {
        request_id: Some(Route::Resume.as_str().to_owned()),
        body: CursorBody::default(),
    };
    let resume = serde_json::to_string(&resume).map_err(|e| format!("resume frame: {e}"))?;
    socket
        .send(Message::text(resume))
        .await
        .map_err(|e| format!("send resume: {e}"))?;
    let until = tokio::time::Instant::now() + timeout;
    loop {
        let frame = tokio::time::timeout_at(until, socket.next())
            .await
            .map_err(|_| "no resume ack in time".to_owned())?;
        match frame {
            Some(Ok(Message::Text(text))) => {
                if let Ok(frame) = serde_json::from_str::<Frame<'_>>(&text)
                    && frame.route.as_deref() == Some(Route::Resume.as_str())
                {
                    if frame.kind == "ack" {
                        return Ok(socket);
                    }
                    return Err(format!("resume answered: {text}"));
                }
            }
            Some(Ok(Message::Close(close))) => {
                return Err(format!("closed before the resume ack: {close:?}"));
            }
            Some(Ok(_)) => {}
            Some(Err(error)) => return Err(format!("reading the resume ack: {error}")),
            None => return Err("closed before the resume ack".into()),
        }
    }
}

/// Before the run, one connection of its own player (`<prefix>preflight`, with the run's
/// credential form) through the Rust client (clients/rust): a wrong URL, stage, secret or
/// token ends the run at once with the reason, instead of C failed connects. It is closed
/// before the connect phase and counts in no figure.
///
/// The run's own C connections stay raw sockets: the client adds what would change the
/// figures (a background task with a 25 ms timer and timed heartbeats per connection on
/// the cores the stack shares, silent reconnects where loadgen counts drops, de-duplication
/// where it counts duplicates, its own `requestId`s where loadgen carries the send time).
pub async fn preflight(args: &Args, prefix: &str) -> Result<String, String> {
    use gamelift_sockets_client::{Auth as Credential, Client, ClientError, Config, StopReason};
    let player = format!("{prefix}preflight");
    let auth = match args.auth {
        Auth::QueryPlayerId => Credential::player_id(player.clone()),
        Auth::HeaderPlayerId => Credential::player_id_header(player.clone()),
        Auth::Token => {
            let token = match &args.token_template {
                Some(template) => template
                    .replace("{player}", &player)
                    .replace("{i}", "preflight"),
                None => token(args, 0, &player)?,
            };
            Credential::token(move || std::future::ready(Ok(token.clone())))
        }
    };
    let timeout = Duration::from_secs(args.resume_timeout);
    let mut config = Config::new(args.url.as_str(), auth);
    config.request_timeout = timeout;
    config.max_attempts = Some(0);
    let (client, mut events) = match tokio::time::timeout(timeout, Client::connect(config)).await {
        Err(_) => return Err(format!("{player}: no resume ack within {timeout:?}")),
        Ok(Err(ClientError::Closed(StopReason::Unauthorized(status)))) => {
            return Err(format!(
                "the upgrade was refused with HTTP {status}: a wrong stage in --url, or credentials the stack does not take (--auth, the token or its secret)"
            ));
        }
        Ok(Err(ClientError::Closed(StopReason::GaveUp))) => {
            return Err(format!("could not connect to {}", args.url));
        }
        Ok(Err(error)) => return Err(format!("{player}: {error}")),
        Ok(Ok(connected)) => connected,
    };
    client.close();
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while events.next().await.is_some() {}
    })
    .await;
    Ok(format!(
        "preflight: {player} connected and resumed through the Rust client, then closed"
    ))
}

fn token(args: &Args, i: usize, player: &str) -> Result<String, String> {
    if let Some(template) = &args.token_template {
        return Ok(template
            .replace("{player}", player)
            .replace("{i}", &i.to_string()));
    }
    let secret = args
        .jwt_hs256_secret
        .as_deref()
        .ok_or("--auth token needs --token-template or --jwt-hs256-secret")?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let header = b64.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = json!({
        "sub": player, "iss": args.jwt_issuer, "aud": args.jwt_audience,
        "iat": now, "exp": now + args.duration_limit + 600,
    });
    let claims = b64.encode(claims.to_string());
    let signing_input = format!("{header}.{claims}");
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, secret.as_bytes());
    let signature = aws_lc_rs::hmac::sign(&key, signing_input.as_bytes());
    Ok(format!(
        "{signing_input}.{}",
        b64.encode(signature.as_ref())
    ))
}
