//! Presence events on the custom presence bus (functions/on-presence-event/src/lib.rs):
//! `connect` publishes `presence.connected` for a new session, the sweeper publishes
//! `presence.disconnected`, `setActivity` publishes `presence.activity`; an EventBridge
//! rule sends them to `on-presence-event`, and other services may add rules of their
//! own.
//!
//! On the bus an event is `Source` = `<game>.presence`, `DetailType` =
//! `presence.connected` / `presence.disconnected` / `presence.activity`, `Detail` =
//! `{"playerId", "at"}`, and for `presence.activity` the activity's fields too
//! (`activity`, `details`: [`Activity`]; a cleared activity has none).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::activity::Activity;
use crate::domain::{EpochMillis, PlayerId, PresenceStatus};
use crate::players::PlayerRecord;

/// How long a subscription lasts, counted from the watcher's `connectedAt`: API
/// Gateway's maximum connection duration (2 hours), so a subscription never outlives
/// the connection that made it; clients subscribe again after reconnecting.
pub const SUBSCRIPTION_TTL_SECONDS: i64 = 2 * 3600;

/// What watchers and friends see of a player: `online` while connected or within the
/// reconnect grace period (a quick reconnect is not a blink), `offline` otherwise.
pub fn watched_status(record: Option<&PlayerRecord>, now: EpochMillis) -> PresenceStatus {
    match record {
        Some(r) if r.watched_online(now) => PresenceStatus::Online,
        _ => PresenceStatus::Offline,
    }
}

/// `DetailType` of a new session.
pub const PRESENCE_CONNECTED: &str = "presence.connected";

/// `DetailType` of a player swept offline.
pub const PRESENCE_DISCONNECTED: &str = "presence.disconnected";

/// `DetailType` of an online player's new activity (`setActivity`).
pub const PRESENCE_ACTIVITY: &str = "presence.activity";

/// Every `DetailType` a presence event has: what template.yaml's `PresenceEventsRule`
/// matches (tests/suites/template_drift.rs holds the two equal).
pub const PRESENCE_DETAIL_TYPES: [&str; 3] =
    [PRESENCE_CONNECTED, PRESENCE_DISCONNECTED, PRESENCE_ACTIVITY];

/// The `Source` of presence events for `game` (`<game>.presence`).
pub fn presence_source(game: &str) -> String {
    format!("{game}.presence")
}

/// What happened to a player's presence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PresenceChange {
    /// A new session (not a resume, not a takeover).
    Connected,
    /// Swept offline: the grace period or the heartbeat timeout ran out.
    Disconnected,
    /// An online player set (or cleared) their activity.
    Activity,
}

impl PresenceChange {
    /// The event's `DetailType`.
    pub fn detail_type(self) -> &'static str {
        match self {
            Self::Connected => PRESENCE_CONNECTED,
            Self::Disconnected => PRESENCE_DISCONNECTED,
            Self::Activity => PRESENCE_ACTIVITY,
        }
    }

    /// The `status` watchers see in `presence` frames.
    pub fn status(self) -> &'static str {
        match self {
            Self::Connected | Self::Activity => "online",
            Self::Disconnected => "offline",
        }
    }

    pub fn from_detail_type(raw: &str) -> Option<Self> {
        match raw {
            PRESENCE_CONNECTED => Some(Self::Connected),
            PRESENCE_DISCONNECTED => Some(Self::Disconnected),
            PRESENCE_ACTIVITY => Some(Self::Activity),
            _ => None,
        }
    }
}

/// One presence change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresenceEvent {
    pub player_id: PlayerId,
    pub kind: PresenceChange,
    /// When it happened (the connect, the sweep, the `setActivity`).
    pub at: EpochMillis,
    /// The player's activity after a [`PresenceChange::Activity`] (`None`: cleared); a
    /// new session starts without one and going offline clears it.
    pub activity: Option<Activity>,
}

/// The event's `Detail`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    player_id: PlayerId,
    at: EpochMillis,
    #[serde(flatten)]
    activity: Option<Activity>,
}

/// Why a bus event is not a presence event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PresenceEventError {
    #[error(
        "detail-type {0:?} is not presence.connected, presence.disconnected or presence.activity"
    )]
    UnknownDetailType(String),
    #[error("detail is not {{\"playerId\": <player id>, \"at\": <epoch ms>}}: {0}")]
    MalformedDetail(String),
}

