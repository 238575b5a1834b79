//! `presence-timeout`: the sweeper, on an EventBridge schedule (every minute). It is
//! what guarantees presence converges, since `$disconnect` is best-effort
//! (contracts/src/lib.rs).
//!
//! For each shard of the sparse `BySweepShard` index, it pages through every tracked
//! player (online or disconnected: a page of keys, then their `sweepAt` in one batched
//! read), keeps those whose `sweepAt` has passed (a heartbeat deadline, or the end of a
//! grace period) and for each, concurrently up to a bound:
//! - with `PRESENCE_LIVENESS=connection-activity` only, if they are online, asks API
//!   Gateway when their socket was last active (GetConnection): a client that only sends
//!   `ping` frames (no function, no write) never moves `sweepAt`, so a socket active
//!   within `HEARTBEAT_TIMEOUT_SECONDS` keeps its player online and nothing is written
//!   (it is asked again next sweep); a failed call leaves the player for the next sweep.
//!   With `heartbeat` (the default) the deadline alone decides: AWS does not document
//!   which frames move `lastActiveAt` (docs/deploy.md#what-this-stack-assumes-of-aws);
//! - marks them offline with a conditional write (only if `sweepAt` is still old: a
//!   heartbeat or reconnect that landed meanwhile wins, and the player is left alone);
//! - if they were still `online` (a zombie: the socket is open but silent), closes the
//!   socket;
//! - publishes `presence.disconnected` (10 per PutEvents call, while the sweep goes on);
//! - for a party member, marks them offline in the party (`party.rs`).
//!
//! Then it removes from their parties the members offline for `PARTY_OFFLINE_SECONDS`
//! (`party.rs`).
//!
//! Shards are read round-robin, a page each, so a backlog in one does not starve the
//! others. A margin before the invocation's deadline the sweep starts no new player
//! (nor page): the work in flight finishes, the players not reached stay in the index
//! for the next run. Round trips: one Query and one BatchGetItem per page of 100
//! tracked players, one GetConnection per online player past its deadline (in
//! `connection-activity` mode), one
//! UpdateItem per player swept, one DeleteConnection per zombie,
//! one PutEvents per 10 players.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use futures_util::StreamExt;
use futures_util::stream;
use lambda_runtime::LambdaEvent;
use serde::Serialize;
use serde_json::Value;
use shared::config::{Config, PresenceLiveness};
use shared::domain::{EpochMillis, PlayerId, PresenceStatus};
use shared::frames::{DisconnectReason, ServerFrame};
use shared::party::CommitScope;
use shared::party::Parties;
use shared::players::ExpiredPlayer;
use shared::ports::{
    Clock, ConnectionGateway, ConnectionProbe, EventBus, GatewayError, OfflineParties,
    PresenceSweep,
};
use shared::presence::PresenceEvent;
use shared::telemetry::ErrorChain;
use tokio::sync::mpsc;
use tracing::{error, info, warn};

/// Tracked players per page (at most 100: one BatchGetItem).
pub const PAGE_SIZE: u32 = 100;
/// Players being marked offline (and zombie sockets being closed) at once.
pub const DEFAULT_CONCURRENCY: usize = 32;
/// No new player is started (nor page fetched) once the invocation's deadline is this
/// close: what is in flight then (at most `concurrency` players, a few round trips
/// each) and the last PutEvents calls must fit in it.
pub const DEFAULT_DEADLINE_MARGIN: Duration = Duration::from_secs(3);
/// Events handed to the bus per `publish` call (10 PutEvents calls).
const PUBLISH_CHUNK: usize = 100;

/// What one sweep did; the function's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepSummary {
    /// Players marked offline (each got a `presence.disconnected`).
    pub swept: usize,
    /// Of those, zombies whose socket was closed (or found closed already).
    pub zombies_closed: usize,
    /// Online players past their deadline whose socket API Gateway saw active within the
    /// timeout (they ping): left online, nothing written.
    pub still_active: usize,
    /// Party members removed for having been offline `PARTY_OFFLINE_SECONDS`.
    pub removed_from_parties: usize,
    /// True when the deadline stopped the sweep with players (or pages) left for the
    /// next run.
    pub stopped_early: bool,
    /// Pages, players or events that failed (store or bus faults); retried next run,
    /// except events, which are lost (logged with the player ids).
    pub failed: usize,
}

