//! The protocol crate is what game clients and bots depend on: it must build without the
//! AWS SDK, the Lambda runtime or any HTTP/TLS stack. `cargo tree` says what it pulls in.

use std::process::Command;

#[test]
fn the_protocol_crate_depends_on_no_aws_lambda_or_http_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-p",
            "gamelift-sockets-protocol",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(names.contains(&"gamelift-sockets-protocol"), "{tree}");
    let forbidden: Vec<&&str> = names
        .iter()
        .filter(|name| {
            name.starts_with("aws-")
                || name.starts_with("aws_")
                || name.starts_with("lambda")
                || ["hyper", "rustls", "tokio", "reqwest"].contains(name)
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "the protocol crate must not depend on {forbidden:?}:\n{tree}"
    );
}
