//! Every setting of a deployment, declared once: its variable, the template parameter that
//! sets it, its default, what it accepts and what it means. The functions' readers
//! ([`super::Config::read`], the authorizer's, the matchmaking routes'), the local stack's
//! flags and `--help`, and the checks of a `Config` built in code take them from here;
//! template.yaml's parameters, and the documentation's tables, are tested against
//! [`catalogue`] (tests/suites/template_drift/settings.rs, local/tests/binary/docs.rs).
//!
//! A new setting needs one declaration and its use:
//!
//! 1. declare it here (a `Whole`, `Text`, `Flag` or `Choice`, with its template parameter
//!    if one sets it) and add it to [`catalogue`];
//! 2. read it where it is used: `env.whole(&settings::X)` (or `seconds`, `text`, `flag`,
//!    `choice`) in `Config::read` or the function's own reader, and check it in
//!    `Config::problems` if a `Config` can be built in code;
//! 3. give the local stack a flag if it reads it (`local/src/settings/knobs.rs`:
//!    `env = settings::X.variable, help = settings::X.meaning, default_value_t =
//!    settings::X.default`) and map it in `Settings::shared_variables`;
//! 4. in template.yaml, the parameter and the variable (`X: !Ref Parameter`), and a row
//!    in docs/deploy.md's parameter table; then `UPDATE_DOCS=1 cargo test -p tests
//!    --test suites settings_docs` rewrites the README's table.
//!
//! Steps 3 and 4 are checked: `template_drift::settings` fails on a parameter whose
//! default or range is not the table's, or a variable a parameter sets that the table
//! does not declare; `settings_docs` on the README's table, a deploy.md row or a `--help`
//! entry that is missing or says another default.

use std::ops::RangeInclusive;

mod kinds;

pub use kinds::{Choice, Described, Flag, Text, Whole};

// --- Every function ---------------------------------------------------------------------

