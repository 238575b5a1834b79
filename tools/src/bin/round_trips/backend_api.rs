//! The backend API's rows (README, "Backend API"): each endpoint through the real
//! `backend-api` handler, on an HTTP API (payload 2.0) request built from the
//! `events/backend-api-*.json` samples, on tables of its own: alice, bob and carol
//! connected (every inbox has had a message first, so the rows show the usual append),
//! alice and bob seated in one game, then made friends and unfriended.

use std::sync::Arc;

use aws_adapters::dynamodb::{
    DynamoMessageStore, DynamoPlacementOutcomes, DynamoPlacementStore, DynamoPlayerStore,
};
use contracts::events::percent_encoded;
use contracts::fixtures::{placed_game_session, settlement};
use serde_json::{Value, json};
use shared::config::Config;
use shared::domain::{MessageId, PlacementId, PlacementStatus, PlayerId};
use shared::placement::{PlacedGameSession, PlacementRecord};
use shared::players::NewConnection;
use shared::ports::{Connections, PlacementOutcomes, PlacementRecorder};

use crate::{Bench, first_message, now};

type Error = lambda_runtime::Error;

const ARN: &str = "arn:aws:gamelift:us-east-1::gamesession/fleet-rt/gs-1";

/// One of the samples, as a template for the requests below.
const SAMPLE: &str = include_str!("../../../../events/backend-api-send-message.json");

/// `method path` with `body`, as the HTTP API hands it to the function.
fn request(method: &str, path: &str, body: Option<Value>) -> Result<lambda_http::Request, Error> {
    let mut event: Value = serde_json::from_str(SAMPLE)?;
    event["rawPath"] = json!(path);
    event["requestContext"]["http"]["method"] = json!(method);
    event["requestContext"]["http"]["path"] = json!(path);
    match body {
        Some(body) => event["body"] = json!(body.to_string()),
        None => {
            if let Some(event) = event.as_object_mut() {
                event.remove("body");
            }
        }
    }
    Ok(lambda_http::request::from_str(&event.to_string())?)
}

fn player(name: &str) -> PlayerId {
    PlayerId::parse(name).expect("valid id")
}

