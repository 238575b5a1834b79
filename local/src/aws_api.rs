//! The AWS APIs the local stack serves besides `@connections`, on the same port, to
//! functions run outside it (`sam local invoke` in a container, pointed here by
//! `AWS_ENDPOINT_URL` in `local/sam-env.json`): GameLift's placement, FlexMatch and
//! GetPlayerConnectionDetails (player gateway) operations, answered by the simulators as
//! the in-process functions' calls are, and EventBridge's PutEvents onto the presence bus
//! (whose rule feeds on-presence-event).
//!
//! Each in the protocol its SDK speaks: GameLift in Smithy RPC v2 CBOR (`POST
//! /service/GameLift/operation/{Operation}`, CBOR bodies), EventBridge in AWS JSON 1.1
//! (`POST /`, the operation in `X-Amz-Target`). Requests are not authenticated (no SigV4
//! check). Another operation is refused (`UnknownOperationException`, naming it);
//! anything else goes on to the API Gateway emulator as before.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use shared::domain::{PlacementId, PlayerId};
use shared::matchmaking::{AttributeValue, TicketId};
use shared::matchmaking::{MatchmakingPlayer, MatchmakingRequest};
use shared::placement::{PlacementPlayer, PlacementRequest};
use shared::ports::{
    EventBus, EventBusError, GameLiftError, Matchmaker, PlacementStarter, PlacementStopper,
    PlayerConnection, PlayerConnections, PlayerSessions,
};
use shared::presence::PresenceEvent;

use crate::routes::Dependencies;

/// The largest request read (PutEvents takes at most 256 KiB).
const MAX_BODY: usize = 1024 * 1024;

/// What answers the operations.
struct Services {
    starter: Arc<dyn PlacementStarter>,
    stopper: Arc<dyn PlacementStopper>,
    sessions: Arc<dyn PlayerSessions>,
    connections: Arc<dyn PlayerConnections>,
    matchmaker: Arc<dyn Matchmaker>,
    events: Arc<dyn EventBus>,
}

/// `app`, with the operations served in front of it.
pub fn mount(app: Router, dependencies: &Dependencies) -> Router {
    let services = &dependencies.services;
    let services = Arc::new(Services {
        starter: services.placement_starter(),
        stopper: services.placement_stopper(),
        sessions: services.player_sessions(),
        connections: services.player_connections(),
        matchmaker: services.matchmaker(),
        events: services.event_bus(),
    });
    app.layer(from_fn_with_state(services, intercept))
}

/// The GameLift operations' path prefix (RPC v2 CBOR).
const GAMELIFT_PATH: &str = "/service/GameLift/operation/";

/// An operation's refusal, in whichever protocol it is answered.
struct Fault {
    status: StatusCode,
    code: &'static str,
    message: String,
}

/// How a request is framed, and so its answer.
#[derive(Clone, Copy)]
enum Protocol {
    Cbor,
    Json,
}

async fn intercept(
    State(services): State<Arc<Services>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let target = request
        .headers()
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let (protocol, operation) = match request.uri().path().strip_prefix(GAMELIFT_PATH) {
        Some(operation) => (Protocol::Cbor, format!("GameLift.{operation}")),
        None => match target {
            Some(target) if request.uri().path() == "/" => (Protocol::Json, target),
            _ => return next.run(request).await,
        },
    };
    tracing::debug!(%operation, "AWS API call");
    let result = match read_input(request, protocol).await {
        Ok(input) => services.call(&operation, &input).await,
        Err(fault) => Err(fault),
    };
    match result {
        Ok(output) => answer(protocol, StatusCode::OK, &output),
        Err(fault) => {
            let code = match protocol {
                Protocol::Cbor => format!("com.amazonaws.gamelift#{}", fault.code),
                Protocol::Json => fault.code.to_owned(),
            };
            answer(
                protocol,
                fault.status,
                &json!({"__type": code, "message": fault.message}),
            )
        }
    }
}

