//! The upgrade request: the URL, with the credential in the query string or a header.

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::handshake::client::Request;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use super::Failure;
use crate::types::Auth;

/// Asks a token provider (if any) for a fresh token and builds the request.
pub(super) async fn request(url: &str, auth: Auth) -> Result<Request, Failure> {
    let separator = if url.contains('?') { '&' } else { '?' };
    let (url, header) = match auth {
        Auth::PlayerId(id) => (format!("{url}{separator}playerId={id}"), None),
        Auth::Token(provider) => {
            let token = provider().await.map_err(Failure::Token)?;
            (format!("{url}{separator}token={token}"), None)
        }
        Auth::PlayerIdHeader(id) => (url.to_owned(), Some(("X-Player-Id", id))),
        Auth::BearerToken(provider) => {
            let token = provider().await.map_err(Failure::Token)?;
            (
                url.to_owned(),
                Some(("Authorization", format!("Bearer {token}"))),
            )
        }
    };
    // A URL that is no WebSocket URL fails as a connect does (the same as before headers).
    let mut request = url.into_client_request().map_err(|_| Failure::Network)?;
    if let Some((name, value)) = header {
        let value = HeaderValue::from_str(&value).map_err(|_| {
            Failure::Token(format!("the {name} value is not a valid HTTP header value"))
        })?;
        request.headers_mut().insert(name, value);
    }
    Ok(request)
}
