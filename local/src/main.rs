//! `cargo run -p local`: the local stack until Ctrl-C (or SIGTERM).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use local::invoke_once::{FUNCTIONS, InvokeOnceError, invoke_once};
use local::{ReadError, Settings};

/// mimalloc, not glibc's malloc: a message through the stack makes about 120 small
/// allocations (events, frames, records, as Lambda's types have them), and mimalloc's
/// per-thread free lists take them for less CPU (BENCHMARKS.md, "Issue 34, fourth
/// fixes"). The Lambda functions keep the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|arg| arg == "invoke") {
        return invoke(&args);
    }
    match settings_and_runtime("local stack", args) {
        Ok((settings, runtime)) => runtime.block_on(run(settings)),
        Err(code) => code,
    }
}

/// The settings `flags` say, and the runtime to run on; else what `who` printed and its
/// exit code.
fn settings_and_runtime(
    who: &str,
    flags: impl IntoIterator<Item = OsString>,
) -> Result<(Settings, tokio::runtime::Runtime), ExitCode> {
    let settings = match Settings::read(flags, |name| std::env::var_os(name)) {
        Ok(settings) => settings,
        // --help, --version, an unknown flag: clap's own answer and exit code.
        Err(ReadError::Usage(error)) => error.exit(),
        Err(ReadError::Invalid(error)) => {
            invalid_settings(who, &error.problems);
            return Err(ExitCode::FAILURE);
        }
    };
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Ok((settings, runtime)),
        Err(error) => {
            eprintln!("{who}: cannot start the async runtime: {error}");
            Err(ExitCode::FAILURE)
        }
    }
}

fn invalid_settings(who: &str, problems: &[String]) {
    eprintln!("{who}: invalid settings (see --help):");
    for problem in problems {
        eprintln!("  - {problem}");
    }
}

async fn run(settings: Settings) -> ExitCode {
    shared::telemetry::init();
    for line in settings.summary() {
        tracing::debug!("setting {line}");
    }
    let stack = match local::start(settings.clone()).await {
        Ok(stack) => stack,
        Err(local::StartError::Settings(error)) => {
            invalid_settings("local stack", &error.problems);
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("local stack: {}", shared::telemetry::ErrorChain(&error));
            return ExitCode::FAILURE;
        }
    };
    for line in local::banner::banner(&settings, &stack) {
        println!("{line}");
    }
    wait_for_signal().await;
    println!("shutting down: closing every connection (1001)");
    stack.shutdown().await;
    ExitCode::SUCCESS
}

const INVOKE_USAGE: &str = "usage: local invoke <function> <event.json> [settings flags, as for \
the stack: --dynamodb-endpoint URL, --auth-mode jwt, ...]";

/// `local invoke <function> <event.json> [flags]`: the function's real handler, once, on
/// the event file, against the stack's storage; its response JSON on stdout (logs on
/// stderr), as `sam local invoke` prints it. Exit 0 when the function returned, 1 when it
/// failed or the event file is bad, 2 for a usage error (an unknown function, no file).
fn invoke(args: &[OsString]) -> ExitCode {
    let (Some(function), Some(event)) = (args.get(2), args.get(3)) else {
        if args.get(2).is_some_and(|a| a == "--help" || a == "-h") {
            println!("{INVOKE_USAGE}\nfunctions: {}", FUNCTIONS.join(", "));
            return ExitCode::SUCCESS;
        }
        eprintln!(
            "local invoke: {INVOKE_USAGE}\nfunctions: {}",
            FUNCTIONS.join(", ")
        );
        return ExitCode::from(2);
    };
    let function = function.to_string_lossy().into_owned();
    let event = PathBuf::from(event);
    let program = args.first().cloned().unwrap_or_else(|| "local".into());
    let flags = std::iter::once(program).chain(args.iter().skip(4).cloned());
    let (settings, runtime) = match settings_and_runtime("local invoke", flags) {
        Ok(ready) => ready,
        Err(code) => return code,
    };
    runtime.block_on(async {
        shared::telemetry::init_to_stderr();
        // The function's metrics, the EMF lines it would write in Lambda, on stderr with
        // its logs (as `sam local invoke` shows them).
        let _emf =
            shared::metrics::add_listener(std::sync::Arc::new(|line: &str| eprintln!("{line}")));
        match shared::metrics::invocation(invoke_once(settings, &function, &event)).await {
            Ok(response) => {
                println!("{response}");
                ExitCode::SUCCESS
            }
            Err(InvokeOnceError::FunctionError {
                response, message, ..
            }) => {
                // As Lambda answers a function error; the reason on stderr too.
                println!("{response}");
                eprintln!("local invoke: {function} failed: {message}");
                ExitCode::FAILURE
            }
            Err(error @ InvokeOnceError::UnknownFunction(_)) => {
                eprintln!("local invoke: {error}");
                ExitCode::from(2)
            }
            Err(error) => {
                eprintln!("local invoke: {}", shared::telemetry::ErrorChain(&error));
                ExitCode::FAILURE
            }
        }
    })
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
