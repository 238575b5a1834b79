use std::collections::HashMap;
use std::ffi::OsString;

use super::*;

/// Every variable the local stack reads (flags aside).
const EVERY_VARIABLE: &[&str] = &[
    "GAME",
    "STAGE",
    "DETAILED_METRICS",
    "PORT",
    "BIND_ADDRESS",
    "BACKEND_API_PORT",
    "BACKEND_API_KEY",
    "AUTH_MODE",
    "JWT_ISSUER",
    "JWT_AUDIENCE",
    "JWT_HS256_SECRET",
    "JWKS_URL",
    "JWT_LEEWAY_SECONDS",
    "JWT_MAX_LIFETIME_SECONDS",
    "HEARTBEAT_TIMEOUT_SECONDS",
    "PRESENCE_LIVENESS",
    "RECONNECT_GRACE_SECONDS",
    "PRESENCE_SHARDS",
    "RATE_LIMIT_MESSAGES_PER_MINUTE",
    "RATE_LIMIT_RECIPIENTS_PER_MINUTE",
    "RATE_LIMIT_PLACEMENTS_PER_MINUTE",
    "RATE_LIMIT_PARTY_INVITES_PER_MINUTE",
    "RATE_LIMIT_FRIEND_INVITES_PER_MINUTE",
    "RATE_LIMIT_ACTIVITY_PER_MINUTE",
    "IDLE_TIMEOUT_SECONDS",
    "MAX_CONNECTION_SECONDS",
    "LAST_ACTIVE_COUNTS_SENT_FRAMES",
    "DYNAMODB_ENDPOINT",
    "PLAYERS_TABLE",
    "MESSAGES_TABLE",
    "PLACEMENTS_TABLE",
    "SUBSCRIPTIONS_TABLE",
    "PARTIES_TABLE",
    "FRIENDS_TABLE",
    "GAME_SESSION_QUEUES",
    "MAX_PLAYERS_PER_SESSION",
    "PARTY_MAX_SIZE",
    "PARTY_INVITE_TTL_SECONDS",
    "PARTY_OFFLINE_SECONDS",
    "PARTY_INVITE_LEADER_ONLY",
    "MESSAGE_TTL_SECONDS",
    "STREAM_SHARDS",
    "STREAM_BATCH_SIZE",
    "STREAM_MAX_RETRY_ATTEMPTS",
    "STREAM_POLL_INTERVAL_MS",
    "SIM_FLEET_SERVERS",
    "SIM_SESSIONS_PER_SERVER",
    "SIM_SERVER_STARTUP_MS",
    "SIM_SERVER_SHUTDOWN_MS",
    "SIM_PLACEMENT_DELAY_MS",
    "SIM_QUEUE_TIMEOUT_SECONDS",
    "SIM_GAME_SESSION_SECONDS",
    "SIM_REGION",
    "SIM_ACCOUNT_ID",
    "SIM_FLEET_ID",
    "SIM_SERVER_IP",
    "SIM_SERVER_DNS",
    "SIM_SERVER_PORT_BASE",
    "SIM_CUSTOM_EVENT_DATA",
    "SIM_PLAYER_GATEWAY",
    "SIM_PLAYER_GATEWAY_TOKEN_SECONDS",
    "PLAYER_GATEWAY",
    "MATCHMAKING_RULE_SET",
    "MATCHMAKING_CONFIGURATION",
    "SIM_ACCEPTANCE_TIMEOUT_SECONDS",
    "SIM_MATCHMAKING_TIMEOUT_SECONDS",
    "SWEEP_INTERVAL_SECONDS",
    "GAMELIFT_SDK_PORT",
    "GAMELIFT_SDK_TLS_PORT",
    "SIM_GAME_SESSION_ACTIVATION_SECONDS",
    "SIM_HEARTBEAT_INTERVAL_MS",
    "SIM_TERMINATION_GRACE_SECONDS",
    "SIM_RECONNECT_WINDOW_SECONDS",
];

