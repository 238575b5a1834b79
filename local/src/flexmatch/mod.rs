//! The local FlexMatch simulator (docs/architecture.md#the-local-stack): matchmaking
//! tickets matched by a real FlexMatch rule set file (`rule_set`, `expr`, `matcher`),
//! with acceptance and its timeout, the ticket's request timeout, and the match placed
//! on the GameLift simulator's fleet (its servers' lifecycle and capacity). Every step
//! goes out as the EventBridge event GameLift documents (`events`), in order, to a sink
//! (the real `on-matchmaking-event` handler in the local stack).
//!
//! Event sequence per ticket, as GameLift's: MatchmakingSearching on start;
//! PotentialMatchCreated once a match forms (as soon as the rules allow); with
//! acceptance required, AcceptMatch on each answer, then AcceptMatchCompleted
//! (`Accepted`, or `Rejected` / `TimedOut`: then each ticket whose players all accepted
//! is MatchmakingSearching again, the others MatchmakingCancelled); then the game
//! session placement, and MatchmakingSucceeded (with every player's player session) or
//! MatchmakingFailed. MatchmakingTimedOut when a ticket searches longer than the
//! request timeout; MatchmakingCancelled on StopMatchmaking.
//!
//! Match backfill (`backfill`): a game server's StartMatchBackfill is a backfill ticket
//! with the game's current players seated in their teams. Each tick, before new matches
//! form, it takes searching tickets into its teams' open slots while every rule passes
//! with the current players counted (`matcher::backfill`). Approximations: it fills every
//! slot it can at once, asks no acceptance, and expands rules by the backfill ticket's
//! wait. The new players' tickets go PotentialMatchCreated, then MatchmakingSucceeded
//! with a seat in the running game; the game server gets UpdateGameSession
//! (`MATCHMAKING_DATA_UPDATED`, `BACKFILL_TIMED_OUT`, `BACKFILL_CANCELLED`).

mod backfill;
pub mod events;
pub mod expr;
mod lifecycle;
pub mod matcher;
mod port;
pub mod rule_set;

pub use port::{NoMatchmaking, to_handler};

/// The simulator the stack's matchmaking routes ask, the configurations they may name,
/// and its task: the FlexMatch simulator sending its events to `rule` (the EventBridge
/// rule: [`to_handler`] of `on-matchmaking-event`) when a rule set was given; else no
/// matchmaking.
pub fn wire(
    settings: Option<FlexMatchSettings>,
    gamelift: &Arc<Simulator>,
    rule: EventSink,
) -> (
    Arc<dyn shared::ports::Matchmaker>,
    shared::matchmaking::MatchmakingSettings,
    Option<JoinHandle<()>>,
) {
    match settings {
        Some(settings) => {
            let configuration = settings.configuration.clone();
            let (flexmatch, task) = FlexMatch::start(settings, gamelift.clone(), rule);
            (
                flexmatch,
                shared::matchmaking::MatchmakingSettings::single(configuration),
                Some(task),
            )
        }
        None => (
            Arc::new(NoMatchmaking),
            shared::matchmaking::MatchmakingSettings::default(),
            None,
        ),
    }
}

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use serde_json::{Map, Value, json};
use shared::domain::{PlacementId, PlayerId};
use shared::matchmaking::TicketId;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::gamelift::{EventSink, Simulator};
use events::{EventPlayer, EventTicket, GameSessionInfo};
use matcher::PoolPlayer;
use rule_set::RuleSet;

/// How often the simulator looks for matches, timeouts and placements.
const TICK: Duration = Duration::from_millis(25);

