//! The command line: what a run does, against which stack, with which credentials.

use clap::{Parser, ValueEnum};

/// WebSocket load: connections held, messages/s delivered, end-to-end latency.
#[derive(Parser, Debug, Clone)]
#[command(name = "loadgen")]
pub struct Args {
    /// The WebSocket API (ws:// or wss://). Only this address is contacted.
    #[arg(long, default_value = "ws://127.0.0.1:3001/Development")]
    pub url: String,
    /// Clients (one connection each).
    #[arg(short = 'c', long, default_value_t = 1000)]
    pub connections: usize,
    /// Messages each client sends (0: connect, resume and hold only).
    #[arg(short = 'm', long, default_value_t = 10)]
    pub messages: usize,
    /// Recipients per message, distinct, chosen among the connected clients.
    #[arg(short = 'k', long, default_value_t = 1)]
    pub recipients: usize,
    /// Target send rate, messages/s over all clients (0: as fast as possible, with at
    /// most --max-in-flight unacknowledged requests).
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// Unacknowledged sendMessage requests allowed at once, over all clients.
    #[arg(long, default_value_t = 1000)]
    pub max_in_flight: usize,
    /// How clients name themselves.
    #[arg(long, value_enum, default_value_t = Auth::QueryPlayerId)]
    pub auth: Auth,
    /// Player ids are <prefix><i>. Default: `lg<pid>x<unix seconds>-`, new each run, so
    /// a run never resumes the players (and their undelivered messages) of another.
    #[arg(long)]
    pub player_prefix: Option<String>,
    /// `--auth token`: the token of client i, `{player}` and `{i}` substituted; sent as
    /// `?token=`.
    #[arg(long)]
    pub token_template: Option<String>,
    /// `--auth token`: mint HS256 JWTs (sub = player id) with this secret (the
    /// deployment's JWT_HS256_SECRET), instead of --token-template.
    #[arg(long, env = "LOADGEN_JWT_HS256_SECRET", hide_env_values = true)]
    pub jwt_hs256_secret: Option<String>,
    #[arg(long, default_value = "loadgen")]
    pub jwt_issuer: String,
    #[arg(long, default_value = "loadgen")]
    pub jwt_audience: String,
    /// Connection attempts in progress at once.
    #[arg(long, default_value_t = 256)]
    pub connect_concurrency: usize,
    /// Connections opened per second (0: no pacing).
    #[arg(long, default_value_t = 0.0)]
    pub connect_rate: f64,
    /// Seconds to hold every connection open after the connect phase, before sending.
    #[arg(long, default_value_t = 0)]
    pub hold_seconds: u64,
    /// Send `heartbeat` on every connection this often while holding (0: never).
    #[arg(long, default_value_t = 0)]
    pub heartbeat_seconds: u64,
    /// Seconds to wait for a client's `resume` ack.
    #[arg(long, default_value_t = 30)]
    pub resume_timeout: u64,
    /// Seconds to wait, after the last send, for the expected deliveries.
    #[arg(long, default_value_t = 10)]
    pub drain_timeout: u64,
    /// Hard limit on the whole run (seconds).
    #[arg(long, default_value_t = 120)]
    pub duration_limit: u64,
    /// Extra bytes of padding in each message body.
    #[arg(long, default_value_t = 0)]
    pub pad_bytes: usize,
    /// A process to sample RSS from (the local stack): VmRSS when every connection is
    /// established, at the end, and its VmHWM.
    #[arg(long)]
    pub watch_pid: Option<u32>,
    /// No progress lines on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Skip the preflight: one connection through the Rust client, before the run, that
    /// ends it at once (exit 2) when the URL or the credentials are wrong.
    #[arg(long)]
    pub no_preflight: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Auth {
    /// `?playerId=<prefix><i>` (AUTH_MODE=header, the local stack's default).
    QueryPlayerId,
    /// Header `X-Player-Id: <prefix><i>` (AUTH_MODE=header).
    HeaderPlayerId,
    /// `?token=<JWT>` from --token-template or --jwt-hs256-secret (AUTH_MODE=jwt).
    Token,
}

pub fn validate(args: &Args) -> Result<(), String> {
    if !(args.url.starts_with("ws://") || args.url.starts_with("wss://")) {
        return Err(format!("--url {:?}: expected ws:// or wss://", args.url));
    }
    if args.connections == 0 {
        return Err("--connections must be at least 1".into());
    }
    if args.messages > 0 && (args.recipients == 0 || args.recipients > 100) {
        return Err("--recipients must be 1 to 100 (the sendMessage limit)".into());
    }
    if args.messages > 0 && args.connections < 2 {
        return Err("sending needs at least 2 connections".into());
    }
    if args.max_in_flight == 0 || args.connect_concurrency == 0 {
        return Err("--max-in-flight and --connect-concurrency must be at least 1".into());
    }
    let valid_rate = |rate: f64| rate.is_finite() && rate >= 0.0;
    if !valid_rate(args.rate) || !valid_rate(args.connect_rate) {
        return Err("--rate and --connect-rate must be ≥ 0".into());
    }
    if args.auth == Auth::Token && args.token_template.is_none() && args.jwt_hs256_secret.is_none()
    {
        return Err("--auth token needs --token-template or --jwt-hs256-secret".into());
    }
    Ok(())
}
