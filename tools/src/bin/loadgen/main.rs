//! The messaging load tool: C WebSocket clients, each `resume`s, then sends M
//! `sendMessage` requests to K recipients chosen among the connected clients; every
//! receiver records each `message` frame, whose body carries the send time, so the
//! end-to-end latency (client → gateway → handler → store → stream → PostToConnection →
//! client) is measured on one clock.
//!
//! ```sh
//! ulimit -n 65536            # or rely on the tool raising the soft limit to the hard one
//! cargo run --release -p local &
//! cargo run --release -p tools --bin loadgen -- -c 1000 -m 10 -k 1
//! cargo run --release -p tools --bin loadgen -- -c 5000 -m 0 --hold-seconds 30 --watch-pid $(pgrep -n local)
//! cargo run --release -p tools --bin loadgen -- -c 1000 -m 50 --rate 10000
//! # a deployed stack (JWT mode, HS256):
//! cargo run --release -p tools --bin loadgen -- --url wss://abc.execute-api.eu-west-1.amazonaws.com/Development \
//!     --jwt-hs256-secret "$SECRET" --jwt-issuer https://issuer --jwt-audience game -c 100
//! ```
//!
//! Bounded: C connections, C×M messages, `--duration-limit` seconds overall, and only the
//! `--url` given is ever contacted (the default is the local stack on loopback).
//!
//! A preflight connection through the Rust client checks the URL and credentials first
//! (`preflight` says why the measured connections stay raw sockets); tools/tests/loadgen.rs
//! runs the tool at a tiny size against the local stack.
//!
//! Modules, one job each: `args` (the command line), `run` (the phases: connect, hold,
//! send, drain, stop), `client` (one connection's reader and writer), `connect` (opening
//! and resuming a connection, the preflight, tokens, TLS), `frame` (what the tool reads
//! of a server frame), `state` (what the clients share), `report` (the tables and the
//! RESULT line).

#![allow(unsafe_code)] // raise_nofile_limit: getrlimit/setrlimit through libc, nothing else.
#![allow(clippy::expect_used)] // A benchmark tool: failing to start its runtime ends it, with the message.

mod args;
mod client;
mod connect;
mod frame;
mod report;
mod run;
mod state;

use clap::Parser;

use crate::args::{Args, validate};

fn main() {
    let args = Args::parse();
    if let Err(problem) = validate(&args) {
        eprintln!("loadgen: {problem}");
        std::process::exit(2);
    }
    let nofile = raise_nofile_limit();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("loadgen: cannot start the tokio runtime");
    let code = runtime.block_on(run::run(args, nofile));
    std::process::exit(code);
}

/// Raises the soft open-files limit to the hard limit; returns (soft, hard) after.
fn raise_nofile_limit() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read/write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return (0, 0);
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    (limit.rlim_cur, limit.rlim_max)
}
