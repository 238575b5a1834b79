//! The parties' side of the sweep (shared/src/party/mod.rs): a member taken
//! offline is offline in their party too (a `presence` change, pushed to every member),
//! and a member offline for `PARTY_OFFLINE_SECONDS` is removed (`left`; a leader hands
//! over to the longest-standing member, the last one disbands the party).
//!
//! Round trips: per member taken offline, one GetItem of the party, one Query per member
//! and one transaction; per removal, the same, after one Query per page of the parties'
//! sparse `ByOfflineSince` index per shard.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use shared::domain::EpochMillis;
use shared::party::OfflineParty;
use shared::party::{MemberPresence, PartyError, PartyId, PartyRefusal};
use shared::players::PlayerRecord;
use shared::telemetry::ErrorChain;
use tracing::{error, info};

use crate::{PAGE_SIZE, PresenceTimeoutHandler};

impl PresenceTimeoutHandler {
    /// `old` (the record as it was before the sweep took it offline) is offline in its
    /// party from `now`. Whether that worked (or there was nothing to do).
    pub(crate) async fn mark_party_offline(&self, old: &PlayerRecord, now: EpochMillis) -> bool {
        let Some(party_id) = &old.party_id else {
            return true;
        };
        let offline = MemberPresence::Offline { since: now };
        match self
            .parties
            .set_presence(party_id, &old.player_id, offline)
            .await
        {
            Ok(_) => true,
            Err(err) => {
                error!(player_id = %old.player_id, party_id = %party_id, error = %ErrorChain(&err), "could not mark a party member offline; the party shows them online until they resume");
                false
            }
        }
    }

    /// Removes every member offline for `PARTY_OFFLINE_SECONDS` at `now`, shard by shard,
    /// a page of parties at a time; returns how many were removed. Stops (setting
    /// `stopped_early`) once out of time: the rest waits in the index for the next run.
    pub(crate) async fn remove_long_offline(
        &self,
        now: EpochMillis,
        stop_at: Option<EpochMillis>,
        stopped_early: &AtomicBool,
        failed: &AtomicUsize,
    ) -> usize {
        let offline_ms = i64::try_from(self.config.parties.offline.as_millis()).unwrap_or(i64::MAX);
        let before = now.saturating_sub(offline_ms);
        let mut removed = 0;
        for shard in 0..self.config.presence_shards {
            let mut after: Option<OfflineParty> = None;
            loop {
                if self.out_of_time(stop_at, stopped_early) {
                    return removed;
                }
                let page = match self
                    .offline_parties
                    .offline(shard, before, PAGE_SIZE, after.as_ref())
                    .await
                {
                    Ok(page) => page,
                    Err(err) => {
                        error!(shard, error = %ErrorChain(&err), "could not read the parties with offline members");
                        failed.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                };
                for party in &page.parties {
                    if self.out_of_time(stop_at, stopped_early) {
                        return removed;
                    }
                    match self.remove_from(&party.party_id, now, offline_ms).await {
                        Ok(n) => removed += n,
                        Err(err) => {
                            error!(party_id = %party.party_id, error = %ErrorChain(&err), "could not remove offline members from a party; the next sweep tries again");
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
        }
        removed
    }

    /// Removes the members of `party_id` offline for `offline_ms` at `now`, one change
    /// (one version) each, longest offline first.
    async fn remove_from(
        &self,
        party_id: &PartyId,
        now: EpochMillis,
        offline_ms: i64,
    ) -> Result<usize, PartyError> {
        let mut removed = 0;
        loop {
            let change = self
                .parties
                .apply(party_id, |party, _| {
                    match party.longest_offline_past(now, offline_ms) {
                        Some(member) => party.leave(&member.clone()).map(Some),
                        None => Ok(None),
                    }
                })
                .await;
            match change {
                Ok(Some(change)) => {
                    info!(party_id = %party_id, player_id = %change.subject, change = ?change.kind, "removed a party member offline for too long");
                    removed += 1;
                }
                Ok(None) | Err(PartyError::Refused(PartyRefusal::NotInParty)) => {
                    return Ok(removed);
                }
                Err(err) => return Err(err),
            }
        }
    }
}