/// What the simulated matchmaking configuration is.
#[derive(Clone, Debug)]
pub struct FlexMatchSettings {
    pub rule_set: RuleSet,
    /// `MATCHMAKING_CONFIGURATION`: the configuration's name.
    pub configuration: String,
    /// `SIM_ACCEPTANCE_TIMEOUT_SECONDS`: `None` (unset or 0): acceptance not required.
    pub acceptance_timeout: Option<Duration>,
    /// `SIM_MATCHMAKING_TIMEOUT_SECONDS`: the request timeout.
    pub request_timeout: Duration,
    /// The queue matches are placed through.
    pub queue: String,
    pub region: String,
    pub account_id: String,
}

impl FlexMatchSettings {
    /// One line for the start-up banner.
    pub fn summary(&self) -> String {
        let acceptance = match self.acceptance_timeout {
            Some(timeout) => format!("acceptance within {} s", timeout.as_secs()),
            None => "no acceptance".to_owned(),
        };
        format!(
            "configuration {} with rule set {} ({} teams, {} rules); {acceptance}; tickets time out after {} s",
            self.configuration,
            self.rule_set.name,
            self.rule_set.teams.len(),
            self.rule_set.rules.len(),
            self.request_timeout.as_secs()
        )
    }
}

/// Where a live ticket stands.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    Searching,
    /// In this proposed match.
    Proposed(String),
    /// Its match is being placed.
    Placing(String),
}

struct TicketPlayer {
    player_id: PlayerId,
    pool: PoolPlayer,
    team: Option<String>,
    accepted: Option<bool>,
}

struct Ticket {
    id: TicketId,
    started: Instant,
    start_millis: i64,
    players: Vec<TicketPlayer>,
    stage: Stage,
    /// A backfill ticket: the running game it fills (its players are the game's).
    backfill: Option<backfill::BackfillOf>,
}

impl Ticket {
    /// A ticket that starts searching now (`backfill`: the running game it fills).
    fn searching(
        id: TicketId,
        players: Vec<TicketPlayer>,
        backfill: Option<backfill::BackfillOf>,
    ) -> Self {
        Self {
            id,
            started: Instant::now(),
            start_millis: crate::time::now_millis(),
            players,
            stage: Stage::Searching,
            backfill,
        }
    }

    /// The ticket as an event lists it: each player with their team, and the seat and
    /// the acceptance the event tells.
    fn listed(
        &self,
        seat: impl Fn(&TicketPlayer) -> Option<String>,
        accepted: impl Fn(&TicketPlayer) -> Option<bool>,
    ) -> EventTicket {
        EventTicket {
            ticket_id: self.id.to_string(),
            start_millis: self.start_millis,
            players: self
                .players
                .iter()
                .map(|p| EventPlayer {
                    player_id: p.player_id.to_string(),
                    team: p.team.clone(),
                    player_session_id: seat(p),
                    accepted: accepted(p),
                })
                .collect(),
        }
    }
}

struct Proposal {
    tickets: Vec<TicketId>,
    /// Acceptance required: answers are due by then.
    deadline: Option<Instant>,
    placement: Option<PlacementId>,
}

#[derive(Default)]
struct State {
    /// Live tickets, in the order they started.
    tickets: Vec<Ticket>,
    matches: BTreeMap<String, Proposal>,
}

/// The simulated FlexMatch: the [`Matchmaker`](shared::ports::Matchmaker) port.
pub struct FlexMatch {
    settings: FlexMatchSettings,
    configuration_arn: String,
    gamelift: Arc<Simulator>,
    state: Mutex<State>,
    events: mpsc::UnboundedSender<Value>,
    last_event: AtomicI64,
}

