//! Parties: players who play together, kept together across drops and placed together.
//! The state and its view (`model.rs`), the changes and refusals as pure functions
//! (`change.rs`), what a change writes (`commit.rs`), and committing changes with their
//! pushes (`service.rs`). The protocol is in README.md, "Parties"; the items are
//! `crate::ports::parties`'; the routes are `functions/party`, and the party parts of
//! `resume`, `send-message`, `session-placement-request` and `presence-timeout`.
//!
//! # Membership
//!
//! ```text
//! [*]     --> online   createParty (leader)
//! [*]     --> invited  inviteToParty (a member; the leader only with PARTY_INVITE_LEADER_ONLY)
//! invited --> online   joinParty while the invitation is live and the party not full
//! invited --> [*]      declinePartyInvite, or PARTY_INVITE_TTL_SECONDS pass
//! online  --> offline  the sweeper takes the player offline (grace or heartbeat timeout over)
//! offline --> online   resume
//! offline --> [*]      PARTY_OFFLINE_SECONDS offline: the sweeper removes them (left)
//! online  --> [*]      leaveParty, or kicked by the leader
//! ```
//!
//! Every arrow into or out of a membership (and every presence arrow) is one change: a
//! new version of the party, pushed to every member before and after it. A drop within
//! the reconnect grace is not an arrow: watchers and party members alike see the player
//! online throughout. A leader who leaves (or is removed) hands over to the
//! longest-standing member; the last member leaving deletes the party (`disbanded`).
//!
//! # One change, one transaction
//!
//! A change (`joinParty`, `leaveParty`, a kick, a promotion, a presence change, a removal
//! by the sweeper) is computed from the party as read, as a pure function (`Party::join`,
//! `leave`, `kick`, ...: the next version, or a refusal naming its error code), then
//! written as ONE `TransactWriteItems` (`DynamoPartyStore::commit`):
//!
//! - the party item, Put on condition `version = <read>` (a new one: on not existing;
//!   the last member's leaving: a Delete on the same condition);
//! - a joiner's invitation, deleted on condition it is live;
//! - the joiner's `partyId` set on condition they have none (else `conflict`: in another
//!   party), a leaver's removed;
//! - one `party` message per member before or after the change, each at its inbox's next
//!   seq (read just before, one Query per member, at once), on condition that seq is free.
//!
//! So the change, the links and every push commit together or not at all: a push cannot
//! be lost (it is in the inbox, delivered live by the stream or replayed by `resume`, at
//! least once) nor sent for a change that did not happen. Two members acting at once:
//! both read version v, one commits v + 1, the other's party condition fails and nothing
//! of it is written; it reads the party again and computes its change anew (a join for
//! the last seat then finds the party full: `conflict`). After `CHANGE_ATTEMPTS` (12: a
//! party has at most 10 members to race) collisions the request is answered `conflict`
//! (retry). An inbox that moved under the transaction (a message took the seq) only
//! makes it read the heads again.
//!
//! Pushes are deduplicated by version: each `party` frame carries the party after the
//! change and its `version`; the message id is the party, the version and the recipient,
//! so a retried commit appends nothing new, and a client drops a version it has seen (a
//! replay brings frames again: at least once).
//!
//! # Invitations, presence, placement
//!
//! Invitations are items of their own (`sk = invite#<player>`), written in a transaction
//! that checks the party's version (so a full party, or an inviter who left, is refused
//! atomically) and that the invitee has a Players item (a ConditionCheck: nothing is
//! stored for an id nobody has); the invitee's `party_invite` push is in the same
//! transaction. They are rate-limited (`RATE_LIMIT_PARTY_INVITES_PER_MINUTE`): the one
//! party route that writes to other players' inboxes. A decline removes the invitation
//! (on condition it is live) and pushes `party_invite_declined` to the inviter, whatever
//! became of the party.
//!
//! A member is `online` in the party while connected or within the reconnect grace, like
//! watchers see them. The sweeper, when it takes a party member offline (its conditional
//! write returns the old item, with `partyId`), makes the party's `presence` change;
//! `resume` makes the reverse one for a member it finds offline in their party (before
//! reading the inbox, so the member's own push is in the replay). Each run the sweeper
//! also queries `ByOfflineSince` per shard for parties whose longest-offline member has
//! been offline `PARTY_OFFLINE_SECONDS`, and removes such members one change each
//! (`left`).
//!
//! A player in a party cannot place alone: the solo placement's conditional write
//! requires no `partyId`, and its failure returns the party (no read). The leader's
//! request reads the party and the members' latencies (`placementLatencies`, 1
//! BatchGetItem), then sets every member's `pendingPlacementId` in one transaction that
//! also checks the party's version and leader; one member with a pending placement fails
//! all of it (`conflict` naming them; one left behind by a fault is cleared first). The
//! placement record lists every member, so the settlement (one transaction, as for any
//! group) gives each member their own seat and `placement` frame; `cancelPlacement` is
//! the requester's, the leader's.
//!
//! # Round trips
//!
//! Measured (BENCHMARKS.md, N members told):
//!
//! | operation | DynamoDB |
//! |---|---|
//! | `createParty` | 1 Query + 1 TransactWriteItems |
//! | `inviteToParty` | 1 rate-limit write ‖ 1 GetItem, then 1 GetItem + 1 Query + 1 TransactWriteItems |
//! | `joinParty` | 1 TransactGetItems (party + invitation) + N Query + 1 TransactWriteItems |
//! | `declinePartyInvite` | 1 TransactGetItems + 1 Query + 1 TransactWriteItems |
//! | `leaveParty`, `kickFromParty`, `promotePartyLeader` | 2 GetItem (the caller's link, the party) + N Query + 1 TransactWriteItems |
//! | `sendMessage` to a party | 1 GetItem + 1 rate-limit write + (N − 1) × (1 Query + 1 PutItem) |
//! | `setPlacementLatencies` | 1 UpdateItem |
//! | `sessionPlacementRequest`, leader | 1 rate-limit write + 1 failed UpdateItem + 1 GetItem + 1 BatchGetItem + 1 TransactWriteItems + 1 PutItem + 1 GameLift call |
//! | `resume`, party member | + 1 GetItem (+ N Query + 1 TransactWriteItems when back from offline) |
//! | sweeper | + 1 Query per shard per run; per member taken offline or removed: 1 GetItem + N Query + 1 TransactWriteItems |
//!
//! What it does not cover: if the sweeper cannot make the party's `presence` change (the
//! store failing after the player was marked offline), the member stays `online` in the
//! party, and is not removed after `PARTY_OFFLINE_SECONDS`, until they resume (the
//! failure is logged and fails the sweep's invocation, so the DLQ alarm fires); the
//! other members can still kick them, or leave.

mod change;
mod commit;
mod model;
mod service;

pub use change::{Change, ChangeKind, PartyRefusal};
pub use commit::{
    CommitScope, Committed, InvitationWrite, OfflinePage, OfflineParty, PartyCommit,
    PartyCondition, PartyWrite,
};
pub use model::{
    Invitation, MAX_PARTY_ID_LEN, MemberPresence, MemberView, Party, PartyId, PartyIdError,
    PartyMember, PartyView,
};
pub use service::{CHANGE_ATTEMPTS, Parties, PartyError};