/// The body as a map (an empty body: an empty one).
async fn read_input(request: Request, protocol: Protocol) -> Result<Map<String, Value>, Fault> {
    let malformed = |why: String| Fault {
        status: StatusCode::BAD_REQUEST,
        code: "SerializationException",
        message: why,
    };
    let body = to_bytes(request.into_body(), MAX_BODY)
        .await
        .map_err(|e| malformed(e.to_string()))?;
    if body.is_empty() {
        return Ok(Map::new());
    }
    let value: Value = match protocol {
        Protocol::Cbor => {
            ciborium::from_reader(body.as_ref()).map_err(|e| malformed(e.to_string()))?
        }
        Protocol::Json => serde_json::from_slice(&body).map_err(|e| malformed(e.to_string()))?,
    };
    match value {
        Value::Object(input) => Ok(input),
        _ => Err(malformed("the body is not a map".to_owned())),
    }
}

impl Services {
    async fn call(&self, target: &str, input: &Map<String, Value>) -> Result<Value, Fault> {
        let gamelift = |result: Result<(), GameLiftError>| result.map_err(|e| gamelift_fault(&e));
        match target {
            "GameLift.StartGameSessionPlacement" => {
                let request = placement_request(input)?;
                gamelift(self.starter.start_placement(&request).await)?;
                let placement = json!({"PlacementId": request.placement_id.as_str(), "GameSessionQueueName": request.queue, "Status": "PENDING"});
                Ok(json!({"GameSessionPlacement": placement}))
            }
            "GameLift.StopGameSessionPlacement" => {
                let placement_id =
                    PlacementId::parse(text(input, "PlacementId")?).map_err(invalid)?;
                gamelift(self.stopper.stop_placement(&placement_id).await)?;
                Ok(json!({}))
            }
            "GameLift.CreatePlayerSession" => {
                let player_id = PlayerId::parse(text(input, "PlayerId")?).map_err(invalid)?;
                let session = self
                    .sessions
                    .create_player_session(
                        text(input, "GameSessionId")?,
                        &player_id,
                        input.get("PlayerData").and_then(Value::as_str),
                    )
                    .await
                    .map_err(|e| gamelift_fault(&e))?;
                Ok(json!({"PlayerSession": {
                    "PlayerSessionId": session.player_session_id, "GameSessionId": session.game_session_arn,
                    "PlayerId": player_id.as_str(), "IpAddress": session.ip_address,
                    "DnsName": session.dns_name, "Port": session.port, "Status": "RESERVED"}}))
            }
            "GameLift.GetPlayerConnectionDetails" => {
                let arn = text(input, "GameSessionId")?;
                let players = player_ids(input)?;
                let details = self
                    .connections
                    .get_player_connection_details(arn, &players)
                    .await
                    .map_err(|e| gamelift_fault(&e))?;
                let details: Vec<Value> = details.iter().map(connection_detail).collect();
                Ok(json!({"GameSessionId": arn, "PlayerConnectionDetails": details}))
            }
            "GameLift.StartMatchmaking" => {
                let request = matchmaking_request(input)?;
                gamelift(self.matchmaker.start_matchmaking(&request).await)?;
                let ticket = json!({"TicketId": request.ticket_id.as_str(), "ConfigurationName": request.configuration, "Status": "QUEUED"});
                Ok(json!({"MatchmakingTicket": ticket}))
            }
            "GameLift.AcceptMatch" => {
                let ticket = TicketId::parse(text(input, "TicketId")?).map_err(invalid)?;
                let players = player_ids(input)?;
                let accept = text(input, "AcceptanceType")? == "ACCEPT";
                gamelift(
                    self.matchmaker
                        .accept_match(&ticket, &players, accept)
                        .await,
                )?;
                Ok(json!({}))
            }
            "GameLift.StopMatchmaking" => {
                let ticket = TicketId::parse(text(input, "TicketId")?).map_err(invalid)?;
                gamelift(self.matchmaker.stop_matchmaking(&ticket).await)?;
                Ok(json!({}))
            }
            "AWSEvents.PutEvents" => self.put_events(input).await,
            other => Err(Fault {
                status: StatusCode::BAD_REQUEST,
                code: "UnknownOperationException",
                message: format!(
                    "the local stack does not serve {other}; it serves GameLift's placement, matchmaking and GetPlayerConnectionDetails operations and EventBridge's PutEvents"
                ),
            }),
        }
    }

