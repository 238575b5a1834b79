//! `local invoke <function> <event.json>`: every file in events/ through the function its
//! shape says it is for (a new event file is covered without touching this test), and
//! the usage errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const EVENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../events");

fn invoke(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_local"));
    command
        .arg("invoke")
        .args(args)
        .env_remove("DYNAMODB_ENDPOINT")
        .env_remove("AUTH_MODE")
        .env("RUST_LOG", "info");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the local binary runs")
}

/// The function an event is for, from its shape (as the template routes each kind).
fn function_for(event: &Value) -> Result<&'static str, String> {
    if event["type"] == "REQUEST" && event["methodArn"].is_string() {
        return Ok("authorizer");
    }
    if let Some(route) = event["requestContext"]["routeKey"].as_str() {
        return Ok(match route {
            "$connect" => "connect",
            "$disconnect" => "disconnect",
            "$default" => "default",
            "resume" => "resume",
            "sendMessage" => "send-message",
            "sessionPlacementRequest" | "setPlacementLatencies" => "session-placement-request",
            "cancelPlacement" => "cancel-placement",
            "rejoinSession" => "rejoin-session",
            "subscribePresence" | "unsubscribePresence" => "subscribe-presence",
            "createParty" | "inviteToParty" | "joinParty" | "declinePartyInvite" | "leaveParty"
            | "kickFromParty" | "promotePartyLeader" => "party",
            "addFriend" | "removeFriend" | "blockPlayer" | "unblockPlayer" | "listFriends" => {
                "friends"
            }
            "startMatchmaking" | "acceptMatch" | "stopMatchmaking" | "setMatchmakingAttributes" => {
                "matchmaking"
            }
            "ANY /v1/{proxy+}" => "backend-api",
            other => return Err(format!("route {other:?} is not in the template")),
        });
    }
    if let Some(records) = event["Records"].as_array() {
        let source = records
            .first()
            .and_then(|r| r["eventSource"].as_str().or(r["EventSource"].as_str()));
        return match source {
            Some("aws:dynamodb") => Ok("on-message-inserted"),
            // A FlexMatch configuration's notification topic, or a queue's.
            Some("aws:sns")
                if records[0]["Sns"]["Message"]
                    .as_str()
                    .is_some_and(|m| m.contains("GameLift Matchmaking Event")) =>
            {
                Ok("on-matchmaking-event")
            }
            Some("aws:sns") => Ok("on-placement-event"),
            other => Err(format!("records from {other:?}")),
        };
    }
    match (event["source"].as_str(), event["detail-type"].as_str()) {
        (Some("aws.gamelift"), Some("GameLift Matchmaking Event")) => Ok("on-matchmaking-event"),
        (Some("aws.gamelift"), _) => Ok("on-placement-event"),
        (Some("aws.events"), Some("Scheduled Event")) => Ok("presence-timeout"),
        (Some(source), _) if source.ends_with(".presence") => Ok("on-presence-event"),
        other => Err(format!("an event of source/detail-type {other:?}")),
    }
}

fn event_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(EVENTS)
        .expect("events/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn given_every_event_file_when_invoked_then_its_function_answers_with_json_on_stdout_only() {
    let files = event_files();
    assert!(files.len() >= 30, "events/ has {} files", files.len());
    let mut functions = std::collections::BTreeSet::new();
    for path in &files {
        let event: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        let function = function_for(&event).unwrap_or_else(|why| {
            panic!(
                "{}: which function is this event for? ({why}); teach function_for",
                path.display()
            )
        });
        functions.insert(function);
        let output = invoke(&[function, path.to_str().unwrap()], &[]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "local invoke {function} {}: {output:?}",
            path.display()
        );
        let response: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "{}: stdout is not one JSON value ({e}): {stdout}",
                path.display()
            )
        });
        assert_eq!(stdout.lines().count(), 1, "logs on stdout: {stdout}");
        match function {
            "authorizer" => assert!(response["policyDocument"].is_object(), "{response}"),
            "on-message-inserted" => assert!(response["batchItemFailures"].is_array()),
            "on-placement-event" | "on-matchmaking-event" => {
                assert!(response.is_null(), "{response}")
            }
            "presence-timeout" => assert!(response["swept"].is_number(), "{response}"),
            "on-presence-event" => assert!(response["notified"].is_number(), "{response}"),
            // On empty tables the players are unknown: a problem response, or a
            // success that found nobody; either way a status the handler chose.
            "backend-api" => assert!(
                response["statusCode"].is_u64()
                    && response["headers"]["content-type"]
                        .as_str()
                        .is_some_and(|t| t.contains("json")),
                "{}: {response}",
                path.display()
            ),
            _ => assert_eq!(
                response["statusCode"],
                200,
                "{}: {response}",
                path.display()
            ),
        }
    }
    // Every function has at least one sample event.
    assert_eq!(
        functions.len(),
        local::invoke_once::FUNCTIONS.len(),
        "{functions:?}"
    );
}

