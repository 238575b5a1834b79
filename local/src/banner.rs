//! What `cargo run -p local` prints once it listens: where to connect and how the stack
//! is set up, a line each (every setting, with where it came from: `RUST_LOG=debug`).

use crate::gamelift_sdk::GameServerEndpoint;
use crate::settings::{AuthMode, Settings};
use crate::stack::RunningStack;

/// The start-up banner's lines: the WebSocket URL, the `@connections` API, the backend
/// API, the stage, the auth mode, the storage, the GameLift simulator (and the FlexMatch
/// one, when a rule set is given), and a first command to try.
pub fn banner(settings: &Settings, stack: &RunningStack) -> Vec<String> {
    let url = stack.url();
    let auth = &settings.auth;
    let (auth_line, connect) = match auth.auth_mode {
        AuthMode::Header => (
            "header: players name themselves (?playerId=<id> or X-Player-Id header)".to_owned(),
            format!("{url}?playerId=alice"),
        ),
        AuthMode::Jwt => {
            let keys = match &auth.jwks_url {
                Some(jwks) => format!("keys from {jwks}"),
                None => "HS256 shared secret".to_owned(),
            };
            let line = format!(
                "jwt: issuer {}, audience {}, {keys} (?token=<JWT> or Authorization: Bearer)",
                auth.jwt_issuer.as_deref().unwrap_or("?"),
                auth.jwt_audience.as_deref().unwrap_or("?"),
            );
            (line, format!("{url}?token=<JWT>"))
        }
    };
    let mut lines = vec![
        format!("WebSocket API:   {url}"),
        format!(
            "@connections:    {}/@connections/{{connectionId}}",
            stack.management_endpoint()
        ),
        format!(
            "backend API:     {}/v1/ ({})",
            stack.backend_api_url(),
            match &settings.gateway.backend_api_key {
                Some(_) => "BACKEND_API_KEY required in x-api-key",
                None => "no auth",
            }
        ),
        format!("stage:           {}", stack.stage()),
        format!("auth:            {auth_line}"),
        format!("storage:         {}", stack.storage()),
        format!(
            "GameLift sim:    {}",
            stack.simulator().settings().summary()
        ),
        format!("console:         {}", stack.console_url()),
        format!("try:             websocat \"{connect}\"   then send {{\"route\":\"resume\"}}"),
    ];
    // Only with a rule set: matchmaking is off otherwise (its routes say so).
    if let Ok(Some(flexmatch)) = settings.flexmatch_settings() {
        lines.insert(7, format!("FlexMatch sim:   {}", flexmatch.summary()));
    }
    lines.extend(game_server_lines(stack.game_server_endpoint()));
    lines
}

/// What a game server on GameLift's server SDK 5 exports to join the fleet (a fresh
/// example process id: one per process), and the certificate wss:// serves.
fn game_server_lines(endpoint: &GameServerEndpoint) -> Vec<String> {
    let mut lines = vec![format!(
        "game servers:    {} and {} (GameLift server SDK 5); to run one here, export:",
        endpoint.ws_url, endpoint.wss_url
    )];
    let process_id = GameServerEndpoint::new_process_id();
    lines.extend(
        endpoint
            .env(&process_id, false)
            .into_iter()
            .map(|(name, value)| format!("  export {name}={value}")),
    );
    let pem = endpoint.certificate_path.display();
    lines.push(format!(
        "certificate:     {pem} (wss://, self-signed; Go: export SSL_CERT_FILE={pem})"
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_banner_says_where_to_connect_and_how_the_stack_is_set_up() {
        let mut settings = Settings::default();
        settings.gateway.port = 0;
        settings.stage = "Test".into();
        settings.auth.auth_mode = AuthMode::Jwt;
        settings.auth.jwt_issuer = Some("https://id.example".into());
        settings.auth.jwt_audience = Some("game".into());
        settings.auth.jwt_hs256_secret = Some("a-local-test-secret-of-32-bytes!".into());
        settings.simulator.sim_fleet_servers = 1;
        let stack = crate::start(settings.clone()).await.unwrap();
        let lines = banner(&settings, &stack);
        let port = stack.addr().port();
        let backend = stack.backend_api_url();
        let endpoint = stack.game_server_endpoint().clone();
        stack.shutdown().await;
        assert_eq!(
            lines[..9],
            [
                format!("WebSocket API:   ws://127.0.0.1:{port}/Test"),
                format!(
                    "@connections:    http://127.0.0.1:{port}/Test/@connections/{{connectionId}}"
                ),
                format!("backend API:     {backend}/v1/ (no auth)"),
                "stage:           Test".to_owned(),
                "auth:            jwt: issuer https://id.example, audience game, HS256 shared \
                 secret (?token=<JWT> or Authorization: Bearer)"
                    .to_owned(),
                "storage:         in memory".to_owned(),
                "GameLift sim:    1 server (1 game each, ready 2000 ms after start-up); \
                 placements fulfilled after 500 ms or TIMED_OUT after 60 s; games last 600 s; \
                 queues: default-queue"
                    .to_owned(),
                format!("console:         http://127.0.0.1:{port}/console"),
                format!(
                    "try:             websocat \"ws://127.0.0.1:{port}/Test?token=<JWT>\"   \
                     then send {{\"route\":\"resume\"}}"
                ),
            ]
        );
        let game_servers = &lines[9..];
        assert_eq!(
            game_servers[0],
            format!(
                "game servers:    {} and {} (GameLift server SDK 5); to run one here, export:",
                endpoint.ws_url, endpoint.wss_url
            )
        );
        for expected in [
            format!("  export GAMELIFT_SDK_WEBSOCKET_URL={}", endpoint.ws_url),
            "  export GAMELIFT_SDK_FLEET_ID=fleet-local".to_owned(),
            "  export GAMELIFT_SDK_HOST_ID=local-compute".to_owned(),
            format!("  export GAMELIFT_SDK_AUTH_TOKEN={}", endpoint.auth_token),
        ] {
            assert!(
                game_servers.contains(&expected),
                "{expected} in {game_servers:?}"
            );
        }
        assert!(
            game_servers
                .iter()
                .any(|line| line.starts_with("  export GAMELIFT_SDK_PROCESS_ID=")),
            "{game_servers:?}"
        );
        let pem = endpoint.certificate_path.display();
        assert_eq!(
            game_servers.last().unwrap(),
            &format!(
                "certificate:     {pem} (wss://, self-signed; Go: export SSL_CERT_FILE={pem})"
            )
        );
    }

    #[tokio::test]
    async fn given_a_rule_set_then_the_banner_says_how_matchmaking_is_simulated() {
        let mut settings = Settings::default();
        settings.gateway.port = 0;
        settings.matchmaking.matchmaking_rule_set = Some(format!(
            "{}/rule-sets/duel.json",
            env!("CARGO_MANIFEST_DIR")
        ));
        settings.matchmaking.sim_acceptance_timeout_seconds = 20;
        let stack = crate::start(settings.clone()).await.unwrap();
        let lines = banner(&settings, &stack);
        stack.shutdown().await;
        assert_eq!(
            lines[7],
            "FlexMatch sim:   configuration default with rule set duel (2 teams, 2 rules); \
             acceptance within 20 s; tickets time out after 120 s"
        );
    }
}
