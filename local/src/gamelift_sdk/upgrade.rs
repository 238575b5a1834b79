//! Accepting sockets: TCP (and TLS on the wss:// port), then the WebSocket upgrade on
//! any path, checked before it is accepted. A refused upgrade is an HTTP 4xx whose body
//! says what is expected: the SDKs surface the status, a person reads the body.

use std::sync::Arc;

use gamelift_server_protocol::ConnectQuery;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;

use super::GameServers;
use super::socket;
use crate::console::feed::{Entry, FeedKind};

/// Accepts until shutdown; each socket runs on its own task.
pub(super) async fn accept_loop(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    servers: Arc<GameServers>,
    shutdown: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = crate::gateway::shutting_down(shutdown.clone()) => return,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::debug!(%error, "server SDK endpoint: accept failed");
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let servers = servers.clone();
        let tls = tls.clone();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            match tls {
                None => handshake(tcp, servers, stop, false).await,
                Some(acceptor) => match acceptor.accept(tcp).await {
                    Ok(stream) => handshake(stream, servers, stop, true).await,
                    Err(error) => {
                        tracing::info!(%peer, %error, "server SDK endpoint: TLS handshake failed");
                    }
                },
            }
        });
    }
}

/// The upgrade: checked, then the socket served.
async fn handshake<S>(
    stream: S,
    servers: Arc<GameServers>,
    shutdown: watch::Receiver<bool>,
    over_tls: bool,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut accepted: Option<ConnectQuery> = None;
    // tungstenite's `Callback` fixes this signature, large error and all.
    #[allow(clippy::result_large_err)]
    let check = |request: &Request, response: Response| -> Result<Response, ErrorResponse> {
        let query = request.uri().query().unwrap_or_default();
        match admit(&servers, query) {
            Ok(parsed) => {
                accepted = Some(parsed);
                Ok(response)
            }
            Err((status, body)) => {
                tracing::warn!(path = %request.uri().path(), %status, body, "server SDK upgrade refused");
                servers.hub.record(
                    FeedKind::GameServer,
                    crate::time::now_millis(),
                    Entry {
                        player_ids: Vec::new(),
                        connection_id: None,
                        summary: format!("game server upgrade refused ({status}): {body}"),
                        detail: Some(format!("{}?{query}", request.uri().path())),
                    },
                );
                let mut refusal = ErrorResponse::new(Some(body));
                *refusal.status_mut() = status;
                Err(refusal)
            }
        }
    };
    let ws = match tokio_tungstenite::accept_hdr_async(stream, check).await {
        Ok(ws) => ws,
        Err(error) => {
            tracing::debug!(%error, "server SDK endpoint: no WebSocket");
            return;
        }
    };
    if let Some(query) = accepted {
        socket::serve(ws, query, servers, shutdown, over_tls).await;
    }
}

/// The query, or the status and body of a refusal.
fn admit(servers: &GameServers, query: &str) -> Result<ConnectQuery, (StatusCode, String)> {
    let parsed =
        ConnectQuery::parse(query).map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
    let fleet = &servers.endpoint.fleet_id;
    if &parsed.fleet_id != fleet {
        return Err((
            StatusCode::FORBIDDEN,
            format!(
                "FleetId {:?} is not this stack's fleet: expected FleetId={fleet} \
                 (GAMELIFT_SDK_FLEET_ID; the simulator's SIM_FLEET_ID)",
                parsed.fleet_id
            ),
        ));
    }
    // SigV4's signature is not checked: no AWS credentials exist locally.
    if parsed.is_sigv4() {
        return Ok(parsed);
    }
    match parsed.authorization.as_deref() {
        Some(token) if servers.accepts_token(token) => Ok(parsed),
        Some(_) => Err((
            StatusCode::UNAUTHORIZED,
            "Authorization is not a token this stack issued: expected the \
             GAMELIFT_SDK_AUTH_TOKEN its banner prints (or one a RefreshConnection gave), or \
             SigV4"
                .to_owned(),
        )),
        None => Err((
            StatusCode::UNAUTHORIZED,
            "the query has no Authorization: export GAMELIFT_SDK_AUTH_TOKEN as the stack's \
             banner prints it (or sign with SigV4)"
                .to_owned(),
        )),
    }
}