#[test]
fn given_a_route_event_when_invoked_then_the_reply_frame_is_the_handlers() {
    let output = invoke(
        &["send-message", &format!("{EVENTS}/send-message.json")],
        &[],
    );
    let response: Value = serde_json::from_slice(&output.stdout).unwrap();
    let frame: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    // A one-off invocation starts on empty tables: nobody has connected, so the
    // handler's answer is that bob and carol are unknown.
    assert_eq!(frame["type"], "error", "{frame}");
    assert_eq!(frame["code"], "not_found", "{frame}");
    assert_eq!(
        frame["playerIds"],
        serde_json::json!(["bob", "carol"]),
        "{frame}"
    );
    assert_eq!(frame["route"], "sendMessage", "{frame}");
    let connect = invoke(&["connect", &format!("{EVENTS}/connect.json")], &[]);
    let logs = String::from_utf8_lossy(&connect.stderr);
    assert!(logs.contains("new session"), "logs go to stderr: {logs}");
}

#[test]
fn given_the_jwt_sample_event_and_its_settings_when_invoked_then_the_authorizer_allows() {
    // The secret and claims of events/authorizer-jwt.json (see the authorizer's tests).
    let output = invoke(
        &[
            "authorizer",
            &format!("{EVENTS}/authorizer-jwt.json"),
            "--auth-mode",
            "jwt",
            "--jwt-issuer",
            "https://auth.example.com/",
            "--jwt-audience",
            "gamelift-sockets",
        ],
        &[(
            "JWT_HS256_SECRET",
            "gamelift-sockets-sample-event-secret-NOT-FOR-PRODUCTION",
        )],
    );
    let response: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        response["policyDocument"]["Statement"][0]["Effect"], "Allow",
        "{response}"
    );
    assert_eq!(response["context"]["playerId"], "player-123");
}

#[test]
fn given_bad_arguments_when_invoked_then_it_exits_non_zero_saying_what_is_wrong() {
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &["dance", "events/resume.json"],
            2,
            "no function \"dance\"; the functions (template.yaml's binary names) are: authorizer, connect,",
        ),
        (
            &["resume"],
            2,
            "usage: local invoke <function> <event.json>",
        ),
        (
            &["resume", "events/nope.json"],
            1,
            "cannot read the event file events/nope.json",
        ),
        (
            &["resume", "Cargo.toml"],
            1,
            "the event file Cargo.toml is not JSON",
        ),
        (
            &["presence-timeout", "events/ill-formed.json"],
            1,
            "is not an EventBridge event, which presence-timeout takes",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("invoke-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("events")).unwrap();
    std::fs::write(dir.join("events/ill-formed.json"), "[1, 2]").unwrap();
    std::fs::write(dir.join("Cargo.toml"), "[package]").unwrap();
    for (args, code, says) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_local"))
            .arg("invoke")
            .args(args)
            .current_dir(&dir)
            .env_remove("DYNAMODB_ENDPOINT")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?} printed a response");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(Path::new(EVENTS).is_dir());
}

#[test]
fn given_dynamodb_local_when_invoked_then_the_function_runs_against_its_tables() {
    let Some(endpoint) = super::dynamodb_endpoint() else {
        return;
    };
    let suffix = std::process::id().to_string();
    let players = format!("invoke-players-{suffix}");
    let output = Command::new(env!("CARGO_BIN_EXE_local"))
        .args([
            "invoke",
            "connect",
            &format!("{EVENTS}/connect.json"),
            "--dynamodb-endpoint",
            &endpoint,
            "--players-table",
            &players,
            "--messages-table",
            &format!("invoke-messages-{suffix}"),
            "--placements-table",
            &format!("invoke-placements-{suffix}"),
            "--subscriptions-table",
            &format!("invoke-subscriptions-{suffix}"),
            "--parties-table",
            &format!("invoke-parties-{suffix}"),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let response: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(response["statusCode"], 200, "{response}");
}
