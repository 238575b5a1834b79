//! Each layer's dependencies follow its role, as `cargo tree` says:
//!
//! - the protocol crate is what game clients and bots depend on: it builds without the
//!   AWS SDK, the Lambda runtime or any HTTP/TLS stack;
//! - the domain crate (`shared`: the model, the ports, the services) builds without the
//!   AWS SDK and without any Lambda crate: Lambda's events are opened into its types by
//!   the `edge` crate, and the adapters that call AWS are `aws-adapters`.

use std::process::Command;

/// The crates `package` depends on (normal and build dependencies), itself included.
fn dependencies_of(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "-p", package, "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    assert!(names.iter().any(|name| name == package), "{names:?}");
    names
}

fn is_aws_or_lambda(name: &str) -> bool {
    name.starts_with("aws-") || name.starts_with("aws_") || name.starts_with("lambda")
}

#[test]
fn the_protocol_crate_depends_on_no_aws_lambda_or_http_crate() {
    let names = dependencies_of("gamelift-sockets-protocol");
    let forbidden: Vec<&String> = names
        .iter()
        .filter(|name| {
            is_aws_or_lambda(name)
                || ["hyper", "rustls", "tokio", "reqwest"].contains(&name.as_str())
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "the protocol crate must not depend on {forbidden:?}:\n{names:#?}"
    );
}

#[test]
fn the_domain_crate_depends_on_no_aws_sdk_and_no_lambda_crate() {
    let names = dependencies_of("shared");
    let forbidden: Vec<&String> = names.iter().filter(|name| is_aws_or_lambda(name)).collect();
    assert!(
        forbidden.is_empty(),
        "the domain crate (shared) must not depend on {forbidden:?}:\n{names:#?}"
    );
}