pub const GAME: Text = Text {
    variable: "GAME",
    parameter: Some("Game"),
    default: Some("gamelift-sockets"),
    required: true,
    meaning: "the game's name: resource names, logs, the presence events' source",
};
pub const STAGE: Text = Text {
    variable: "STAGE",
    parameter: Some("Stage"),
    default: Some("Development"),
    required: true,
    meaning: "the stage: the WebSocket URL's path, resource names",
};
pub const PLAYERS_TABLE: Text = Text {
    variable: "PLAYERS_TABLE",
    parameter: None,
    default: Some("Players"),
    required: true,
    meaning: "the Players table (the template's; the local stack's name)",
};
pub const MESSAGES_TABLE: Text = Text {
    variable: "MESSAGES_TABLE",
    parameter: None,
    default: Some("Messages"),
    required: true,
    meaning: "the Messages table (every player's inbox)",
};
pub const PLACEMENTS_TABLE: Text = Text {
    variable: "PLACEMENTS_TABLE",
    parameter: None,
    default: Some("Placements"),
    required: true,
    meaning: "the Placements table (placements and matchmaking tickets)",
};
pub const SUBSCRIPTIONS_TABLE: Text = Text {
    variable: "SUBSCRIPTIONS_TABLE",
    parameter: None,
    default: Some("PresenceSubscriptions"),
    required: true,
    meaning: "the PresenceSubscriptions table",
};
pub const PARTIES_TABLE: Text = Text {
    variable: "PARTIES_TABLE",
    parameter: None,
    default: Some("Parties"),
    required: true,
    meaning: "the Parties table",
};
pub const FRIENDS_TABLE: Text = Text {
    variable: "FRIENDS_TABLE",
    parameter: None,
    default: Some("Friends"),
    required: true,
    meaning: "the Friends table (each side of every relation)",
};
pub const PRESENCE_EVENT_BUS: Text = Text {
    variable: "PRESENCE_EVENT_BUS",
    parameter: None,
    default: None,
    required: true,
    meaning: "the custom EventBridge bus presence events go to (name or ARN)",
};
pub const GAME_SESSION_QUEUES: Text = Text {
    variable: "GAME_SESSION_QUEUES",
    parameter: None,
    default: Some("default-queue"),
    required: true,
    meaning: "comma-separated GameLift queue names (or ARNs); the first is the default (the template: the queue it creates first, then GameSessionQueues)",
};
pub const MAX_PLAYERS_PER_SESSION: Whole<u32> = Whole {
    variable: "MAX_PLAYERS_PER_SESSION",
    parameter: Some("MaxPlayersPerSession"),
    default: 8,
    // GameLift's MaximumPlayerSessionCount allows at most 200.
    range: 1..=200,
    unit: None,
    meaning: "MaximumPlayerSessionCount of the game sessions placements create",
};
pub const MESSAGE_TTL_SECONDS: Whole<u64> = Whole {
    variable: "MESSAGE_TTL_SECONDS",
    parameter: Some("MessageTtlSeconds"),
    default: 86_400,
    // From a minute to two weeks.
    range: 60..=1_209_600,
    unit: Some("seconds"),
    meaning: "undelivered messages are kept this long",
};
pub const HEARTBEAT_TIMEOUT_SECONDS: Whole<u64> = Whole {
    variable: "HEARTBEAT_TIMEOUT_SECONDS",
    parameter: Some("HeartbeatTimeoutSeconds"),
    default: 90,
    // Up to API Gateway's maximum connection duration (2 hours).
    range: 1..=7_200,
    unit: Some("seconds"),
    meaning: "no sign of life for this long: the player is swept offline; clients are told to send one every (timeout - timeout/10) / 2 s",
};
pub const PRESENCE_LIVENESS: Choice = Choice {
    variable: "PRESENCE_LIVENESS",
    parameter: Some("PresenceLiveness"),
    default: "heartbeat",
    values: &["heartbeat", "connection-activity"],
    meaning: "heartbeat: only heartbeats keep a player online; connection-activity: pings too (the sweeper asks API Gateway)",
};
pub const RECONNECT_GRACE_SECONDS: Whole<u64> = Whole {
    variable: "RECONNECT_GRACE_SECONDS",
    parameter: Some("ReconnectGraceSeconds"),
    default: 30,
    range: 0..=3_600,
    unit: Some("seconds"),
    meaning: "a disconnected player may resume within this",
};
pub const PRESENCE_SHARDS: Whole<u32> = Whole {
    variable: "PRESENCE_SHARDS",
    parameter: Some("PresenceShards"),
    default: 4,
    range: 1..=64,
    unit: None,
    meaning: "partitions of the BySweepShard index",
};
/// Per-player limits per minute: 0 turns one off.
const RATE_LIMIT_RANGE: RangeInclusive<u32> = 0..=1_000_000;
pub const RATE_LIMIT_MESSAGES_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_MESSAGES_PER_MINUTE",
    parameter: Some("RateLimitMessagesPerMinute"),
    default: 120,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "sendMessage frames a player may send per minute (0: no limit)",
};
pub const RATE_LIMIT_RECIPIENTS_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_RECIPIENTS_PER_MINUTE",
    parameter: Some("RateLimitRecipientsPerMinute"),
    default: 600,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "recipients a player may message per minute, over all their frames (0: no limit)",
};
pub const RATE_LIMIT_PLACEMENTS_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_PLACEMENTS_PER_MINUTE",
    parameter: Some("RateLimitPlacementsPerMinute"),
    default: 10,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "placement and matchmaking requests a player may send per minute (0: no limit)",
};
pub const RATE_LIMIT_PARTY_INVITES_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_PARTY_INVITES_PER_MINUTE",
    parameter: Some("RateLimitPartyInvitesPerMinute"),
    default: 30,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "inviteToParty requests a player may send per minute (0: no limit)",
};
pub const RATE_LIMIT_FRIEND_INVITES_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_FRIEND_INVITES_PER_MINUTE",
    parameter: Some("RateLimitFriendInvitesPerMinute"),
    default: 30,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "addFriend requests a player may send per minute (0: no limit)",
};
pub const RATE_LIMIT_ACTIVITY_PER_MINUTE: Whole<u32> = Whole {
    variable: "RATE_LIMIT_ACTIVITY_PER_MINUTE",
    parameter: Some("RateLimitActivityPerMinute"),
    default: 30,
    range: RATE_LIMIT_RANGE,
    unit: None,
    meaning: "setActivity requests a player may send per minute (0: no limit)",
};
pub const PARTY_MAX_SIZE: Whole<u32> = Whole {
    variable: "PARTY_MAX_SIZE",
    parameter: Some("PartyMaxSize"),
    default: 8,
    // At most 10, so that a party fits one FlexMatch ticket (and a change, one transaction).
    range: 2..=10,
    unit: None,
    meaning: "the most members a party may have",
};
pub const PARTY_INVITE_TTL_SECONDS: Whole<u64> = Whole {
    variable: "PARTY_INVITE_TTL_SECONDS",
    parameter: Some("PartyInviteTtlSeconds"),
    default: 300,
    range: 10..=86_400,
    unit: Some("seconds"),
    meaning: "an invitation can be taken up this long",
};
pub const PARTY_OFFLINE_SECONDS: Whole<u64> = Whole {
    variable: "PARTY_OFFLINE_SECONDS",
    parameter: Some("PartyOfflineSeconds"),
    default: 120,
    range: 0..=86_400,
    unit: Some("seconds"),
    meaning: "a member the sweeper took offline stays in the party this long",
};
pub const PARTY_INVITE_LEADER_ONLY: Flag = Flag {
    variable: "PARTY_INVITE_LEADER_ONLY",
    parameter: Some("PartyInviteLeaderOnly"),
    default: false,
    meaning: "true: only the party's leader invites; false: any member",
};