    /// Presence events go to the in-process bus; any other entry fails (as an entry the
    /// bus refused), the rest are published.
    async fn put_events(&self, input: &Map<String, Value>) -> Result<Value, Fault> {
        let entries = input
            .get("Entries")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut events = Vec::new();
        let mut results = Vec::new();
        for entry in &entries {
            let detail: Value = serde_json::from_str(entry["Detail"].as_str().unwrap_or("null"))
                .unwrap_or(Value::Null);
            match PresenceEvent::from_bus(entry["DetailType"].as_str().unwrap_or_default(), &detail)
            {
                Ok(event) => {
                    events.push(event);
                    results.push(json!({"EventId": uuid::Uuid::new_v4().to_string()}));
                }
                Err(error) => results.push(
                    json!({"ErrorCode": "InvalidArgument", "ErrorMessage": error.to_string()}),
                ),
            }
        }
        self.events.publish(&events).await.map_err(|error| {
            let code = match error {
                EventBusError::Unavailable(_) => "ThrottlingException",
                EventBusError::Other(_) => "InternalException",
            };
            Fault {
                status: StatusCode::BAD_REQUEST,
                code,
                message: error.to_string(),
            }
        })?;
        let failed = entries.len() - events.len();
        Ok(json!({"FailedEntryCount": failed, "Entries": results}))
    }
}

/// StartGameSessionPlacement's input as the port's request: the first desired player is
/// the requester (with the player data), the others the party, each with their latencies.
fn placement_request(input: &Map<String, Value>) -> Result<PlacementRequest, Fault> {
    let mut latencies: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for latency in input
        .get("PlayerLatencies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let millis = latency["LatencyInMilliseconds"]
            .as_f64()
            .unwrap_or_default();
        latencies
            .entry(latency["PlayerId"].as_str().unwrap_or_default().to_owned())
            .or_default()
            .push((
                latency["RegionIdentifier"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                millis.round() as u32,
            ));
    }
    let mut players = Vec::new();
    for desired in input
        .get("DesiredPlayerSessions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let player_id =
            PlayerId::parse(desired["PlayerId"].as_str().unwrap_or_default()).map_err(invalid)?;
        let data = desired["PlayerData"].as_str().map(str::to_owned);
        players.push((player_id, data));
    }
    if players.is_empty() {
        return Err(invalid("DesiredPlayerSessions names no player"));
    }
    let (player_id, player_data) = players.remove(0);
    let mut latencies_of =
        |player: &PlayerId| latencies.remove(player.as_str()).unwrap_or_default();
    Ok(PlacementRequest {
        placement_id: PlacementId::parse(text(input, "PlacementId")?).map_err(invalid)?,
        queue: text(input, "GameSessionQueueName")?.to_owned(),
        max_players: input
            .get("MaximumPlayerSessionCount")
            .and_then(Value::as_u64)
            .unwrap_or_default() as u32,
        latencies: latencies_of(&player_id),
        player_id,
        player_data,
        party: players
            .into_iter()
            .map(|(player_id, _)| PlacementPlayer {
                latencies: latencies_of(&player_id),
                player_id,
            })
            .collect(),
    })
}

/// StartMatchmaking's input as the port's request (FlexMatch's attribute types back to
/// the protocol's).
fn matchmaking_request(input: &Map<String, Value>) -> Result<MatchmakingRequest, Fault> {
    let mut players = Vec::new();
    for player in input
        .get("Players")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let attributes = player["PlayerAttributes"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(name, value)| Some((name.clone(), attribute(value)?)))
            .collect();
        let latencies = player["LatencyInMs"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(region, ms)| (region.clone(), ms.as_u64().unwrap_or_default() as u32))
            .collect();
        players.push(MatchmakingPlayer {
            player_id: PlayerId::parse(player["PlayerId"].as_str().unwrap_or_default())
                .map_err(invalid)?,
            attributes,
            latencies,
        });
    }
    Ok(MatchmakingRequest {
        ticket_id: TicketId::parse(text(input, "TicketId")?).map_err(invalid)?,
        configuration: text(input, "ConfigurationName")?.to_owned(),
        players,
    })
}

fn attribute(value: &Value) -> Option<AttributeValue> {
    if let Some(n) = value["N"].as_f64() {
        return Some(AttributeValue::Number(n));
    }
    if let Some(s) = value["S"].as_str() {
        return Some(AttributeValue::String(s.to_owned()));
    }
    if let Some(list) = value["SL"].as_array() {
        return Some(AttributeValue::StringList(
            list.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect(),
        ));
    }
    let map = value["SDM"].as_object()?;
    Some(AttributeValue::StringNumberMap(
        map.iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
            .collect(),
    ))
}