/// A sweep that hit faults: the invocation fails so that alarms fire.
#[derive(Debug, thiserror::Error)]
#[error("the sweep hit {} failures (swept {}, zombies closed {}); see the logs", .0.failed, .0.swept, .0.zombies_closed)]
pub struct SweepFailed(pub SweepSummary);

/// What a sweep's reads saw of the tracked players: its metrics come from the scan it
/// makes anyway, not from one more.
#[derive(Default)]
struct Scan {
    examined: AtomicUsize,
    online: AtomicUsize,
}

impl Scan {
    fn read(&self, page: &shared::players::ExpiredPage) {
        self.examined.fetch_add(page.examined, Ordering::Relaxed);
        self.online.fetch_add(page.online, Ordering::Relaxed);
    }

    /// The sweep's metrics; players online only from a sweep that read every shard.
    fn count(&self, summary: &SweepSummary, took: Duration) {
        let complete = !summary.stopped_early && summary.failed == 0;
        shared::metrics::sweep(shared::metrics::Sweep {
            examined: self.examined.load(Ordering::Relaxed),
            swept: summary.swept,
            failures: summary.failed,
            duration_ms: took.as_millis() as i64,
            online: complete.then(|| self.online.load(Ordering::Relaxed)),
        });
    }
}

/// What happened to one expired player.
enum Retired {
    Offline {
        event: PresenceEvent,
        closed: bool,
        /// Their party could not be told (counted as a failure).
        party_failed: bool,
    },
    /// A heartbeat or reconnect won the race (or another sweep got there first).
    StillHere,
    /// Its socket was active within the timeout (GetConnection): not expired.
    Active,
    /// Not started: the deadline margin was reached; the player stays in the index.
    LeftForNextRun,
    Failed,
}

shared::wired! {
    /// The sweeper as every deployment builds it: members offline too long leave their
    /// party ([`CommitScope::Departures`]); in the connection-activity liveness mode, and
    /// only then, it asks API Gateway about an expired player's socket.
    pub fn wire(w) -> pub struct PresenceTimeoutHandler {
        config: Arc<Config> = w.config.clone(),
        players: Arc<dyn PresenceSweep> = w.stores.presence_sweep(),
        gateway: Arc<dyn ConnectionGateway> = w.services.connection_gateway(),
        /// Asked when an expired online player's socket was last active (a `ping` keeps it
        /// online); `None`: the heartbeat deadline alone decides.
        probe: Option<Arc<dyn ConnectionProbe>> = match w.config.presence_liveness {
            PresenceLiveness::ConnectionActivity => Some(w.services.connection_probe()),
            PresenceLiveness::Heartbeat => None,
        },
        events: Arc<dyn EventBus> = w.services.event_bus(),
        parties: Parties = w.parties(CommitScope::Departures),
        offline_parties: Arc<dyn OfflineParties> = w.stores.offline_parties(),
        clock: Arc<dyn Clock> = w.clock.clone(),
        deadline_margin: Duration = DEFAULT_DEADLINE_MARGIN,
        concurrency: usize = DEFAULT_CONCURRENCY,
    }
}

impl PresenceTimeoutHandler {
    /// Starts no new player `margin` before the invocation's deadline.
    pub fn with_deadline_margin(mut self, margin: Duration) -> Self {
        self.deadline_margin = margin;
        self
    }

    /// Marks at most `concurrency` players offline at once (at least 1).
    pub fn with_concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// The Lambda entry point: a scheduled event. `Err` when the sweep hit faults.
    pub async fn handle(
        &self,
        event: LambdaEvent<EventBridgeEvent<Value>>,
    ) -> Result<SweepSummary, lambda_runtime::Error> {
        // Lambda always sets a deadline; 0 (a hand-made context) means none.
        let deadline = i64::try_from(event.context.deadline)
            .ok()
            .filter(|deadline| *deadline > 0);
        let now = self.clock.now_millis();
        let summary = self.sweep(now, deadline).await;
        if summary.failed > 0 {
            return Err(SweepFailed(summary).into());
        }
        Ok(summary)
    }

    /// One sweep of every shard as of `now`, without a deadline: what the local stack
    /// runs on an interval.
    pub async fn sweep_once(&self, now: EpochMillis) -> SweepSummary {
        self.sweep(now, None).await
    }