pub const DETAILED_METRICS: Flag = Flag {
    variable: "DETAILED_METRICS",
    parameter: Some("DetailedMetrics"),
    default: false,
    meaning: "true: metrics also per route, queue and rate-limit bucket (more custom metrics, \
              billed by the hour); false: the series the alarms and the dashboard need",
};

pub const PLAYER_GATEWAY: Choice = Choice {
    variable: "PLAYER_GATEWAY",
    parameter: Some("PlayerGateway"),
    default: "disabled",
    values: &["disabled", "enabled", "required"],
    meaning: "the queues' fleets' PlayerGatewayMode: disabled (seats carry the game server's address), enabled or required (one GetPlayerConnectionDetails per game session; if it fails, enabled seats go direct, required ones say connectionUnavailable)",
};

// --- The authorizer: its own module (`settings/authorizer.rs`) ---------------------------

mod authorizer;
pub use authorizer::*;

// --- The matchmaking routes ---------------------------------------------------------------

pub const MATCHMAKING_CONFIGURATIONS: Text = Text {
    variable: "MATCHMAKING_CONFIGURATIONS",
    parameter: None,
    default: None,
    required: false,
    meaning: "comma-separated FlexMatch configurations a client may name (none: matchmaking is off); the template's is the one it creates, or MatchmakingConfigurationName",
};
pub const MATCHMAKING_CONFIGURATION: Text = Text {
    variable: "MATCHMAKING_CONFIGURATION",
    parameter: None,
    default: None,
    required: false,
    meaning: "the default configuration, one of MATCHMAKING_CONFIGURATIONS (unset: the first)",
};

/// Every setting above, in the order the documentation lists them.
pub fn catalogue() -> Vec<Described> {
    vec![
        GAME.describe(),
        STAGE.describe(),
        PLAYERS_TABLE.describe(),
        MESSAGES_TABLE.describe(),
        PLACEMENTS_TABLE.describe(),
        SUBSCRIPTIONS_TABLE.describe(),
        PARTIES_TABLE.describe(),
        FRIENDS_TABLE.describe(),
        PRESENCE_EVENT_BUS.describe(),
        GAME_SESSION_QUEUES.describe(),
        MAX_PLAYERS_PER_SESSION.describe(),
        MESSAGE_TTL_SECONDS.describe(),
        HEARTBEAT_TIMEOUT_SECONDS.describe(),
        PRESENCE_LIVENESS.describe(),
        RECONNECT_GRACE_SECONDS.describe(),
        PRESENCE_SHARDS.describe(),
        RATE_LIMIT_MESSAGES_PER_MINUTE.describe(),
        RATE_LIMIT_RECIPIENTS_PER_MINUTE.describe(),
        RATE_LIMIT_PLACEMENTS_PER_MINUTE.describe(),
        RATE_LIMIT_PARTY_INVITES_PER_MINUTE.describe(),
        RATE_LIMIT_FRIEND_INVITES_PER_MINUTE.describe(),
        RATE_LIMIT_ACTIVITY_PER_MINUTE.describe(),
        PARTY_MAX_SIZE.describe(),
        PARTY_INVITE_TTL_SECONDS.describe(),
        PARTY_OFFLINE_SECONDS.describe(),
        PARTY_INVITE_LEADER_ONLY.describe(),
        PLAYER_GATEWAY.describe(),
        DETAILED_METRICS.describe(),
        AUTH_MODE.describe(),
        ALLOW_UNAUTHENTICATED.describe(),
        JWT_ISSUER.describe(),
        JWT_AUDIENCE.describe(),
        JWKS_URL.describe(),
        JWT_HS256_SECRET_PARAMETER.describe(),
        JWT_LEEWAY_SECONDS.describe(),
        JWT_MAX_LIFETIME_SECONDS.describe(),
        MATCHMAKING_CONFIGURATIONS.describe(),
        MATCHMAKING_CONFIGURATION.describe(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_the_catalogue_then_every_variable_is_listed_once_with_a_meaning() {
        let all = catalogue();
        let mut variables: Vec<&str> = all.iter().map(|s| s.variable).collect();
        variables.sort_unstable();
        variables.dedup();
        assert_eq!(variables.len(), all.len(), "a variable listed twice");
        assert!(all.iter().all(|s| !s.meaning.is_empty()));
    }

    #[test]
    fn given_a_whole_number_setting_then_its_problem_names_the_variable_and_the_range() {
        assert_eq!(HEARTBEAT_TIMEOUT_SECONDS.check(90), None);
        assert_eq!(
            HEARTBEAT_TIMEOUT_SECONDS.check(7_201).as_deref(),
            Some("HEARTBEAT_TIMEOUT_SECONDS=7201 is not a whole number of seconds from 1 to 7200")
        );
        assert_eq!(PRESENCE_SHARDS.accepts(), "a whole number from 1 to 64");
        assert_eq!(
            PRESENCE_LIVENESS.accepts(),
            "heartbeat or connection-activity"
        );
    }
}
