//! Logging set-up, once per process (and, in Lambda, the EMF metrics recorder:
//! `crate::metrics`).
//!
//! In Lambda (`AWS_LAMBDA_FUNCTION_NAME` is set) logs are JSON lines so CloudWatch can
//! query the structured fields (`player_id`, `connection_id`, ...); the level is
//! `RUST_LOG`, else `AWS_LAMBDA_LOG_LEVEL` (set by the template's `LogLevel`, through
//! `LoggingConfig`), else `info`.
//! Elsewhere (the local stack, tests) they are compact human-readable lines, coloured
//! only on a terminal (never escape codes in a file or a pipe; `NO_COLOR` turns them off).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::writer::BoxMakeWriter;

pub fn init() {
    init_with(false);
}

/// As [`init`], with every log line on stderr, so that stdout carries only a result
/// (the local stack's `invoke`, like `sam local invoke`, prints the response there).
pub fn init_to_stderr() {
    init_with(true);
}

fn init_with(stderr: bool) {
    let level = std::env::var("RUST_LOG")
        .or_else(|_| std::env::var("AWS_LAMBDA_LOG_LEVEL").map(|l| l.to_lowercase()))
        .unwrap_or_else(|_| "info".to_owned());
    let filter = EnvFilter::try_new(&level).unwrap_or_else(|_| EnvFilter::new("info"));
    let terminal = if stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let colour = terminal && std::env::var_os("NO_COLOR").is_none();
    let writer = if stderr {
        BoxMakeWriter::new(std::io::stderr)
    } else {
        BoxMakeWriter::new(std::io::stdout)
    };
    // `try_init`: a second call (tests, the local stack embedding handlers) is harmless.
    if std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some() {
        init_lambda_json(&level, writer);
        // Metrics are log lines too (EMF), flushed after each invocation.
        crate::metrics::install_for_lambda();
        return;
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(writer)
        .compact()
        .try_init();
}

/// The log lines a function writes in Lambda: one JSON object per event, its fields
/// flattened, no timestamp (CloudWatch stamps every line already), to `writer`. The
/// round-trip benchmark installs it with a byte-counting writer to measure what each
/// operation logs.
///
/// `level` is an `EnvFilter` directive (`info`, `debug`, `send_message=debug`, ...).
pub fn init_lambda_json<W>(level: &str, writer: W)
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(writer)
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .without_time()
        .try_init();
}

/// An error and every cause under it, on one line: `outer: cause: root cause`. Log it
/// as `error = %ErrorChain(&err)`: `%err` alone shows only the outermost message
/// ("store unavailable"), never why.
pub struct ErrorChain<'a>(pub &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("store unavailable")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn the_chain_shows_every_cause_down_to_the_root() {
        let err = Outer(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "connection refused",
        ));
        assert_eq!(
            ErrorChain(&err).to_string(),
            "store unavailable: connection refused"
        );
    }
}
