//! `cargo run -p local`: the local stack until Ctrl-C (or SIGTERM).

use std::process::ExitCode;

use local::{ReadError, Settings};

fn main() -> ExitCode {
    let settings = match Settings::read(std::env::args_os(), |name| std::env::var_os(name)) {
        Ok(settings) => settings,
        // --help, --version, an unknown flag: clap's own answer and exit code.
        Err(ReadError::Usage(error)) => error.exit(),
        Err(ReadError::Invalid(error)) => {
            eprintln!("local stack: invalid settings (see --help):");
            for problem in &error.problems {
                eprintln!("  - {problem}");
            }
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("local stack: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(settings))
}

async fn run(settings: Settings) -> ExitCode {
    shared::telemetry::init();
    for line in settings.summary() {
        tracing::debug!("setting {line}");
    }
    let stack = match local::start(settings.clone()).await {
        Ok(stack) => stack,
        Err(local::StartError::Settings(error)) => {
            eprintln!("local stack: invalid settings (see --help):");
            for problem in &error.problems {
                eprintln!("  - {problem}");
            }
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
