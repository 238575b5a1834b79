//! The console's matchmaking section: each ticket as the FlexMatch events the stack sent
//! to `on-matchmaking-event` describe it (status, players and teams, match, reason), kept
//! from the events themselves so the section needs no scan of the Placements table.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};

/// Most tickets kept (the oldest are forgotten first).
const MAX_TICKETS: usize = 200;

/// Tickets by id, in the order they were first seen.
#[derive(Default)]
pub struct Tickets {
    by_id: Mutex<BTreeMap<String, (u64, Value)>>,
    seen: Mutex<u64>,
}

/// The status a FlexMatch event gives the tickets it names, as the client sees it.
pub fn status_of(event_type: &str, detail: &Value) -> &'static str {
    match event_type {
        "MatchmakingSearching" => "SEARCHING",
        "PotentialMatchCreated" if detail["acceptanceRequired"] == json!(true) => {
            "REQUIRES_ACCEPTANCE"
        }
        "PotentialMatchCreated" | "AcceptMatchCompleted" => "PLACING",
        "AcceptMatch" => "REQUIRES_ACCEPTANCE",
        "MatchmakingSucceeded" => "COMPLETED",
        "MatchmakingTimedOut" => "TIMED_OUT",
        "MatchmakingCancelled" => "CANCELLED",
        "MatchmakingFailed" => "FAILED",
        _ => "UNKNOWN",
    }
}

impl Tickets {
    /// Applies one FlexMatch event (its EventBridge envelope) at `at`; returns the
    /// players it names.
    pub fn apply(&self, event: &Value, at: i64) -> Vec<String> {
        let detail = &event["detail"];
        let event_type = detail["type"].as_str().unwrap_or("?");
        let status = status_of(event_type, detail);
        let configuration = event["resources"][0]
            .as_str()
            .and_then(|arn| arn.rsplit('/').next())
            .unwrap_or("?");
        let mut named = Vec::new();
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        for ticket in detail["tickets"].as_array().into_iter().flatten() {
            let Some(id) = ticket["ticketId"].as_str() else {
                continue;
            };
            let players: Vec<Value> = ticket["players"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| json!({"playerId": p["playerId"], "team": p["team"]}))
                .collect();
            named.extend(
                players
                    .iter()
                    .filter_map(|p| p["playerId"].as_str().map(str::to_owned)),
            );
            // AcceptMatchCompleted without acceptance: the match fell through, and the
            // events that follow say what became of each ticket.
            let status = if event_type == "AcceptMatchCompleted"
                && detail["acceptance"].as_str() != Some("Accepted")
            {
                "REQUIRES_ACCEPTANCE"
            } else {
                status
            };
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            let order = by_id.get(id).map(|(order, _)| *order).unwrap_or_else(|| {
                *seen += 1;
                *seen
            });
            let started = by_id
                .get(id)
                .and_then(|(_, t)| t["startedAt"].as_i64())
                .unwrap_or(at);
            by_id.insert(
                id.to_owned(),
                (
                    order,
                    json!({
                        "ticketId": id,
                        "configuration": configuration,
                        "status": status,
                        "lastEvent": event_type,
                        "players": players,
                        "matchId": detail["matchId"],
                        "reason": detail["reason"],
                        "startedAt": started,
                        "updatedAt": at,
                    }),
                ),
            );
        }
        while by_id.len() > MAX_TICKETS {
            let oldest = by_id
                .iter()
                .min_by_key(|(_, (order, _))| *order)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => by_id.remove(&id),
                None => break,
            };
        }
        named
    }

    /// Every ticket kept, oldest first.
    pub fn list(&self) -> Value {
        let by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        let mut tickets: Vec<&(u64, Value)> = by_id.values().collect();
        tickets.sort_by_key(|(order, _)| *order);
        Value::Array(tickets.into_iter().map(|(_, t)| t.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: &str, extra: Value) -> Value {
        let mut detail = json!({"type": kind, "tickets": [
            {"ticketId": "mm-1", "players": [{"playerId": "alice", "team": "red"}]}]});
        if let (Some(d), Some(e)) = (detail.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        json!({"resources": ["arn:aws:gamelift:local:0:matchmakingconfiguration/default"], "detail": detail})
    }

    #[test]
    fn given_the_event_sequence_of_a_match_then_the_ticket_ends_completed_with_its_match() {
        let tickets = Tickets::default();
        assert_eq!(
            tickets.apply(&event("MatchmakingSearching", json!({})), 1),
            ["alice"]
        );
        tickets.apply(
            &event("PotentialMatchCreated", json!({"acceptanceRequired": true})),
            2,
        );
        assert_eq!(tickets.list()[0]["status"], "REQUIRES_ACCEPTANCE");
        tickets.apply(
            &event("AcceptMatchCompleted", json!({"acceptance": "Accepted"})),
            3,
        );
        assert_eq!(tickets.list()[0]["status"], "PLACING");
        tickets.apply(&event("MatchmakingSucceeded", json!({"matchId": "m-1"})), 4);
        let listed = tickets.list();
        assert_eq!(listed[0]["status"], "COMPLETED");
        assert_eq!(listed[0]["matchId"], "m-1");
        assert_eq!(listed[0]["configuration"], "default");
        assert_eq!(listed[0]["startedAt"], 1);
        assert_eq!(listed[0]["updatedAt"], 4);
    }
}
