//! What the console shows, section by section, as JSON (`GET /console/api/{section}`,
//! and the `state` events of `/console/api/events`). Each section is one function over
//! the stack's own ports: the player store, the inboxes, the parties, the connection
//! registry and the GameLift simulator, read as the handlers read them.
//!
//! Adding a section is one more name in [`SECTIONS`], one
//! more arm in [`section`], and one renderer in `assets/views.js`.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use shared::domain::{EpochMillis, PlayerId, PresenceStatus};
use shared::friends::{FriendEntry, FriendState};
use shared::messaging::ReplayFrom;
use shared::players::PlayerRecord;

use super::Console;

/// The sections, in the order the page shows them.
pub const SECTIONS: &[&str] = &[
    "players",
    "connections",
    "placements",
    "fleet",
    "processes",
    "parties",
    "friends",
    "tickets",
    "metrics",
];
/// Most players a section lists (those who connected last): a load test's thousands
/// would be read from the stores every second for nothing a person can look at.
pub const MAX_PLAYERS: usize = 200;
/// Most connections listed (the oldest first).
pub const MAX_CONNECTIONS: usize = 500;

/// A player's presence, as the console names it.
pub fn presence(record: &PlayerRecord, now: EpochMillis, zombie_swept: bool) -> &'static str {
    match record.status {
        PresenceStatus::Online => "online",
        PresenceStatus::Disconnected if record.within_grace(now) => "in grace",
        // Grace over; the next sweep takes them offline.
        PresenceStatus::Disconnected => "grace over",
        PresenceStatus::Offline if zombie_swept => "zombie-swept",
        PresenceStatus::Offline => "offline",
    }
}

/// Every section, with the stack's description and the time it was read at.
pub async fn everything(console: &Console) -> Value {
    let now = console.clock.now_millis();
    let mut all = serde_json::Map::new();
    all.insert("now".into(), json!(now));
    all.insert("stack".into(), console.info.clone());
    // How many there are in all, when a section lists only some.
    all.insert(
        "totals".into(),
        json!({
            "players": console.hub.player_count(),
            "connections": console.registry.len(),
        }),
    );
    for name in SECTIONS {
        if let Some(value) = section(console, name, now).await {
            all.insert((*name).to_owned(), value);
        }
    }
    Value::Object(all)
}

/// One section by name; `None` for a name that is not one.
pub async fn section(console: &Console, name: &str, now: EpochMillis) -> Option<Value> {
    Some(match name {
        "players" => players(console, now).await,
        "connections" => connections(console, now),
        "placements" => json!(console.simulator.snapshot().placements),
        "fleet" => fleet(console),
        "processes" => super::processes::section(console),
        "parties" => parties(console).await,
        "friends" => friends(console).await,
        "tickets" => console.hub.tickets.list(),
        "metrics" => console.hub.metrics.snapshot(),
        _ => return None,
    })
}

async fn records(console: &Console) -> Result<Vec<PlayerRecord>, String> {
    let ids: Vec<PlayerId> = console
        .hub
        .players(MAX_PLAYERS)
        .0
        .into_iter()
        .filter_map(|id| PlayerId::parse(id).ok())
        .collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut records = console
        .players
        .get_many(&ids)
        .await
        .map_err(|error| shared::telemetry::ErrorChain(&error).to_string())?;
    records.sort_by(|a, b| a.player_id.as_str().cmp(b.player_id.as_str()));
    Ok(records)
}