/// Appends the backend API rows to `bench`.
pub async fn rows(client: &aws_sdk_dynamodb::Client, bench: &mut Bench) -> Result<(), Error> {
    let config = crate::fresh_tables(client, "backend").await?;
    let players = Arc::new(DynamoPlayerStore::new(
        client.clone(),
        config.players_table.clone(),
    ));
    let messages = Arc::new(DynamoMessageStore::new(
        client.clone(),
        config.messages_table.clone(),
    ));
    for name in ["alice", "bob", "carol"] {
        let id = player(name);
        players
            .connect(&NewConnection {
                sweep_shard: id.sweep_shard(config.presence_shards),
                player_id: id.clone(),
                connection_id: shared::domain::ConnectionId::parse(format!("c-{name}"))?,
                endpoint: "https://api.example/Development".into(),
                connected_at: now(),
                now: now(),
                heartbeat_deadline: now() + 90_000,
                expire_at_secs: now() / 1000 + 86_400,
            })
            .await?;
        first_message(
            messages.as_ref(),
            MessageId::generate(now()),
            name,
            json!({"type": "message"}),
        )
        .await?;
    }
    seat(client, &config, &["alice", "bob"]).await?;
    let api = backend_api::wire(&bench.wiring(client, Arc::new(config)));
    let call = async |bench: &mut Bench, method: &str, path: &str, body: Option<Value>| {
        let request = request(method, path, body)?;
        let response = bench
            .invoke(async { Ok::<_, Error>(api.handle(request).await) })
            .await?;
        if !response.status().is_success() {
            return Err(Error::from(format!(
                "{method} {path}: {}",
                response.status()
            )));
        }
        Ok::<_, Error>(())
    };
    bench.reset();
    call(
        bench,
        "POST",
        "/v1/messages",
        Some(json!({"playerIds": ["alice"], "message": {"n": 1}})),
    )
    .await?;
    bench.row(
        "backend_message_1",
        "backend API: POST /v1/messages, 1 player",
        "1 batch read (the recipients) + 1 query + 1 put",
    );
    call(
        bench,
        "POST",
        "/v1/messages",
        Some(json!({"playerIds": ["alice", "bob", "carol"], "message": {"n": 2}})),
    )
    .await?;
    bench.row(
        "backend_message_3",
        "backend API: POST /v1/messages, 3 players",
        "1 batch read + N × (1 query + 1 put)",
    );
    call(bench, "GET", "/v1/players/alice", None).await?;
    bench.row(
        "backend_get_player",
        "backend API: GET /v1/players/{id}",
        "1 read",
    );
    call(
        bench,
        "POST",
        "/v1/players:batchGet",
        Some(json!({"playerIds": ["alice", "bob", "carol", "nobody"]})),
    )
    .await?;
    bench.row(
        "backend_batch_get",
        "backend API: POST /v1/players:batchGet, 4 ids",
        "1 batch read per 100 ids",
    );
    call(
        bench,
        "DELETE",
        "/v1/players/carol/connection",
        Some(json!({"reason": "maintenance"})),
    )
    .await?;
    bench.row(
        "backend_end_connection",
        "backend API: DELETE /v1/players/{id}/connection",
        "1 read + 1 query + 1 put (the kick; the stream posts and closes)",
    );
    call(
        bench,
        "POST",
        &format!(
            "/v1/game-sessions/{}/players/alice/left",
            percent_encoded(ARN)
        ),
        None,
    )
    .await?;
    bench.row(
        "backend_player_left",
        "backend API: POST /v1/game-sessions/{id}/players/{id}/left",
        "1 conditional write",
    );
    call(
        bench,
        "POST",
        &format!("/v1/game-sessions/{}/ended", percent_encoded(ARN)),
        Some(json!({"playerIds": ["alice", "bob"]})),
    )
    .await?;
    bench.row(
        "backend_game_ended_2",
        "backend API: POST /v1/game-sessions/{id}/ended, 2 players (1 already left)",
        "N conditional writes (a player seated elsewhere or already cleared: refused by its condition)",
    );
    call(bench, "PUT", "/v1/players/alice/friends/bob", None).await?;
    bench.row(
        "backend_add_friendship",
        "backend API: PUT /v1/players/{id}/friends/{id}",
        "1 batch read (both known on Players, both sides on Friends), then 2 queries (the inboxes' heads) + 1 transaction (both sides, both counts, both friend frames)",
    );
    call(bench, "POST", "/v1/players/alice/friends:list", None).await?;
    bench.row(
        "backend_list_friends",
        "backend API: POST /v1/players/{id}/friends:list, 1 friend",
        "1 query (a page of up to 100) + 1 batch read (the friends' presence)",
    );
    call(bench, "DELETE", "/v1/players/bob/friends/alice", None).await?;
    bench.row(
        "backend_remove_friendship",
        "backend API: DELETE /v1/players/{id}/friends/{id}",
        "1 batch read (both sides), then 2 queries + 1 transaction",
    );
    Ok(())
}

/// `names` placed together in game [`ARN`] (as `on-placement-event` settles it; set-up).
async fn seat(
    client: &aws_sdk_dynamodb::Client,
    config: &Config,
    names: &[&str],
) -> Result<(), Error> {
    let placements = Arc::new(DynamoPlacementStore::new(
        client.clone(),
        config.placements_table.clone(),
    ));
    let id = PlacementId::parse("rt-backend-1")?;
    placements
        .create(&PlacementRecord::pending(
            id.clone(),
            player(names[0]),
            "q",
            now(),
        ))
        .await?;
    let outcomes = DynamoPlacementOutcomes::new(
        client.clone(),
        config.placements_table.clone(),
        config.players_table.clone(),
        config.messages_table.clone(),
    );
    let mut settlement = settlement(id.as_str(), PlacementStatus::Fulfilled, names, now());
    settlement.game_session = Some(PlacedGameSession {
        game_session_arn: ARN.into(),
        ..placed_game_session()
    });
    outcomes.settle(&settlement).await?;
    Ok(())
}