/// The request's `PlayerIds`.
fn player_ids(input: &Map<String, Value>) -> Result<Vec<PlayerId>, Fault> {
    input
        .get("PlayerIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|id| PlayerId::parse(id.as_str().unwrap_or_default()).map_err(invalid))
        .collect()
}

/// One player's `PlayerConnectionDetail`; `Expiration` in epoch seconds, tagged as a
/// timestamp when framed in CBOR ([`answer`]).
fn connection_detail(connection: &PlayerConnection) -> Value {
    let details = &connection.details;
    let endpoints: Vec<Value> = details
        .endpoints
        .iter()
        .map(|e| json!({"IpAddress": e.ip_address, "Port": e.port}))
        .collect();
    let mut detail = json!({"PlayerId": connection.player_id.as_str(), "Endpoints": endpoints});
    if let Some(token) = &details.player_gateway_token {
        detail["PlayerGatewayToken"] = json!(token);
    }
    if let Some(expires_at) = details.expires_at {
        detail["Expiration"] = json!(expires_at as f64 / 1000.0);
    }
    detail
}

fn text<'a>(input: &'a Map<String, Value>, field: &str) -> Result<&'a str, Fault> {
    input
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("{field} is required")))
}

fn invalid(error: impl ToString) -> Fault {
    Fault {
        status: StatusCode::BAD_REQUEST,
        code: "InvalidRequestException",
        message: error.to_string(),
    }
}

/// A simulator's refusal as GameLift words it, so the SDK adapter maps it back the same.
fn gamelift_fault(error: &GameLiftError) -> Fault {
    let (status, code) = match error {
        GameLiftError::InvalidRequest { .. } => {
            (StatusCode::BAD_REQUEST, "InvalidRequestException")
        }
        GameLiftError::NotFound { .. } => (StatusCode::BAD_REQUEST, "NotFoundException"),
        GameLiftError::SessionEnded { .. } => {
            (StatusCode::BAD_REQUEST, "InvalidGameSessionStatusException")
        }
        GameLiftError::SessionFull { .. } => (StatusCode::BAD_REQUEST, "GameSessionFullException"),
        GameLiftError::Unavailable(_) => (StatusCode::BAD_REQUEST, "ThrottlingException"),
        GameLiftError::OutcomeUnknown(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServiceException",
        ),
        GameLiftError::Other(_) => (StatusCode::BAD_REQUEST, "LocalSimulatorFault"),
    };
    let message = match error {
        GameLiftError::InvalidRequest { message }
        | GameLiftError::NotFound { message }
        | GameLiftError::SessionEnded { message }
        | GameLiftError::SessionFull { message } => message.clone(),
        other => other.to_string(),
    };
    Fault {
        status,
        code,
        message,
    }
}