/// The players seen since start (the [`MAX_PLAYERS`] who connected last): presence, activity (what friends and
/// subscribers see of it now), connection, what they wait for or play in, and their inbox (messages kept, of which not yet acknowledged by their client).
async fn players(console: &Console, now: EpochMillis) -> Value {
    let records = match records(console).await {
        Ok(records) => records,
        Err(error) => return json!({ "error": error }),
    };
    let mut players = Vec::with_capacity(records.len());
    for record in records {
        let inbox = console
            .messages
            .read(&record.player_id, &ReplayFrom::EVERYTHING, now)
            .await;
        let backlog = match inbox {
            Ok(read) => {
                let acked = record.acked_seq;
                let unacked = read
                    .messages
                    .iter()
                    .filter(|m| acked.is_none_or(|a| m.seq > a))
                    .count();
                json!({
                    "stored": read.messages.len(),
                    "unacked": unacked,
                    "head": read.head,
                    "ackedSeq": acked,
                })
            }
            Err(error) => json!({ "error": shared::telemetry::ErrorChain(&error).to_string() }),
        };
        let zombie = console.hub.zombie_swept(record.player_id.as_str());
        players.push(json!({
            "playerId": record.player_id.as_str(),
            "presence": presence(&record, now, zombie),
            "activity": record.watched_activity(now),
            "status": record.status.as_str(),
            "connectionId": record.connection_id.as_str(),
            "live": record.is_live(),
            "connectedAt": record.connected_at,
            "lastSeen": record.last_seen,
            "sweepAt": record.sweep_at,
            "partyId": record.party_id.as_ref().map(|p| p.as_str().to_owned()),
            "pendingPlacementId": record.pending.as_ref().map(|p| p.stored()),
            "gameSession": record.game_session,
            "backlog": backlog,
        }));
    }
    Value::Array(players)
}

/// The open connections (the [`MAX_CONNECTIONS`] oldest): whose, how old, how long idle (API Gateway closes at 10 min).
fn connections(console: &Console, now: EpochMillis) -> Value {
    let mut open = console.registry.list();
    open.sort_by_key(|(_, meta)| meta.connected_at);
    open.truncate(MAX_CONNECTIONS);
    let list: Vec<Value> = open
        .into_iter()
        .map(|(id, meta)| {
            json!({
                "connectionId": id,
                "playerId": meta.player_id,
                "connectedAt": meta.connected_at,
                "lastActiveAt": meta.last_active_at(),
                "ageMs": (now - meta.connected_at).max(0),
                "idleMs": (now - meta.last_active_at()).max(0),
                "sourceIp": meta.source_ip,
                "userAgent": meta.user_agent,
            })
        })
        .collect();
    Value::Array(list)
}

/// The simulated fleet: servers, game and player sessions, capacity, runtime faults.
fn fleet(console: &Console) -> Value {
    let snapshot = console.simulator.snapshot();
    let settings = console.simulator.settings();
    let slots = u64::from(settings.fleet_servers) * u64::from(settings.sessions_per_server);
    let active_games = snapshot
        .game_sessions
        .iter()
        .filter(|g| g.status == crate::gamelift::GameSessionStatus::Active)
        .count();
    let ready = snapshot
        .servers
        .iter()
        .filter(|s| {
            matches!(
                s.state,
                crate::gamelift::ServerState::StandingBy | crate::gamelift::ServerState::Active
            ) && s.sessions_hosted < settings.sessions_per_server
        })
        .count();
    json!({
        "servers": snapshot.servers,
        "gameSessions": snapshot.game_sessions,
        "playerSessions": snapshot.player_sessions,
        "capacity": {
            "servers": settings.fleet_servers,
            "sessionsPerServer": settings.sessions_per_server,
            "slots": slots,
            "activeGames": active_games,
            "serversReady": ready,
        },
        "faults": console.simulator.faults(),
        "playerGateway": snapshot.player_gateway,
        "connectionDetailsCalls": snapshot.connection_details_calls,
        "playerConnections": snapshot.player_connections,
        "placementDelayMs": u64::try_from(settings.placement_delay.as_millis()).unwrap_or(u64::MAX),
        "queueTimeoutSeconds": settings.queue_timeout.as_secs(),
        "gameSessionSeconds": settings.game_session_duration.as_secs(),
    })
}

