//! `startMatchmaking`: one FlexMatch ticket for the caller, or for a party's leader,
//! for the whole party (the leader with the request's attributes and latencies; each
//! other member with their own from `setMatchmakingAttributes` and
//! `setPlacementLatencies`, and the rule set's defaults for attributes they did not set). Acks `{ticketId, status:
//! "QUEUED"}`; the rest is pushed.
//!
//! Round trips on the normal path (solo): the rate-limit write (1 UpdateItem on the
//! player's item, counted with their placement requests; none with the limit off) +
//! 1 conditional UpdateItem (the player's pending
//! slot, only if free and the player is in no party) + 1 PutItem (the ticket, QUEUED,
//! recorded before GameLift is asked: its first event may arrive before the call
//! returns) + StartMatchmaking. A party leader's: the refused solo write, then one
//! GetItem (the party), one BatchGetItem (the members' latencies) and one transaction
//! (every member's slot, the party checked unchanged), then the same two.
//!
//! A refusal by GameLift ends the ticket FAILED and frees every player in one
//! transaction (nothing is pushed: the reply says it); a call whose outcome is unknown
//! is also stopped, best effort, so no match is made for players told it failed.

use edge::websocket::{Request, RouteError};
use shared::acks::StartMatchmakingAck;
use shared::domain::PlayerId;
use shared::frames::ErrorCode;
use shared::matchmaking::{
    MAX_TICKET_PLAYERS, MatchmakingPlayer, MatchmakingRequest, TicketChange, TicketPlayerChange,
    TicketRecord,
};
use shared::matchmaking::{TicketId, TicketStatus};
use shared::pending::Pending;
use shared::ports::GameLiftError;
use shared::requests::StartMatchmakingRequestBody;
use shared::telemetry::ErrorChain;
use tracing::{info, warn};

use crate::{MatchmakingHandler, NOTHING_CHANGED, gamelift_refusal, store_refusal};

impl MatchmakingHandler {
    /// The configuration a ticket is for: the one named, if the stack has it (another
    /// is `not_found`: a well-formed name this stack has no configuration of), else the
    /// stack's default.
    fn configuration(&self, body: &StartMatchmakingRequestBody) -> Result<String, RouteError> {
        let configurations = &self.settings.configurations;
        match &body.configuration {
            None => configurations.first().cloned().ok_or_else(|| {
                RouteError::new(
                    ErrorCode::Unavailable,
                    "matchmaking is not set up here: no matchmaking configuration is configured",
                )
            }),
            Some(name) if configurations.iter().any(|c| c == name.as_str()) => Ok(name.to_string()),
            Some(name) => Err(RouteError::new(
                ErrorCode::NotFound,
                format!(
                    "`configuration` {:?} is not a known matchmaking configuration; use one of: {}",
                    name.as_str(),
                    configurations.join(", ")
                ),
            )),
        }
    }

    pub(crate) async fn start(
        &self,
        request: &Request,
        body: &StartMatchmakingRequestBody,
    ) -> Result<StartMatchmakingAck, RouteError> {
        let player = &request.caller.player_id;
        let configuration = self.configuration(body)?;
        self.ports
            .limit
            .spend(player, "nothing was started; retry")
            .await?;
        let now = self.clock.now_millis();
        let ticket_id = TicketId::new_at(now);
        let pending = Pending::Ticket(ticket_id.clone());
        let others = self
            .ports
            .pending
            .reserve(player, &pending, Some(MAX_TICKET_PLAYERS))
            .await
            .map_err(|e| RouteError::from_pending(e, player, NOTHING_CHANGED))?;
        let record = TicketRecord::queued(
            ticket_id.clone(),
            player.clone(),
            others.clone(),
            &configuration,
            now,
        );
        if let Err(err) = self.ports.recorder.create(&record).await {
            self.ports
                .pending
                .release(&record.player_ids, &pending)
                .await;
            return Err(store_refusal(err));
        }
        let mut players = vec![MatchmakingPlayer {
            player_id: player.clone(),
            attributes: body
                .attributes
                .as_ref()
                .map(|attributes| attributes.as_map().clone())
                .unwrap_or_default(),
            latencies: body
                .latencies
                .as_ref()
                .map(|latencies| latencies.rounded())
                .unwrap_or_default(),
        }];
        players.extend(self.members(&others).await);
        let start = MatchmakingRequest {
            ticket_id: ticket_id.clone(),
            configuration: configuration.clone(),
            players,
        };
        match self.ports.matchmaker.start_matchmaking(&start).await {
            Ok(()) => {
                info!(player_id = %player, ticket_id = %ticket_id, configuration, players = record.player_ids.len(), "matchmaking started");
                Ok(StartMatchmakingAck {
                    ticket_id,
                    status: TicketStatus::Queued,
                })
            }
            Err(refusal) => {
                self.fail(&record, &refusal).await;
                Err(gamelift_refusal("StartMatchmaking", &ticket_id, &refusal))
            }
        }
    }

