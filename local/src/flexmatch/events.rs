//! The FlexMatch events the simulator emits, as GameLift documents them (FlexMatch
//! developer guide, "FlexMatch events"): EventBridge-shaped, `detail-type` "GameLift
//! Matchmaking Event", `resources` [the configuration ARN], `detail` {`type`,
//! `tickets` [{`ticketId`, `startTime`, `players` [{`playerId`, `team`?,
//! `playerSessionId`?, `accepted`?}]}], `gameSessionInfo` {`players`, and once
//! succeeded `gameSessionArn`, `ipAddress`, `dnsName`, `port`}, `matchId`,
//! `acceptanceRequired`, `acceptanceTimeout`, `acceptance`, `reason`, `message`,
//! `estimatedWaitMillis`}.

use serde_json::{Map, Value, json};

use crate::time::iso8601;

pub const DETAIL_TYPE: &str = "GameLift Matchmaking Event";
pub const SOURCE: &str = "aws.gamelift";

/// One ticket as an event lists it.
#[derive(Clone, Debug)]
pub struct EventTicket {
    pub ticket_id: String,
    pub start_millis: i64,
    /// (player id, team, player session id, accepted).
    pub players: Vec<EventPlayer>,
}

#[derive(Clone, Debug, Default)]
pub struct EventPlayer {
    pub player_id: String,
    pub team: Option<String>,
    pub player_session_id: Option<String>,
    pub accepted: Option<bool>,
}

impl EventPlayer {
    fn json(&self) -> Value {
        let mut player = Map::new();
        player.insert("playerId".into(), json!(self.player_id));
        if let Some(team) = &self.team {
            player.insert("team".into(), json!(team));
        }
        if let Some(session) = &self.player_session_id {
            player.insert("playerSessionId".into(), json!(session));
        }
        if let Some(accepted) = self.accepted {
            player.insert("accepted".into(), json!(accepted));
        }
        Value::Object(player)
    }
}

/// Where the game runs (MatchmakingSucceeded).
#[derive(Clone, Debug)]
pub struct GameSessionInfo {
    pub game_session_arn: String,
    pub ip_address: String,
    pub dns_name: String,
    pub port: u16,
}

/// The event of `kind` at `at_millis` for `tickets`, with the type's own `fields`.
pub fn event(
    region: &str,
    configuration_arn: &str,
    at_millis: i64,
    kind: &str,
    tickets: &[EventTicket],
    game_session: Option<&GameSessionInfo>,
    fields: Map<String, Value>,
) -> Value {
    let players: Vec<Value> = tickets
        .iter()
        .flat_map(|t| t.players.iter().map(EventPlayer::json))
        .collect();
    let mut info = Map::new();
    if let Some(session) = game_session {
        info.insert("gameSessionArn".into(), json!(session.game_session_arn));
        info.insert("ipAddress".into(), json!(session.ip_address));
        info.insert("dnsName".into(), json!(session.dns_name));
        info.insert("port".into(), json!(session.port));
    }
    info.insert("players".into(), Value::Array(players));
    let mut detail = Map::new();
    detail.insert("type".into(), json!(kind));
    detail.insert(
        "tickets".into(),
        Value::Array(
            tickets
                .iter()
                .map(|t| {
                    json!({
                        "ticketId": t.ticket_id,
                        "startTime": iso8601(t.start_millis),
                        "players": t.players.iter().map(EventPlayer::json).collect::<Vec<_>>(),
                    })
                })
                .collect(),
        ),
    );
    detail.insert("gameSessionInfo".into(), Value::Object(info));
    detail.extend(fields);
    json!({
        "version": "0",
        "id": uuid::Uuid::new_v4().to_string(),
        "detail-type": DETAIL_TYPE,
        "source": SOURCE,
        "account": configuration_arn.split(':').nth(4).unwrap_or_default(),
        "time": iso8601(at_millis),
        "region": region,
        "resources": [configuration_arn],
        "detail": detail,
    })
}