/// [`Settings::read`] with these arguments and exactly these variables.
fn read(args: &[&str], vars: &[(&str, &str)]) -> Result<Settings, ReadError> {
    let vars: HashMap<String, OsString> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
        .collect();
    let args = std::iter::once("local").chain(args.iter().copied());
    Settings::read(args, |name| vars.get(name).cloned())
}

fn problems(args: &[&str], vars: &[(&str, &str)]) -> Vec<String> {
    match read(args, vars) {
        Err(ReadError::Invalid(error)) => error.problems,
        other => panic!("expected invalid settings, got {other:?}"),
    }
}

#[test]
fn given_nothing_when_read_then_the_declared_defaults_which_are_the_functions_own() {
    let settings = read(&[], &[]).unwrap();
    assert_eq!(settings, Settings::default());
    assert_eq!(
        settings.config().unwrap(),
        Config::for_local(config::settings::STAGE.default.unwrap_or_default()),
        "the local stack's defaults are shared::config's"
    );
    assert_eq!(
        settings.presence.heartbeat_timeout_seconds,
        config::settings::HEARTBEAT_TIMEOUT_SECONDS.default
    );
    let simulator = settings.simulator_settings().unwrap();
    assert_eq!(
        simulator,
        SimulatorSettings {
            queues: vec![
                config::settings::GAME_SESSION_QUEUES
                    .default
                    .unwrap_or_default()
                    .to_owned()
            ],
            ..SimulatorSettings::default()
        }
    );
    assert!(settings.auth_config().is_ok());
    // clap's own parse (which also reads the environment) agrees when none is set.
    if EVERY_VARIABLE.iter().all(|n| std::env::var_os(n).is_none()) {
        assert_eq!(Settings::try_parse_from(["local"]).unwrap(), settings);
    }
}

#[test]
fn given_flags_and_variables_when_read_then_a_flag_wins_and_a_blank_variable_is_unset() {
    let settings = read(
        &[
            "--port",
            "0",
            "--stage",
            "Test",
            "--idle-timeout-seconds=5",
            "--auth-mode",
            "JWT",
            "--jwt-issuer",
            "https://id.example",
            "--jwt-audience",
            "game",
            "--dynamodb-endpoint",
            "http://127.0.0.1:8000",
        ],
        &[
            ("STAGE", "FromEnv"),
            ("JWT_HS256_SECRET", "a-local-test-secret-of-32-bytes!"),
            ("HEARTBEAT_TIMEOUT_SECONDS", "  "),
            ("SIM_FLEET_SERVERS", "0"),
        ],
    )
    .unwrap();
    assert_eq!(settings.gateway.port, 0);
    assert_eq!(settings.stage, "Test");
    assert_eq!(settings.gateway.idle_timeout_seconds, 5);
    assert_eq!(settings.auth.auth_mode, AuthMode::Jwt);
    assert_eq!(
        settings.storage.dynamodb_endpoint.as_deref(),
        Some("http://127.0.0.1:8000")
    );
    assert_eq!(settings.presence.heartbeat_timeout_seconds, 90);
    assert_eq!(settings.simulator.sim_fleet_servers, 0);
    assert_eq!(
        settings.origins.get("STAGE"),
        Some(&Origin::CommandLine("--stage".into()))
    );
    assert_eq!(
        settings.origins.get("SIM_FLEET_SERVERS"),
        Some(&Origin::Environment)
    );
    assert_eq!(settings.origins.get("HEARTBEAT_TIMEOUT_SECONDS"), None);
}

