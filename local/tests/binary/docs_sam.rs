//! README.md's "With Docker: `sam local invoke`": what runs without Docker runs
//! (`sam local generate-event` into `local invoke`, with the SAM CLI scripts/test.sh
//! installs), and the commands that need Docker are checked as far as they can be: the
//! functions they name are template.yaml's, the files they name exist, and every flag is
//! one `sam local <command> --help` (or the local stack's `--help`) lists.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::{REPO, bash, block, fences, lines};

/// The pinned SAM CLI scripts/test.sh installs, if it is there.
fn sam_cli() -> Option<std::path::PathBuf> {
    let sam = Path::new(REPO).join(".tools/venv/bin/sam");
    sam.is_file().then_some(sam)
}

fn help(command: &mut Command) -> String {
    let output = command
        .arg("--help")
        .env("SAM_CLI_TELEMETRY", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{command:?} --help: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn readme_sam_generate_event_commands_run_through_local_invoke() {
    let Some(sam) = sam_cli() else {
        eprintln!("skipped: no SAM CLI in .tools/venv (scripts/test.sh installs it)");
        return;
    };
    // The block's /tmp files, in a folder of this run's own.
    let dir = std::env::temp_dir().join(format!("docs-sam-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = block("sam-generate-event").replace("/tmp/", &format!("{}/", dir.display()));
    let bin = sam.parent().unwrap().display().to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let output = bash(
        &format!("set -e\n{text}"),
        &[("SAM_CLI_TELEMETRY", "0".into())],
    )
    .env("PATH", format!("{}:{path}", super::shims().display()))
    .stdin(Stdio::null())
    .output()
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success(), "{text}: {output:?}");
    let answers: Vec<Value> = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("not JSON answers ({e}): {output:?}"));
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers[0]["swept"].is_u64(),
        "the sweeper's answer: {}",
        answers[0]
    );
    assert_eq!(answers[1]["statusCode"], 404, "{}", answers[1]);
    let body: Value = serde_json::from_str(answers[1]["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["playerId"], "alice", "{body}");
}

/// Every `sam local ...`, `aws lambda invoke ...` and `cargo run -p local -- ...` line of
/// the README's blocks that need Docker.
fn docker_commands() -> Vec<String> {
    fences()
        .into_iter()
        .filter(|(block, _)| {
            block.file == "README.md" && block.name.starts_with("skip (needs Docker")
        })
        .flat_map(|(block, _)| lines(&block.text))
        .filter(|l| {
            l.starts_with("sam local ")
                || l.starts_with("aws lambda ")
                || l.starts_with("cargo run -p local")
        })
        .collect()
}

/// A command's words, up to a substitution or a pipe, without a trailing `&`.
fn words(line: &str) -> Vec<String> {
    let line = line.split(['|', '&']).next().unwrap_or_default();
    let line = line.split("$(").next().unwrap_or_default();
    line.split_whitespace()
        .map(|w| w.trim_matches('"').to_owned())
        .collect()
}

#[test]
fn readme_docker_commands_name_the_templates_functions_files_that_exist_and_known_flags() {
    let template = local::template::parse(local::template::TEMPLATE_YAML).unwrap();
    let functions = template["Resources"].as_object().unwrap();
    let is_function = |id: &str| {
        functions
            .get(id)
            .is_some_and(|r| r["Type"] == "AWS::Serverless::Function")
    };
    let commands = docker_commands();
    assert!(
        commands.iter().any(|c| c.starts_with("sam local invoke ")),
        "no `sam local invoke` in the README's Docker blocks: {commands:?}"
    );
    let local_help = help(&mut Command::new(env!("CARGO_BIN_EXE_local")));
    let sam = sam_cli();
    if sam.is_none() {
        eprintln!(
            "SAM's flags not checked: no SAM CLI in .tools/venv (scripts/test.sh installs it)"
        );
    }
    let mut problems = Vec::new();
    for command in &commands {
        let words = words(command);
        let flags_known_by = match (words[0].as_str(), words[1].as_str(), &sam) {
            ("sam", "local", Some(sam)) => Some(help(Command::new(sam).args(["local", &words[2]]))),
            ("cargo", _, _) => Some(local_help.clone()),
            _ => None,
        };
        // The local stack's flags come after cargo's `--`.
        let first_flag = match words[0].as_str() {
            "cargo" => words
                .iter()
                .position(|w| w == "--")
                .map_or(words.len(), |i| i + 1),
            _ => 0,
        };
        for (i, word) in words.iter().enumerate() {
            let next = words.get(i + 1).map(String::as_str).unwrap_or_default();
            if i >= first_flag
                && word.starts_with('-')
                && flags_known_by
                    .as_ref()
                    .is_some_and(|help| !help.contains(word.as_str()))
            {
                problems.push(format!("{command}: {word} is not a flag of it"));
            }
            match word.as_str() {
                "-e" | "--env-vars" if !Path::new(REPO).join(next).is_file() => {
                    problems.push(format!("{command}: no file {next}"));
                }
                "--env-vars" if next != "local/sam-env.json" => {
                    problems.push(format!("{command}: the env file is local/sam-env.json"));
                }
                "--add-host" if next != "host.docker.internal:host-gateway" => {
                    problems.push(format!(
                        "{command}: the env file's host is host.docker.internal"
                    ));
                }
                "--function-name" if !is_function(next) => {
                    problems.push(format!(
                        "{command}: {next} is not a function of template.yaml"
                    ));
                }
                "--payload"
                    if !Path::new(REPO)
                        .join(next.trim_start_matches("fileb://"))
                        .is_file() =>
                {
                    problems.push(format!("{command}: no file {next}"));
                }
                _ => {}
            }
        }
        if command.starts_with("sam local invoke ") && !is_function(&words[3]) {
            problems.push(format!(
                "{command}: {} is not a function of template.yaml",
                words[3]
            ));
        }
    }
    assert!(
        Path::new(REPO).join("scripts/sam-build.sh").is_file(),
        "the README builds with scripts/sam-build.sh"
    );
    assert!(
        problems.is_empty(),
        "the README's Docker commands:\n  {}",
        problems.join("\n  ")
    );
}
