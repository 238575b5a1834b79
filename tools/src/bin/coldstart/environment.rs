//! The environment each function is started with: fake credentials, endpoints (nothing
//! reaches AWS), the template's variables, and DynamoDB Local's tables when asked.

use std::collections::BTreeMap;

use shared::config::settings;

use super::Args;

/// The environment every function gets besides Lambda's own ([`tools::runtime_api::lambda_environment`]):
/// fake credentials, endpoints, and the shared configuration.
pub(crate) async fn function_env(args: &Args) -> Result<Vec<(String, String)>, String> {
    let closed = closed_port()?;
    let mut env: BTreeMap<String, String> = [
        ("AWS_REGION", "us-east-1"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "AKIDCOLDSTARTFAKE"),
        ("AWS_SECRET_ACCESS_KEY", "coldstart-fake-secret"),
        ("AWS_SESSION_TOKEN", "coldstart-fake-session"),
        ("GAME", "gamelift-sockets"),
        ("STAGE", "Development"),
        ("PLAYERS_TABLE", "coldstart-players"),
        ("MESSAGES_TABLE", "coldstart-messages"),
        ("PLACEMENTS_TABLE", "coldstart-placements"),
        ("SUBSCRIPTIONS_TABLE", "coldstart-subscriptions"),
        ("PARTIES_TABLE", "coldstart-parties"),
        ("FRIENDS_TABLE", "coldstart-friends"),
        ("PRESENCE_EVENT_BUS", "coldstart-presence"),
        ("GAME_SESSION_QUEUES", "coldstart-queue"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    // The template always sets these (its parameters' defaults are the settings' own).
    for (variable, default) in [
        (
            settings::MAX_PLAYERS_PER_SESSION.variable,
            settings::MAX_PLAYERS_PER_SESSION.default.to_string(),
        ),
        (
            settings::HEARTBEAT_TIMEOUT_SECONDS.variable,
            settings::HEARTBEAT_TIMEOUT_SECONDS.default.to_string(),
        ),
        (
            settings::RECONNECT_GRACE_SECONDS.variable,
            settings::RECONNECT_GRACE_SECONDS.default.to_string(),
        ),
        (
            settings::MESSAGE_TTL_SECONDS.variable,
            settings::MESSAGE_TTL_SECONDS.default.to_string(),
        ),
        (
            settings::PRESENCE_SHARDS.variable,
            settings::PRESENCE_SHARDS.default.to_string(),
        ),
    ] {
        env.insert(variable.to_owned(), default);
    }
    env.insert(
        "AWS_ENDPOINT_URL".into(),
        format!("http://127.0.0.1:{closed}"),
    );
    if let Some(endpoint) = &args.dynamodb_endpoint {
        env.insert("AWS_ENDPOINT_URL_DYNAMODB".into(), endpoint.clone());
    }
    for spec in &args.extra_env {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("--env {spec:?}: expected NAME=VALUE"))?;
        env.insert(name.to_owned(), value.to_owned());
    }
    if let Some(endpoint) = &args.dynamodb_endpoint {
        create_tables(endpoint, &env).await?;
    }
    Ok(env.into_iter().collect())
}

/// A local port nothing listens on (bound, then released).
fn closed_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot bind a local port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot read a local port: {e}"))
}

async fn create_tables(endpoint: &str, env: &BTreeMap<String, String>) -> Result<(), String> {
    use aws_adapters::dynamodb::{
        client_for_endpoint, create_friends_table, create_messages_table, create_parties_table,
        create_placements_table, create_players_table, create_subscriptions_table,
    };
    let client = client_for_endpoint(endpoint).await;
    let table = |name: &str| env.get(name).cloned().unwrap_or_default();
    create_players_table(&client, &table("PLAYERS_TABLE"))
        .await
        .map_err(|e| format!("creating the Players table at {endpoint}: {e}"))?;
    create_messages_table(&client, &table("MESSAGES_TABLE"))
        .await
        .map_err(|e| format!("creating the Messages table at {endpoint}: {e}"))?;
    create_subscriptions_table(&client, &table("SUBSCRIPTIONS_TABLE"))
        .await
        .map_err(|e| format!("creating the Subscriptions table at {endpoint}: {e}"))?;
    create_placements_table(&client, &table("PLACEMENTS_TABLE"))
        .await
        .map_err(|e| format!("creating the Placements table at {endpoint}: {e}"))?;
    create_parties_table(&client, &table("PARTIES_TABLE"))
        .await
        .map_err(|e| format!("creating the Parties table at {endpoint}: {e}"))?;
    create_friends_table(&client, &table("FRIENDS_TABLE"))
        .await
        .map_err(|e| format!("creating the Friends table at {endpoint}: {e}"))?;
    Ok(())
}