#[test]
fn given_bad_values_when_read_then_every_one_is_named_as_written_with_what_is_accepted() {
    let found = problems(
        &[
            "--presence-shards",
            "zero",
            "--stream-max-retry-attempts",
            "-2",
            "--stage",
            "dev/x",
        ],
        &[
            ("HEARTBEAT_TIMEOUT_SECONDS", "soon"),
            ("SIM_FLEET_SERVERS", "many"),
            ("AUTH_MODE", "bearer"),
            ("PORT", "70000"),
            ("STAGE", "ignored: the flag wins"),
            ("DYNAMODB_ENDPOINT", "localhost:8000"),
        ],
    );
    // Each value as it was read, in --help's order; then the checks of the whole set.
    assert_eq!(
        found,
        [
            "PORT=\"70000\" is not a whole number from 0 to 65535",
            "AUTH_MODE=\"bearer\" is not one of \"header\", \"jwt\"",
            "HEARTBEAT_TIMEOUT_SECONDS=\"soon\" is not a whole number of seconds from 1 to 7200",
            "--presence-shards=\"zero\" is not a whole number from 1 to 64",
            "--stream-max-retry-attempts=\"-2\" is not a whole number from -1 to 10000",
            "SIM_FLEET_SERVERS=\"many\" is not a whole number from 0 to 1000",
            "--stage=\"dev/x\" is not 1-128 characters of A-Z a-z 0-9 _ -",
            "DYNAMODB_ENDPOINT=\"localhost:8000\" is not an http:// or https:// URL",
        ]
    );
}

#[test]
fn given_a_problem_of_the_whole_set_then_knobs_given_as_flags_are_named_by_their_flag() {
    let found = problems(
        &["--sim-fleet-servers", "100", "--auth-mode", "jwt"],
        &[
            ("SIM_SESSIONS_PER_SERVER", "100"),
            ("SIM_SERVER_PORT_BASE", "60000"),
        ],
    );
    let text = found.join("\n");
    assert!(
        text.contains(
            "SIM_SERVER_PORT_BASE=60000 leaves no room for 10000 game session ports \
             (--sim-fleet-servers x SIM_SESSIONS_PER_SERVER)"
        ),
        "{text}"
    );
    assert!(text.contains("JWT_ISSUER is not set"), "{text}");
}

#[test]
fn given_help_when_read_then_clap_answers_with_every_default_variable_and_value() {
    let Err(ReadError::Usage(help)) = read(&["--help"], &[]) else {
        panic!("--help is clap's to answer");
    };
    let help = help.render().to_string();
    for expected in [
        "env: HEARTBEAT_TIMEOUT_SECONDS",
        "default: 90",
        "- header: ",
        "- jwt: ",
        "GameLift simulator:",
    ] {
        assert!(help.contains(expected), "{expected} missing: {help}");
    }
}

#[test]
fn given_help_or_an_unknown_flag_when_read_then_clap_answers() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["--no-such-flag"],
        &["--port"],
    ] {
        assert!(
            matches!(read(args, &[]), Err(ReadError::Usage(_))),
            "{args:?}"
        );
    }
}

#[test]
fn help_documents_every_knob_with_its_environment_variable() {
    let help = Settings::command().render_long_help().to_string();
    for name in EVERY_VARIABLE {
        assert!(
            help.contains(&format!("env: {name}")),
            "{name} missing: {help}"
        );
    }
    assert!(help.contains("default: 3001"), "{help}");
    assert!(help.contains("default: 90"), "{help}");
    assert!(help.contains("RUST_LOG"), "{help}");
}

