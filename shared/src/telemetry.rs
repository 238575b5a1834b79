//! Logging set-up, once per process.
//!
//! In Lambda (`AWS_LAMBDA_FUNCTION_NAME` is set) logs are JSON lines so CloudWatch can
//! query the structured fields (`player_id`, `connection_id`, ...); the level follows
//! `AWS_LAMBDA_LOG_LEVEL` (set by the template's `LoggingConfig`) or `RUST_LOG`.
//! Elsewhere (the local stack, tests) they are compact human-readable lines, coloured
//! only on a terminal (never escape codes in a file or a pipe; `NO_COLOR` turns them off).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub fn init() {
    let level = std::env::var("RUST_LOG")
        .or_else(|_| std::env::var("AWS_LAMBDA_LOG_LEVEL").map(|l| l.to_lowercase()))
        .unwrap_or_else(|_| "info".to_owned());
    let filter = EnvFilter::try_new(&level).unwrap_or_else(|_| EnvFilter::new("info"));
    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour);
    // `try_init`: a second call (tests, the local stack embedding handlers) is harmless.
    let _ = if std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some() {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .without_time() // CloudWatch stamps every line already.
            .try_init()
    } else {
        builder.compact().try_init()
    };
}