/// `body` framed as `protocol` answers are.
fn answer(protocol: Protocol, status: StatusCode, body: &Value) -> Response {
    let (bytes, content_type) = match protocol {
        Protocol::Cbor => {
            let mut bytes = Vec::new();
            // A serde_json value always converts and encodes.
            let mut value = ciborium::Value::serialized(body).unwrap_or(ciborium::Value::Null);
            tag_timestamps(&mut value);
            let _ = ciborium::into_writer(&value, &mut bytes);
            (bytes, "application/cbor")
        }
        Protocol::Json => (body.to_string().into_bytes(), "application/x-amz-json-1.1"),
    };
    let mut response = (status, Body::from(bytes)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Protocol::Cbor = protocol {
        headers.insert("smithy-protocol", HeaderValue::from_static("rpc-v2-cbor"));
    }
    response
}

/// Smithy's CBOR timestamps are epoch seconds under tag 1, which the SDK requires: the
/// one timestamp served, `Expiration`, is tagged wherever it is.
fn tag_timestamps(value: &mut ciborium::Value) {
    match value {
        ciborium::Value::Map(entries) => {
            for (key, value) in entries {
                if key.as_text() == Some("Expiration") && !value.is_tag() {
                    let seconds = std::mem::replace(value, ciborium::Value::Null);
                    *value = ciborium::Value::Tag(1, Box::new(seconds));
                } else {
                    tag_timestamps(value);
                }
            }
        }
        ciborium::Value::Array(items) => items.iter_mut().for_each(tag_timestamps),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use aws_adapters::eventbridge::EventBridgeBus;
    use aws_adapters::gamelift::SdkGameLift;
    use aws_sdk_gamelift::config::{BehaviorVersion, Credentials, Region};

    use super::*;
    use crate::{RunningStack, Settings};

    async fn stack() -> RunningStack {
        stack_with(|_| {}).await
    }

    async fn stack_with(adjust: impl FnOnce(&mut Settings)) -> RunningStack {
        let mut settings = Settings::default();
        settings.gateway.port = 0;
        adjust(&mut settings);
        crate::start(settings).await.expect("the stack starts")
    }

    /// The game session of the first placement the simulator fulfils.
    async fn fulfilled_game(stack: &RunningStack) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let placements = stack.simulator().snapshot().placements;
            if let Some(arn) = placements.iter().find_map(|p| p.game_session_arn.clone()) {
                return arn;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "not fulfilled: {placements:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// A GameLift client of the SDK, as the functions build one, pointed at the stack.
    fn gamelift_client(stack: &RunningStack) -> aws_sdk_gamelift::Client {
        let config = aws_sdk_gamelift::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("local", "local", None, None, "test"))
            .endpoint_url(format!("http://{}", stack.addr()))
            .build();
        aws_sdk_gamelift::Client::from_conf(config)
    }

    fn request(placement: &str, queue: &str) -> PlacementRequest {
        PlacementRequest {
            placement_id: PlacementId::parse(placement).unwrap(),
            queue: queue.to_owned(),
            max_players: 8,
            player_id: PlayerId::parse("alice").unwrap(),
            player_data: Some("hello".into()),
            latencies: vec![("us-east-1".into(), 40)],
            party: vec![PlacementPlayer {
                player_id: PlayerId::parse("bob").unwrap(),
                latencies: vec![],
            }],
        }
    }

    #[tokio::test]
    async fn given_the_gamelift_adapter_pointed_at_the_stack_when_it_places_then_the_simulator_answers_in_cbor_with_its_refusals_mapped_back()
     {
        let stack = stack().await;
        let gamelift = SdkGameLift::new(gamelift_client(&stack));
        gamelift
            .start_placement(&request("p-1", "default-queue"))
            .await
            .expect("the simulator accepts a placement on its queue");
        // Fulfilled (the fleet's servers start first), then a seat in that game.
        let arn = fulfilled_game(&stack).await;
        let seat = gamelift
            .create_player_session(&arn, &PlayerId::parse("carol").unwrap(), Some("data"))
            .await
            .expect("a seat in the simulator's game");
        assert_eq!(seat.game_session_arn, arn);
        assert!(
            seat.player_session_id.starts_with("psess-") && seat.port > 0,
            "{seat:?}"
        );
        // Seats until the game is full, then over: refused as GameLift refuses them
        // (GameSessionFullException, InvalidGameSessionStatusException) and read back as
        // the port's errors.
        let max = stack.simulator().snapshot().game_sessions[0].maximum_player_session_count;
        let mut refused = None;
        for i in 0..=max {
            let player = PlayerId::parse(format!("seat{i}")).unwrap();
            if let Err(error) = gamelift.create_player_session(&arn, &player, None).await {
                refused = Some(error);
                break;
            }
        }
        assert!(
            matches!(refused, Some(GameLiftError::SessionFull { .. })),
            "{refused:?}"
        );
        stack.simulator().terminate_game_session(&arn).unwrap();
        let over = gamelift
            .create_player_session(&arn, &PlayerId::parse("dan").unwrap(), None)
            .await;
        assert!(
            matches!(over, Err(GameLiftError::SessionEnded { .. })),
            "{over:?}"
        );
        let unknown = gamelift
            .start_placement(&request("p-2", "no-such-queue"))
            .await;
        assert!(
            matches!(unknown, Err(GameLiftError::NotFound { .. })),
            "{unknown:?}"
        );
        let seat = gamelift
            .create_player_session(
                "arn:aws:gamelift:local::gamesession/fleet-local/none",
                &PlayerId::parse("alice").unwrap(),
                None,
            )
            .await;
        assert!(
            matches!(seat, Err(GameLiftError::NotFound { .. })),
            "{seat:?}"
        );
        // No rule set: no matchmaking, as for the functions in the stack.
        let ticket = MatchmakingRequest {
            ticket_id: TicketId::parse("t-1").unwrap(),
            configuration: "default".into(),
            players: vec![MatchmakingPlayer {
                player_id: PlayerId::parse("alice").unwrap(),
                attributes: [("skill".to_owned(), AttributeValue::Number(1000.0))].into(),
                latencies: vec![("us-east-1".into(), 40)],
            }],
        };
        let started = gamelift.start_matchmaking(&ticket).await;
        assert!(
            matches!(started, Err(GameLiftError::Unavailable(_))),
            "{started:?}"
        );
        stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_an_enabled_fleet_when_the_adapter_asks_the_stack_for_connection_details_then_relays_a_token_and_its_expiry_come_back_in_cbor()
     {
        // Given the simulated fleet behind player gateway, tokens lasting 3 s, and a game
        let stack = stack_with(|s| {
            s.simulator.sim_player_gateway = Some(shared::config::PlayerGateway::Enabled);
            s.simulator.sim_player_gateway_token_seconds = 3;
        })
        .await;
        let gamelift = SdkGameLift::new(gamelift_client(&stack));
        gamelift
            .start_placement(&request("p-1", "default-queue"))
            .await
            .expect("placed");
        let arn = fulfilled_game(&stack).await;
        let asked_at = shared::ports::Clock::now_millis(&shared::ports::SystemClock);

        // When the functions' adapter asks, as `sam local invoke`'s would
        let players = [
            PlayerId::parse("alice").unwrap(),
            PlayerId::parse("bob").unwrap(),
        ];
        let details = gamelift
            .get_player_connection_details(&arn, &players)
            .await
            .expect("the simulator's details");

        // Then each player has relays and a token of their own, expiring in about 3 s
        assert_eq!(details.len(), 2, "{details:?}");
        for (connection, player) in details.iter().zip(&players) {
            assert_eq!(&connection.player_id, player);
            let d = &connection.details;
            assert!(
                d.endpoints
                    .iter()
                    .all(|e| crate::gamelift::RELAY_IPS.contains(&e.ip_address.as_str())),
                "{d:?}"
            );
            assert!(
                d.player_gateway_token
                    .as_deref()
                    .unwrap()
                    .starts_with("pgt-")
            );
            let expires_at = d.expires_at.expect("an expiry");
            assert!(
                (asked_at + 2_000..asked_at + 4_000).contains(&expires_at),
                "{expires_at} is about 3 s after {asked_at}"
            );
        }
        assert_ne!(
            details[0].details.player_gateway_token,
            details[1].details.player_gateway_token
        );
        assert_eq!(stack.simulator().snapshot().connection_details_calls, 1);
        // And a game the simulator never made is GameLift's NotFoundException, mapped back
        let unknown = gamelift
            .get_player_connection_details(
                "arn:aws:gamelift:local::gamesession/fleet-local/none",
                &players,
            )
            .await;
        assert!(
            matches!(unknown, Err(GameLiftError::NotFound { .. })),
            "{unknown:?}"
        );
        stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_an_operation_the_stack_does_not_serve_then_it_is_refused_by_name() {
        let stack = stack().await;
        let error = gamelift_client(&stack)
            .describe_game_session_queues()
            .send()
            .await
            .expect_err("not served");
        let error = error.into_service_error();
        assert_eq!(
            aws_sdk_gamelift::error::ProvideErrorMetadata::code(&error),
            Some("UnknownOperationException")
        );
        let message =
            aws_sdk_gamelift::error::ProvideErrorMetadata::message(&error).unwrap_or_default();
        assert!(
            message.contains("GameLift.DescribeGameSessionQueues"),
            "{message}"
        );
        stack.shutdown().await;
    }

    #[tokio::test]
    async fn given_the_eventbridge_adapter_pointed_at_the_stack_when_it_publishes_presence_then_the_bus_takes_it()
     {
        let stack = stack().await;
        let config = aws_sdk_eventbridge::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("local", "local", None, None, "test"))
            .endpoint_url(format!("http://{}", stack.addr()))
            .build();
        let bus = EventBridgeBus::new(
            aws_sdk_eventbridge::Client::from_conf(config),
            "gamelift-sockets-presence",
            "gamelift-sockets.presence",
        );
        let event = PresenceEvent::connected(PlayerId::parse("alice").unwrap(), 1_795_323_600_000);
        bus.publish(&[event])
            .await
            .expect("the stack's bus takes a presence event");
        stack.shutdown().await;
    }
}