#[test]
fn given_several_problems_when_validated_then_every_one_is_listed() {
    let mut settings = Settings {
        stage: "dev/x".into(),
        ..Settings::default()
    };
    settings.gateway.idle_timeout_seconds = 0;
    settings.presence.presence_shards = 0;
    settings.storage.dynamodb_endpoint = Some("localhost:8000".into());
    settings.auth.auth_mode = AuthMode::Jwt;
    let err = settings.validate().unwrap_err();
    assert_eq!(err.problems.len(), 7, "{err}");
    let text = err.to_string();
    for expected in [
        "STAGE",
        "IDLE_TIMEOUT_SECONDS=0",
        "PRESENCE_SHARDS=0",
        "DYNAMODB_ENDPOINT",
        "JWKS_URL or JWT_HS256_SECRET",
        "JWT_ISSUER is not set",
        "JWT_AUDIENCE is not set",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
    assert!(Settings::default().validate().is_ok());
}

#[test]
fn given_stream_knobs_when_read_and_validated_then_they_shape_the_mapping() {
    let parsed = read(
        &[
            "--stream-shards",
            "8",
            "--stream-batch-size",
            "50",
            "--stream-max-retry-attempts",
            "-1",
            "--stream-poll-interval-ms",
            "20",
        ],
        &[],
    )
    .unwrap();
    let mapping = parsed.stream_mapping();
    assert_eq!(mapping.partitions, 8);
    assert_eq!(mapping.batch_size, 50);
    assert_eq!(mapping.max_retry_attempts, None, "-1: forever");
    assert_eq!(
        Settings::default().stream_mapping().max_retry_attempts,
        Some(10)
    );
    assert!(matches!(parsed.stream_source(), StreamSource::Memory));
    let mut dynamo = parsed.clone();
    dynamo.storage.dynamodb_endpoint = Some("http://127.0.0.1:8000".into());
    match dynamo.stream_source() {
        StreamSource::DynamoDb(config) => {
            assert_eq!(config.table, "Messages");
            assert_eq!(config.limit, 50);
            assert_eq!(config.poll_interval, Duration::from_millis(20));
        }
        other => panic!("{other:?}"),
    }

    let bad = Settings {
        stream: StreamSettings {
            stream_shards: 0,
            stream_batch_size: 1001,
            stream_max_retry_attempts: -2,
            stream_poll_interval_ms: 0,
        },
        ..Settings::default()
    };
    let text = bad.validate().unwrap_err().to_string();
    for expected in [
        "STREAM_SHARDS=0 is not a whole number from 1 to 64",
        "STREAM_BATCH_SIZE=1001",
        "STREAM_MAX_RETRY_ATTEMPTS=-2",
        "STREAM_POLL_INTERVAL_MS=0",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
}

#[test]
fn summary_lists_every_setting_with_its_origin_and_redacts_the_secret() {
    let settings = read(
        &["--stage", "Test"],
        &[("JWT_HS256_SECRET", "hunter2"), ("SIM_FLEET_SERVERS", "3")],
    )
    .unwrap();
    let summary = settings.summary();
    assert_eq!(summary.len(), EVERY_VARIABLE.len(), "{summary:#?}");
    let text = summary.join("\n");
    assert!(!text.contains("hunter2"), "{text}");
    for expected in [
        "JWT_HS256_SECRET=(set, redacted) (environment)",
        "STAGE=Test (--stage)",
        "SIM_FLEET_SERVERS=3 (environment)",
        "HEARTBEAT_TIMEOUT_SECONDS=90 (default)",
        "AUTH_MODE=header (default)",
        "JWKS_URL=(unset) (default)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
}

#[test]
fn given_no_backend_api_port_then_it_is_the_websocket_port_plus_one_or_any_free_port() {
    let defaults = read(&[], &[]).unwrap();
    assert_eq!(defaults.gateway.backend_api_port(), DEFAULT_PORT + 1);
    let any = read(&["--port", "0"], &[]).unwrap();
    assert_eq!(any.gateway.backend_api_port(), 0);
    let chosen = read(&["--port", "4000"], &[("BACKEND_API_PORT", "5000")]).unwrap();
    assert_eq!(chosen.gateway.backend_api_port(), 5000);
    assert_eq!(
        problems(&["--port", "4000"], &[("BACKEND_API_PORT", "4000")]),
        ["BACKEND_API_PORT=4000 is --port's: the backend API needs a port of its own"]
    );
    let keyed = read(&[], &[("BACKEND_API_KEY", "let-me-in")]).unwrap();
    assert_eq!(keyed.gateway.backend_api_key.as_deref(), Some("let-me-in"));
    assert!(
        keyed
            .summary()
            .contains(&"BACKEND_API_KEY=(set, redacted) (environment)".to_owned()),
        "{:#?}",
        keyed.summary()
    );
}

#[test]
fn given_player_gateway_then_the_simulated_fleet_follows_it_unless_told_otherwise() {
    use shared::config::PlayerGateway;
    // Given PLAYER_GATEWAY=required alone
    let settings = read(&[], &[("PLAYER_GATEWAY", "required")]).unwrap();
    // Then the handlers and the simulated fleet both require the gateway
    assert_eq!(
        settings.config().unwrap().player_gateway,
        PlayerGateway::Required
    );
    assert_eq!(
        settings.simulator_settings().unwrap().player_gateway,
        PlayerGateway::Required
    );

    // When the fleet is set apart, with short tokens
    let settings = read(
        &["--sim-player-gateway", "enabled"],
        &[
            ("PLAYER_GATEWAY", "disabled"),
            ("SIM_PLAYER_GATEWAY_TOKEN_SECONDS", "5"),
        ],
    )
    .unwrap();
    // Then each says its own
    assert_eq!(
        settings.config().unwrap().player_gateway,
        PlayerGateway::Disabled
    );
    let simulator = settings.simulator_settings().unwrap();
    assert_eq!(simulator.player_gateway, PlayerGateway::Enabled);
    assert_eq!(simulator.player_gateway_token, Duration::from_secs(5));

    // And a word neither knows is named as written
    let found = problems(&[], &[("SIM_PLAYER_GATEWAY", "on")]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("SIM_PLAYER_GATEWAY=\"on\""),
        "{found:?}"
    );
}

#[test]
fn given_the_game_server_knobs_when_read_then_ports_follow_port_and_timers_reach_the_simulator() {
    let defaults = Settings::default();
    assert_eq!(
        (
            defaults.gamelift_sdk_port(),
            defaults.gamelift_sdk_tls_port()
        ),
        (3003, 3004)
    );
    let simulator = defaults.simulator_settings().unwrap();
    assert_eq!(simulator.game_session_activation, Duration::from_secs(30));
    assert_eq!(simulator.heartbeat_interval, Duration::from_secs(60));
    assert_eq!(simulator.termination_grace, Duration::from_secs(300));
    assert_eq!(simulator.reconnect_window, Duration::from_secs(300));

    let set = read(
        &["--port", "0"],
        &[
            ("SIM_GAME_SESSION_ACTIVATION_SECONDS", "5"),
            ("SIM_HEARTBEAT_INTERVAL_MS", "200"),
            ("SIM_TERMINATION_GRACE_SECONDS", "2"),
            ("SIM_RECONNECT_WINDOW_SECONDS", "3"),
        ],
    )
    .unwrap();
    assert_eq!(
        (set.gamelift_sdk_port(), set.gamelift_sdk_tls_port()),
        (0, 0)
    );
    let simulator = set.simulator_settings().unwrap();
    assert_eq!(simulator.game_session_activation, Duration::from_secs(5));
    assert_eq!(simulator.heartbeat_interval, Duration::from_millis(200));
    assert_eq!(simulator.termination_grace, Duration::from_secs(2));
    assert_eq!(simulator.reconnect_window, Duration::from_secs(3));

    let refused = read(&[], &[("SIM_GAME_SESSION_ACTIVATION_SECONDS", "601")]);
    assert!(refused.is_err(), "GameLift's limit is 600 s");
    // read() validates: the clash is refused, named as written.
    let text = read(&[], &[("GAMELIFT_SDK_PORT", "3001")])
        .unwrap_err()
        .to_string();
    assert!(text.contains("GAMELIFT_SDK_PORT=3001 is PORT's"), "{text}");
}
