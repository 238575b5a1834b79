use std::collections::HashMap;
use std::time::Duration;

use super::*;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn code_parameters() -> ServerParameters {
    ServerParameters {
        web_socket_url: "ws://code:1".into(),
        process_id: "proc-code".into(),
        host_id: "host-code".into(),
        fleet_id: "fleet-code".into(),
        auth_token: "token-code".into(),
        ..ServerParameters::default()
    }
}

#[test]
fn given_variables_and_parameters_when_resolved_then_the_variables_win() {
    let resolved = code_parameters()
        .resolve(env(&[
            ("GAMELIFT_SDK_WEBSOCKET_URL", "wss://env:2"),
            ("GAMELIFT_SDK_PROCESS_ID", "proc-env"),
            ("GAMELIFT_SDK_HOST_ID", "host-env"),
            ("GAMELIFT_SDK_FLEET_ID", "fleet-env"),
            ("GAMELIFT_SDK_AUTH_TOKEN", "token-env"),
        ]))
        .unwrap();
    assert_eq!(resolved.url, "wss://env:2");
    assert_eq!(resolved.process_id, "proc-env");
    assert_eq!(resolved.host_id, "host-env");
    assert_eq!(resolved.fleet_id, "fleet-env");
    assert_eq!(resolved.auth, Auth::Token("token-env".into()));
}

#[test]
fn given_only_parameters_when_resolved_then_they_are_used() {
    let resolved = code_parameters().resolve(env(&[])).unwrap();
    assert_eq!(resolved.url, "ws://code:1");
    assert_eq!(resolved.auth, Auth::Token("token-code".into()));
    assert_eq!(resolved.timing, Timing::default());
}

#[test]
fn given_a_missing_field_when_resolved_then_the_error_names_the_field_and_its_variable() {
    for (field, variable) in [
        ("web_socket_url", "GAMELIFT_SDK_WEBSOCKET_URL"),
        ("process_id", "GAMELIFT_SDK_PROCESS_ID"),
        ("fleet_id", "GAMELIFT_SDK_FLEET_ID"),
        ("host_id", "GAMELIFT_SDK_HOST_ID"),
    ] {
        let mut parameters = code_parameters();
        match field {
            "web_socket_url" => parameters.web_socket_url.clear(),
            "process_id" => parameters.process_id.clear(),
            "fleet_id" => parameters.fleet_id.clear(),
            _ => parameters.host_id.clear(),
        }
        let error = parameters.resolve(env(&[])).unwrap_err().to_string();
        assert!(error.contains(field) && error.contains(variable), "{error}");
    }
}

#[test]
fn given_no_token_and_no_region_when_resolved_then_the_error_names_both_strategies() {
    let mut parameters = code_parameters();
    parameters.auth_token.clear();
    let error = parameters.resolve(env(&[])).unwrap_err().to_string();
    assert!(
        error.contains("GAMELIFT_SDK_AUTH_TOKEN") && error.contains("GAMELIFT_REGION"),
        "{error}"
    );
}

#[test]
fn given_a_region_without_keys_when_resolved_then_the_missing_key_is_named() {
    let mut parameters = code_parameters();
    parameters.auth_token.clear();
    parameters.aws_region = "us-west-2".into();
    let error = parameters.resolve(env(&[])).unwrap_err().to_string();
    assert!(error.contains("GAMELIFT_ACCESS_KEY"), "{error}");
    let resolved = parameters
        .resolve(env(&[
            ("GAMELIFT_ACCESS_KEY", "AK"),
            ("GAMELIFT_SECRET_KEY", "SK"),
        ]))
        .unwrap();
    assert!(
        matches!(resolved.auth, Auth::SigV4(ref c) if c.access_key == "AK" && c.session_token.is_none())
    );
}

#[test]
fn given_a_token_and_sigv4_settings_when_resolved_then_the_token_wins() {
    let mut parameters = code_parameters();
    parameters.aws_region = "us-west-2".into();
    let resolved = parameters.resolve(env(&[])).unwrap();
    assert_eq!(resolved.auth, Auth::Token("token-code".into()));
}

#[test]
fn given_a_url_without_a_websocket_scheme_when_resolved_then_it_is_refused() {
    let mut parameters = code_parameters();
    parameters.web_socket_url = "http://x".into();
    let error = parameters.resolve(env(&[])).unwrap_err().to_string();
    assert!(error.contains("ws://"), "{error}");
}

#[test]
fn given_the_managed_resource_process_id_when_resolved_then_it_becomes_a_uuid() {
    let resolved = code_parameters()
        .resolve(env(&[("GAMELIFT_SDK_PROCESS_ID", "ManagedResource")]))
        .unwrap();
    assert!(uuid::Uuid::parse_str(&resolved.process_id).is_ok());
}

#[test]
fn given_gos_tuning_variables_when_resolved_then_the_timing_follows_them() {
    let resolved = code_parameters()
        .resolve(env(&[
            ("HEALTHCHECK_INTERVAL", "3s"),
            ("HEALTHCHECK_MAX_JITTER", "500ms"),
            ("HEALTHCHECK_TIMEOUT", "1m30s"),
            ("SERVICE_CALL_TIMEOUT", "1.5s"),
        ]))
        .unwrap();
    assert_eq!(resolved.timing.heartbeat_interval, Duration::from_secs(3));
    assert_eq!(
        resolved.timing.heartbeat_max_jitter,
        Duration::from_millis(500)
    );
    assert_eq!(
        resolved.timing.health_check_timeout,
        Duration::from_secs(90)
    );
    assert_eq!(resolved.timing.call_timeout, Duration::from_millis(1500));
    let error = code_parameters()
        .resolve(env(&[("HEALTHCHECK_INTERVAL", "soon")]))
        .unwrap_err()
        .to_string();
    assert!(error.contains("HEALTHCHECK_INTERVAL"), "{error}");
}

#[test]
fn given_the_default_backoff_when_delays_are_read_then_they_double_up_to_32s() {
    let delays: Vec<u64> = (0..7)
        .map(|n| Backoff::default().delay(n).as_secs())
        .collect();
    assert_eq!(delays, [4, 8, 16, 32, 32, 32, 32]);
}