impl FlexMatch {
    /// Starts the simulator and its one background task (matching, timeouts,
    /// placements, and the events' delivery to `sink`, in order). Abort the task to
    /// stop; it also ends once the simulator is dropped.
    pub fn start(
        settings: FlexMatchSettings,
        gamelift: Arc<Simulator>,
        sink: EventSink,
    ) -> (Arc<Self>, JoinHandle<()>) {
        let (events, mut received) = mpsc::unbounded_channel::<Value>();
        let configuration_arn = format!(
            "arn:aws:gamelift:{}:{}:matchmakingconfiguration/{}",
            settings.region, settings.account_id, settings.configuration
        );
        let flexmatch = Arc::new(Self {
            settings,
            configuration_arn,
            gamelift,
            state: Mutex::new(State::default()),
            events,
            last_event: AtomicI64::new(0),
        });
        let weak: Weak<Self> = Arc::downgrade(&flexmatch);
        flexmatch.gamelift.attach_flexmatch(weak.clone());
        let driver = async move {
            loop {
                tokio::time::sleep(TICK).await;
                let Some(flexmatch) = weak.upgrade() else {
                    return;
                };
                flexmatch.tick();
            }
        };
        let delivery = async move {
            while let Some(event) = received.recv().await {
                sink(event).await;
            }
        };
        let task = tokio::spawn(async move {
            tokio::join!(driver, delivery);
        });
        (flexmatch, task)
    }

    pub fn settings(&self) -> &FlexMatchSettings {
        &self.settings
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Event times strictly increase: a ticket's events are ordered by them.
    fn next_time(&self) -> i64 {
        let now = crate::time::now_millis();
        let mut last = self.last_event.load(Ordering::SeqCst);
        loop {
            let next = now.max(last + 1);
            match self
                .last_event
                .compare_exchange(last, next, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return next,
                Err(seen) => last = seen,
            }
        }
    }

    /// MatchmakingSearching for `ticket`: new, or back after a proposed match fell
    /// through.
    fn searching(&self, ticket: &Ticket) {
        self.emit(
            "MatchmakingSearching",
            &[ticket],
            None,
            json!({"estimatedWaitMillis": "NOT_AVAILABLE"}),
        );
    }

    fn emit(
        &self,
        kind: &str,
        tickets: &[&Ticket],
        session: Option<&GameSessionInfo>,
        fields: Value,
    ) {
        let accepted = |p: &TicketPlayer| (kind == "AcceptMatch").then_some(p.accepted).flatten();
        let listed: Vec<EventTicket> = tickets
            .iter()
            .map(|t| t.listed(|_| None, accepted))
            .collect();
        self.emit_listed(kind, &listed, session, fields);
    }

    fn emit_listed(
        &self,
        kind: &str,
        tickets: &[EventTicket],
        session: Option<&GameSessionInfo>,
        fields: Value,
    ) {
        let fields = match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let event = events::event(
            &self.settings.region,
            &self.configuration_arn,
            self.next_time(),
            kind,
            tickets,
            session,
            fields,
        );
        // A delivery task that went away wants no more events.
        let _ = self.events.send(event);
    }

    /// One step: timeouts, acceptance deadlines, placements, then new matches.
    fn tick(&self) {
        let now = Instant::now();
        let mut state = self.lock();
        self.time_out(&mut state, now);
        let expired: Vec<String> = state
            .matches
            .iter()
            .filter(|(_, m)| m.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        for match_id in expired {
            self.fall_through(&mut state, &match_id, "TimedOut", None);
        }
        self.settle_placements(&mut state);
        // Backfills first: they fill games already running.
        self.fill_backfills(&mut state, now);
        while self.form_match(&mut state, now) {}
    }

    fn time_out(&self, state: &mut State, now: Instant) {
        let timeout = self.settings.request_timeout;
        let (expired, live): (Vec<Ticket>, Vec<Ticket>) = std::mem::take(&mut state.tickets)
            .into_iter()
            .partition(|t| t.stage == Stage::Searching && now.duration_since(t.started) >= timeout);
        state.tickets = live;
        for ticket in &expired {
            self.emit(
                "MatchmakingTimedOut",
                &[ticket],
                None,
                json!({"reason": "TimedOut", "message": "Removed from matchmaking due to timing out."}),
            );
            self.tell_game(
                ticket,
                None,
                gamelift_server_protocol::model::UpdateReason::BackfillTimedOut,
            );
        }
    }
}
