//! The page and its scripts and styles, embedded in the binary (nothing is fetched from
//! elsewhere at run time; no build step: plain HTML, CSS and JavaScript).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::api::error;

const INDEX: &str = include_str!("assets/index.html");

/// `(name, content type, text)` of each asset under `/console/assets/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "console.css",
        "text/css; charset=utf-8",
        include_str!("assets/console.css"),
    ),
    (
        "console.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/console.js"),
    ),
    (
        "views.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/views.js"),
    ),
    (
        "client.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/client.js"),
    ),
];

/// The page's own policy: scripts, styles and connections from this origin only.
const CSP: &str = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; \
                   style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; \
                   frame-ancestors 'none'";

/// `GET /console`.
pub async fn index() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::CACHE_CONTROL, "no-store"),
        ],
        INDEX,
    )
        .into_response()
}

/// `GET /console/assets/{name}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, text)) => (
            [
                (header::CONTENT_TYPE, *content_type),
                (header::CACHE_CONTROL, "no-store"),
            ],
            *text,
        )
            .into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no console asset {name:?}"),
        )
        .into_response(),
    }
}