    /// The other members as FlexMatch gets them: their own latencies and attributes (as
    /// they last set them; the rule set's defaults for what they did not). A read
    /// failure leaves them out rather than failing the party's ticket.
    async fn members(&self, others: &[PlayerId]) -> Vec<MatchmakingPlayer> {
        if others.is_empty() {
            return Vec::new();
        }
        let records = self.ports.players.get_many(others).await.unwrap_or_else(|err| {
            warn!(error = %ErrorChain(&err), "could not read the members' latencies; matching without them");
            Vec::new()
        });
        others
            .iter()
            .map(|player_id| {
                let record = records.iter().find(|r| r.player_id == *player_id);
                MatchmakingPlayer {
                    player_id: player_id.clone(),
                    attributes: record
                        .map(|r| r.matchmaking_attributes.clone())
                        .unwrap_or_default(),
                    latencies: record
                        .map(|r| r.placement_latencies.clone())
                        .unwrap_or_default(),
                }
            })
            .collect()
    }

    /// GameLift refused: the ticket ends FAILED and frees its players, together. An
    /// unknown outcome may hide a ticket GameLift did start: it is stopped, best effort.
    async fn fail(&self, record: &TicketRecord, refusal: &GameLiftError) {
        let now = self.clock.now_millis();
        let change = TicketChange {
            ticket_id: record.ticket_id.clone(),
            from: record.status,
            from_at: record.status_at,
            to: TicketStatus::Failed,
            to_at: now,
            match_id: None,
            game_session: None,
            player_sessions: Default::default(),
            players: record
                .player_ids
                .iter()
                .map(|player_id| TicketPlayerChange {
                    player_id: player_id.clone(),
                    seat: None,
                    message: None,
                })
                .collect(),
            now,
        };
        match self.ports.changes.advance(&change).await {
            Ok(true) => {}
            // An event moved it first: GameLift did start it after all; stopped below.
            Ok(false) => {
                warn!(ticket_id = %record.ticket_id, "a refused ticket had moved on");
            }
            Err(err) => {
                warn!(ticket_id = %record.ticket_id, error = %ErrorChain(&err), "could not end a refused ticket; freeing its players");
                self.ports
                    .pending
                    .release(
                        &record.player_ids,
                        &Pending::Ticket(record.ticket_id.clone()),
                    )
                    .await;
            }
        }
        if refusal.may_have_acted() {
            match self
                .ports
                .matchmaker
                .stop_matchmaking(&record.ticket_id)
                .await
            {
                Ok(()) => {
                    warn!(ticket_id = %record.ticket_id, "GameLift had started the ticket after all; stopped it");
                }
                Err(GameLiftError::NotFound { .. } | GameLiftError::InvalidRequest { .. }) => {}
                Err(err) => {
                    warn!(ticket_id = %record.ticket_id, error = %ErrorChain(&err), "could not make sure the failed ticket is stopped");
                }
            }
        }
    }
}