impl PresenceEvent {
    pub fn connected(player_id: PlayerId, at: EpochMillis) -> Self {
        Self {
            player_id,
            kind: PresenceChange::Connected,
            at,
            activity: None,
        }
    }

    pub fn disconnected(player_id: PlayerId, at: EpochMillis) -> Self {
        Self {
            player_id,
            kind: PresenceChange::Disconnected,
            at,
            activity: None,
        }
    }

    /// `activity` set (`None`: cleared) by the online player `player_id`.
    pub fn activity(player_id: PlayerId, at: EpochMillis, activity: Option<Activity>) -> Self {
        Self {
            player_id,
            kind: PresenceChange::Activity,
            at,
            activity,
        }
    }

    /// The event's `DetailType`.
    pub fn detail_type(&self) -> &'static str {
        self.kind.detail_type()
    }

    /// The event's `Detail` as JSON text: `{"playerId":"alice","at":1795323600000}`
    /// (and the activity's fields, for an activity).
    pub fn detail_json(&self) -> String {
        let detail = Detail {
            player_id: self.player_id.clone(),
            at: self.at,
            activity: self.activity.clone(),
        };
        // Strings and integers only: serialization cannot fail.
        serde_json::to_string(&detail).unwrap_or_default()
    }

    /// Reads a bus event back (what `on-presence-event` receives), saying precisely what
    /// is wrong with one that is not a presence event.
    pub fn from_bus(detail_type: &str, detail: &Value) -> Result<Self, PresenceEventError> {
        let kind = PresenceChange::from_detail_type(detail_type)
            .ok_or_else(|| PresenceEventError::UnknownDetailType(detail_type.to_owned()))?;
        let detail = Detail::deserialize(detail)
            .map_err(|e| PresenceEventError::MalformedDetail(e.to_string()))?;
        Ok(Self {
            player_id: detail.player_id,
            kind,
            at: detail.at,
            // Only an activity event carries one: the others' statuses have none.
            activity: detail.activity.filter(|_| kind == PresenceChange::Activity),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn alice() -> PlayerId {
        PlayerId::parse("alice").unwrap()
    }

    #[test]
    fn given_each_change_then_detail_type_status_and_detail_are_as_designed() {
        let connected = PresenceEvent::connected(alice(), 1_795_323_600_000);
        assert_eq!(connected.detail_type(), "presence.connected");
        assert_eq!(connected.kind.status(), "online");
        assert_eq!(
            connected.detail_json(),
            r#"{"playerId":"alice","at":1795323600000}"#
        );
        let disconnected = PresenceEvent::disconnected(alice(), 5);
        assert_eq!(disconnected.detail_type(), "presence.disconnected");
        assert_eq!(disconnected.kind.status(), "offline");
        assert_eq!(presence_source("chess"), "chess.presence");
    }

    #[test]
    fn given_a_published_event_when_read_back_then_it_is_the_same_event() {
        let activity: Activity =
            serde_json::from_value(json!({"activity": "in lobby", "details": {"map": "dust"}}))
                .unwrap();
        for event in [
            PresenceEvent::connected(alice(), 1),
            PresenceEvent::disconnected(alice(), 2),
            PresenceEvent::activity(alice(), 3, Some(activity)),
            PresenceEvent::activity(alice(), 4, None),
        ] {
            let detail: Value = serde_json::from_str(&event.detail_json()).unwrap();
            assert_eq!(
                PresenceEvent::from_bus(event.detail_type(), &detail),
                Ok(event)
            );
        }
    }

    #[test]
    fn given_a_bad_bus_event_then_the_error_says_what_is_wrong() {
        assert_eq!(
            PresenceEvent::from_bus("presence.away", &json!({"playerId": "alice", "at": 1})),
            Err(PresenceEventError::UnknownDetailType(
                "presence.away".into()
            ))
        );
        for (detail, says) in [
            (json!({"at": 1}), "missing field `playerId`"),
            (json!({"playerId": "alice"}), "missing field `at`"),
            (json!({"playerId": "a b", "at": 1}), "position 1"),
            (json!({"playerId": "alice", "at": "soon"}), "invalid type"),
            (json!("alice"), "invalid type"),
        ] {
            let err = PresenceEvent::from_bus("presence.connected", &detail).unwrap_err();
            assert!(
                matches!(&err, PresenceEventError::MalformedDetail(m) if m.contains(says)),
                "{detail}: {err}"
            );
        }
    }
}