    async fn sweep(&self, now: EpochMillis, deadline: Option<EpochMillis>) -> SweepSummary {
        let stop_at = deadline.map(|d| d - self.deadline_margin.as_millis() as i64);
        let started = std::time::Instant::now();
        let stopped_early = AtomicBool::new(false);
        let failed = AtomicUsize::new(0);
        let scan = Scan::default();
        let (events_tx, events_rx) = mpsc::unbounded_channel();

        let sweeping = async {
            let mut swept = 0;
            let mut closed = 0;
            let mut active = 0;
            let retired = self
                .expired_players(now, stop_at, &stopped_early, &failed, &scan)
                .map(|player| self.retire(player, now, stop_at, &stopped_early))
                .buffer_unordered(self.concurrency);
            let mut retired = std::pin::pin!(retired);
            while let Some(outcome) = retired.next().await {
                match outcome {
                    Retired::Offline {
                        event,
                        closed: c,
                        party_failed,
                    } => {
                        swept += 1;
                        closed += usize::from(c);
                        if party_failed {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                        // The receiver lives until this sender is dropped.
                        let _ = events_tx.send(event);
                    }
                    Retired::Active => active += 1,
                    Retired::StillHere | Retired::LeftForNextRun => {}
                    Retired::Failed => {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            drop(events_tx);
            (swept, closed, active)
        };
        let ((swept, zombies_closed, still_active), unpublished) =
            futures_util::future::join(sweeping, self.publish_all(events_rx)).await;
        let removed_from_parties = self
            .remove_long_offline(now, stop_at, &stopped_early, &failed)
            .await;
        let summary = SweepSummary {
            swept,
            zombies_closed,
            still_active,
            removed_from_parties,
            stopped_early: stopped_early.load(Ordering::Relaxed),
            failed: failed.load(Ordering::Relaxed) + unpublished,
        };
        scan.count(&summary, started.elapsed());
        // Players kept online by their pings alone are the steady state: not logged
        // (a line a minute for nothing), but counted in the summary.
        let quiet = SweepSummary {
            still_active: 0,
            ..summary
        };
        if quiet != SweepSummary::default() {
            info!(
                swept = summary.swept,
                zombies_closed = summary.zombies_closed,
                still_active = summary.still_active,
                removed_from_parties = summary.removed_from_parties,
                stopped_early = summary.stopped_early,
                failed = summary.failed,
                "presence sweep"
            );
        }
        summary
    }

    /// Every expired player of every shard, a page at a time, shards round-robin; ends
    /// early (setting `stopped_early`) once the clock reaches `stop_at`, checked for
    /// every player as `buffer_unordered` pulls it (when it has room to start it), so
    /// the sweep stops mid-page.
    fn expired_players<'a>(
        &'a self,
        now: EpochMillis,
        stop_at: Option<EpochMillis>,
        stopped_early: &'a AtomicBool,
        failed: &'a AtomicUsize,
        scan: &'a Scan,
    ) -> impl futures_util::Stream<Item = ExpiredPlayer> + 'a {
        let out_of_time = move || self.out_of_time(stop_at, stopped_early);
        let cursors: VecDeque<(u32, Option<PlayerId>)> = (0..self.config.presence_shards)
            .map(|s| (s, None))
            .collect();
        stream::unfold(cursors, move |mut cursors| async move {
            let (shard, after) = cursors.pop_front()?;
            if out_of_time() {
                return None;
            }
            match self
                .players
                .expired(shard, now, PAGE_SIZE, after.as_ref())
                .await
            {
                Ok(page) => {
                    scan.read(&page);
                    if let Some(next) = page.next {
                        cursors.push_back((shard, Some(next)));
                    }
                    Some((page.players, cursors))
                }
                Err(err) => {
                    // This shard waits for the next run; the others go on.
                    error!(shard, error = %ErrorChain(&err), "could not read expired players");
                    failed.fetch_add(1, Ordering::Relaxed);
                    Some((Vec::new(), cursors))
                }
            }
        })
        .flat_map(stream::iter)
        .take_while(move |_| std::future::ready(!out_of_time()))
    }

    /// Whether the clock has reached `stop_at`; the first time it has, records and logs
    /// that the sweep stops early.
    fn out_of_time(&self, stop_at: Option<EpochMillis>, stopped_early: &AtomicBool) -> bool {
        let out = stop_at.is_some_and(|stop_at| self.clock.now_millis() >= stop_at);
        if out && !stopped_early.swap(true, Ordering::Relaxed) {
            warn!("stopping the sweep before the deadline; the rest is left for the next run");
        }
        out
    }

    async fn retire(
        &self,
        player: ExpiredPlayer,
        now: EpochMillis,
        stop_at: Option<EpochMillis>,
        stopped_early: &AtomicBool,
    ) -> Retired {
        // Checked again as the work starts: a player pulled just before the margin may
        // first be polled after it, behind others that finished at the same moment.
        if self.out_of_time(stop_at, stopped_early) {
            return Retired::LeftForNextRun;
        }
        if let (Some(socket), Some(probe)) = (player.online_connection.as_ref(), &self.probe) {
            match probe.get(&socket.endpoint, &socket.connection_id).await {
                Ok(info) => {
                    let last_active = info.last_active_at_millis.or(info.connected_at_millis);
                    if last_active.is_some_and(|at| self.config.heartbeat_deadline(at) > now) {
                        return Retired::Active;
                    }
                }
                // Closed without a `$disconnect` (or never reached us): swept below.
                Err(GatewayError::Gone) => {}
                Err(err) => {
                    // Never take a player offline on an error: maybe it pings.
                    warn!(player_id = %player.player_id, connection_id = %socket.connection_id, error = %ErrorChain(&err), "could not ask API Gateway about an expired player's socket; left for the next sweep");
                    return Retired::Failed;
                }
            }
        }
        let old = match self.players.mark_offline(&player.player_id, now).await {
            Ok(Some(old)) => old,
            Ok(None) => return Retired::StillHere,
            Err(err) => {
                error!(player_id = %player.player_id, error = %ErrorChain(&err), "could not mark an expired player offline");
                return Retired::Failed;
            }
        };
        let mut closed = false;
        if old.status == PresenceStatus::Online {
            // A zombie: online without a heartbeat. It is told why (best effort: it is
            // probably not listening), then closed; its `$disconnect` finds the record
            // offline and changes nothing.
            let why = ServerFrame::Disconnected {
                reason: DisconnectReason::HeartbeatTimeout,
            };
            let _ = self
                .gateway
                .post(&old.endpoint, &old.connection_id, why.to_json().as_bytes())
                .await;
            match self.gateway.delete(&old.endpoint, &old.connection_id).await {
                Ok(()) | Err(GatewayError::Gone) => {
                    info!(player_id = %old.player_id, connection_id = %old.connection_id, "closed a zombie connection");
                    closed = true;
                }
                Err(err) => {
                    warn!(player_id = %old.player_id, connection_id = %old.connection_id, error = %ErrorChain(&err), "could not close a zombie connection");
                }
            }
        }
        let party_failed = !self.mark_party_offline(&old, now).await;
        Retired::Offline {
            event: PresenceEvent::disconnected(old.player_id, now),
            closed,
            party_failed,
        }
    }

    /// Publishes events while the sweep goes on, in full chunks of 100 (10 PutEvents
    /// calls of 10) and what is left at the end: `ceil(n / 10)` calls in all. Returns
    /// how many could not be published.
    async fn publish_all(&self, mut events: mpsc::UnboundedReceiver<PresenceEvent>) -> usize {
        let mut unpublished = 0;
        let mut chunk = Vec::with_capacity(PUBLISH_CHUNK);
        loop {
            while chunk.len() < PUBLISH_CHUNK {
                let room = PUBLISH_CHUNK - chunk.len();
                if events.recv_many(&mut chunk, room).await == 0 {
                    break;
                }
            }
            if chunk.is_empty() {
                return unpublished;
            }
            if let Err(err) = self.events.publish(&chunk).await {
                let players: Vec<String> = chunk.iter().map(|e| e.player_id.to_string()).collect();
                error!(error = %ErrorChain(&err), players = ?players, "presence.disconnected events lost: watchers of these players were not told");
                unpublished += chunk.len();
            }
            chunk.clear();
        }
    }
}

mod party;

#[cfg(test)]
mod tests;