/// The parties the seen players are in, each once.
async fn parties(console: &Console) -> Value {
    let records = match records(console).await {
        Ok(records) => records,
        Err(error) => return json!({ "error": error }),
    };
    let ids: BTreeSet<_> = records.into_iter().filter_map(|r| r.party_id).collect();
    let mut parties = Vec::with_capacity(ids.len());
    for id in ids {
        match console.parties.get(&id).await {
            Ok(Some(party)) => parties.push(json!({
                "partyId": party.party_id.as_str(),
                "leaderId": party.leader_id.as_str(),
                "maxSize": party.max_size,
                "version": party.version,
                "createdAt": party.created_at,
                "members": party.members.iter().map(|m| json!({
                    "playerId": m.player_id.as_str(),
                    "presence": m.presence.as_str(),
                    "joinedAt": m.joined_at,
                })).collect::<Vec<_>>(),
            })),
            Ok(None) => {}
            Err(error) => parties.push(json!({
                "partyId": id.as_str(),
                "error": shared::telemetry::ErrorChain(&error).to_string(),
            })),
        }
    }
    Value::Array(parties)
}

/// The seen players' relations, one row per player who has any: friends (with presence),
/// invitations sent and received, blocks; each player's first `listFriends` page, read as
/// the route reads it (`more`: the player has more than a page).
async fn friends(console: &Console) -> Value {
    let records = match records(console).await {
        Ok(records) => records,
        Err(error) => return json!({ "error": error }),
    };
    let mut rows = Vec::new();
    for record in records {
        let player = record.player_id;
        let page = shared::friends::page(
            console.relations.as_ref(),
            console.players.as_ref(),
            console.clock.as_ref(),
            &player,
            &Default::default(),
        )
        .await;
        let page = match page {
            Ok(page) if page.friends.is_empty() => continue,
            Ok(page) => page,
            Err(error) => {
                rows.push(json!({
                    "playerId": player.as_str(),
                    "error": shared::telemetry::ErrorChain(&error).to_string(),
                }));
                continue;
            }
        };
        let mut row = json!({ "playerId": player.as_str(), "more": page.cursor.is_some() });
        for state in [
            FriendState::Friends,
            FriendState::Invited,
            FriendState::Invitation,
            FriendState::Blocked,
        ] {
            let entries: Vec<&FriendEntry> =
                page.friends.iter().filter(|e| e.state == state).collect();
            row[state.as_str()] = json!(entries);
        }
        rows.push(row);
    }
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use contracts::fixtures::{connection, new_connection, player};
    use memory_adapters::InMemoryPlayerStore;
    use shared::ports::{Connections, PlayerReader, PresenceSweep};

    use super::presence;

    #[tokio::test]
    async fn a_dropped_player_is_in_grace_then_grace_over_until_swept_offline() {
        // Given alice online, then dropped at 1,000 with a grace period to 5,000
        let store = InMemoryPlayerStore::new();
        store
            .connect(&new_connection("alice", "c1", 0))
            .await
            .unwrap();
        let online = store.get(&player("alice")).await.unwrap().unwrap();
        assert_eq!(presence(&online, 500, false), "online");
        store
            .disconnect(&player("alice"), &connection("c1"), 1_000, 5_000)
            .await
            .unwrap();
        let dropped = store.get(&player("alice")).await.unwrap().unwrap();

        // Then she is in grace until it ends, and past it until the sweeper comes
        assert_eq!(presence(&dropped, 4_999, false), "in grace");
        assert_eq!(presence(&dropped, 5_001, false), "grace over");

        // And once swept: offline, or zombie-swept when her socket was a silent one
        store.mark_offline(&player("alice"), 6_000).await.unwrap();
        let swept = store.get(&player("alice")).await.unwrap().unwrap();
        assert_eq!(presence(&swept, 6_000, false), "offline");
        assert_eq!(presence(&swept, 6_000, true), "zombie-swept");
    }
}
