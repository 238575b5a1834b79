//! The changes that happen by themselves as time passes: a server finishing start-up
//! or shut-down, a placement fulfilled (first come first served) or timing out, a game
//! ending, a reservation expiring. Each is applied at its own instant, earliest first.

use tokio::time::Instant;

use super::model::{
    DesiredPlayer, GameSession, GameSessionStatus, PlacementStatus, PlayerSessionRecord,
    PlayerSessionStatus, ServerState, State,
};
use crate::gamelift::events::{self, Fulfilment, Outcome, uuid_v4};
use crate::gamelift::settings::UNHEALTHY_AFTER_HEARTBEATS;

/// Changes that happen by themselves, in the order they win a tie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Due {
    ServerReady(usize),
    ServerReplaced(usize),
    GameEnds(usize),
    ReservationExpires(usize),
    Fulfil(usize),
    PlacementTimesOut(usize),
    ActivationTimesOut(usize),
    HeartbeatsMissed(usize),
    TerminationGraceEnds(usize),
    ReconnectWindowEnds(usize),
}

impl State {
    /// Applies every change due by `now`; returns when the next one is due.
    pub(crate) fn advance(&mut self, now: Instant) -> Option<Instant> {
        loop {
            match self.next_due() {
                Some((at, due)) if at <= now => {
                    self.clock = self.clock.max(at);
                    self.apply(due, self.clock);
                }
                _ => break,
            }
        }
        // Nothing else happened up to now: calls made now happen at now.
        self.clock = self.clock.max(now);
        self.next_due().map(|(at, _)| at)
    }

    /// The earliest change, ties broken by `Due`'s order.
    fn next_due(&self) -> Option<(Instant, Due)> {
        let mut candidates: Vec<(Instant, Due)> = Vec::new();
        for (i, server) in self.servers.iter().enumerate() {
            match (server.state, server.until) {
                (ServerState::Initializing, Some(until)) => {
                    candidates.push((until, Due::ServerReady(i)));
                }
                (ServerState::Terminating, Some(until)) => {
                    candidates.push((until, Due::ServerReplaced(i)));
                }
                _ => {}
            }
            if let Some(real) = &server.real
                && server.state != ServerState::Terminated
            {
                match real.terminate_by {
                    Some(by) => candidates.push((by, Due::TerminationGraceEnds(i))),
                    None => candidates.push((
                        real.last_heartbeat
                            + self.settings.heartbeat_interval * UNHEALTHY_AFTER_HEARTBEATS,
                        Due::HeartbeatsMissed(i),
                    )),
                }
                if let Some(at) = real.disconnected_at {
                    candidates.push((
                        at + self.settings.reconnect_window,
                        Due::ReconnectWindowEnds(i),
                    ));
                }
            }
        }
        for (i, game) in self.game_sessions.iter().enumerate() {
            match (game.status, game.ends_at, game.activation_deadline) {
                (GameSessionStatus::Active, Some(ends_at), _) => {
                    candidates.push((ends_at, Due::GameEnds(i)));
                }
                (GameSessionStatus::Activating, _, Some(deadline)) => {
                    candidates.push((deadline, Due::ActivationTimesOut(i)));
                }
                _ => {}
            }
        }
        for (i, session) in self.player_sessions.iter().enumerate() {
            if session.status == PlayerSessionStatus::Reserved {
                candidates.push((session.reserved_until, Due::ReservationExpires(i)));
            }
        }
        let has_capacity = self.free_server().is_some();
        let mut first_ready: Option<(Instant, u64, usize)> = None;
        for (i, placement) in self.placements.iter().enumerate() {
            if placement.status != PlacementStatus::Pending {
                continue;
            }
            candidates.push((placement.timeout_at, Due::PlacementTimesOut(i)));
            if has_capacity && placement.activating.is_none() {
                // Capacity exists from `clock` on: the placement goes as soon as it is
                // ready, first come first served.
                let key = (placement.ready_at.max(self.clock), placement.seq, i);
                if first_ready.is_none_or(|best| key < best) {
                    first_ready = Some(key);
                }
            }
        }
        if let Some((at, _, i)) = first_ready {
            candidates.push((at, Due::Fulfil(i)));
        }
        candidates.into_iter().min()
    }

    fn apply(&mut self, due: Due, at: Instant) {
        match due {
            Due::ServerReady(i) => {
                let server = &mut self.servers[i];
                server.state = ServerState::StandingBy;
                server.until = None;
                tracing::debug!(
                    process_id = server.process_id,
                    "simulated server StandingBy"
                );
            }
            Due::ServerReplaced(i) => {
                tracing::debug!(
                    process_id = self.servers[i].process_id,
                    "simulated server terminated"
                );
                self.servers[i] = self.fresh_server(at);
            }
            Due::GameEnds(g) => self.end_game(g, at),
            Due::ReservationExpires(p) => {
                self.end_player_session(p, PlayerSessionStatus::TimedOut, at);
            }
            Due::Fulfil(p) => self.fulfil(p, at),
            Due::PlacementTimesOut(p) => self.finish(p, at, Outcome::TimedOut),
            Due::ActivationTimesOut(g) => self.activation_timed_out(g, at),
            Due::HeartbeatsMissed(s) => self.unhealthy(s, at, "missed three heartbeats"),
            Due::TerminationGraceEnds(s) => {
                self.take_out(
                    s,
                    at,
                    "did not call ProcessEnding within the termination grace",
                );
            }
            Due::ReconnectWindowEnds(s) => {
                self.take_out(s, at, "its socket dropped and it did not reconnect in time");
            }
        }
    }

    /// A server with a free slot: a real process first (a game server you started gets
    /// the next game), then an Active simulated one (fill it), then a StandingBy one.
    fn free_server(&self) -> Option<usize> {
        if let Some(real) = self.servers.iter().position(|server| {
            server.state == ServerState::StandingBy
                && server
                    .real
                    .as_ref()
                    .is_some_and(|real| real.socket.is_some() && real.terminate_by.is_none())
        }) {
            return Some(real);
        }
        let per_server = self.settings.sessions_per_server;
        let simulated = |server: &&super::model::Server| server.real.is_none();
        let active = self.servers.iter().position(|server| {
            simulated(&server)
                && server.state == ServerState::Active
                && server.sessions_hosted < per_server
        });
        active.or_else(|| {
            self.servers
                .iter()
                .position(|server| simulated(&server) && server.state == ServerState::StandingBy)
        })
    }

    /// A seat no longer held: COMPLETED or TIMEDOUT, with its termination time.
    pub(super) fn end_player_session(
        &mut self,
        p: usize,
        status: PlayerSessionStatus,
        at: Instant,
    ) {
        let millis = self.wall(at);
        let session = &mut self.player_sessions[p];
        session.status = status;
        session.termination_millis = Some(millis);
    }

    /// A RESERVED player session in game session `g` for each of `players`, held until
    /// `reserved_until`: their indices, and each (player id, player session id) as a
    /// fulfilment lists them.
    pub(super) fn reserve_player_sessions(
        &mut self,
        g: usize,
        players: &[DesiredPlayer],
        reserved_until: Instant,
        created: i64,
    ) -> (Vec<usize>, Vec<(String, String)>) {
        let mut seats = Vec::new();
        let mut placed = Vec::new();
        for player in players {
            let session_id = format!("psess-{}", uuid_v4());
            let index = self.player_sessions.len();
            self.player_sessions.push(PlayerSessionRecord {
                id: session_id.clone(),
                player_id: player.player_id.as_str().to_owned(),
                game_session: g,
                status: PlayerSessionStatus::Reserved,
                reserved_until,
                player_data: player.player_data.clone(),
                creation_millis: created,
                termination_millis: None,
            });
            self.player_session_index.insert(session_id.clone(), index);
            seats.push(index);
            placed.push((player.player_id.as_str().to_owned(), session_id));
        }
        (seats, placed)
    }

    fn fulfil(&mut self, p: usize, at: Instant) {
        let Some(s) = self.free_server() else {
            return;
        };
        if self.faults.fail_placements {
            // The fault knob: the placement fails where it would have been placed.
            self.finish(p, at, Outcome::Failed);
            return;
        }
        if self.servers[s].real.is_some() {
            self.send_to_process(s, p, at);
            return;
        }
        let created = self.wall(at);
        let g = self.game_sessions.len();
        let players = self.placements[p].players.clone();
        let reserved_until = at + self.settings.player_session_reservation;
        let (seats, placed) = self.reserve_player_sessions(g, &players, reserved_until, created);
        let settings = &self.settings;
        let server = &mut self.servers[s];
        let slot = server.sessions_hosted;
        server.sessions_hosted += 1;
        server.state = ServerState::Active;
        let port_offset = s as u64 * u64::from(settings.sessions_per_server) + u64::from(slot);
        let port =
            u16::try_from(u64::from(settings.server_port_base) + port_offset).unwrap_or(u16::MAX);
        let id = uuid_v4();
        let arn = format!(
            "arn:aws:gamelift:{}::gamesession/{}/{id}",
            settings.region, settings.fleet_id
        );
        server.running.push(g);
        let process_id = server.process_id.clone();
        let placement = &mut self.placements[p];
        let game = GameSession {
            id,
            arn: arn.clone(),
            status: GameSessionStatus::Active,
            placement_id: placement.id.clone(),
            server: s,
            process_id,
            max_players: placement.max_players,
            ip_address: settings.server_ip.clone(),
            dns_name: settings.server_dns.clone(),
            port,
            ends_at: Some(at + settings.game_session_duration),
            activation_deadline: None,
            creation_policy: Default::default(),
            player_sessions: seats,
        };
        placement.game_session = Some(g);
        let fulfilment = Fulfilment {
            game_session_arn: arn.clone(),
            ip_address: game.ip_address.clone(),
            dns_name: game.dns_name.clone(),
            port,
            placed_player_sessions: placed,
        };
        tracing::info!(
            placement_id = %placement.id,
            game_session_arn = arn,
            process_id = game.process_id,
            "simulated placement fulfilled"
        );
        self.game_index.insert(arn, g);
        self.game_index.insert(game.id.clone(), g);
        self.game_sessions.push(game);
        self.finish(p, at, Outcome::Fulfilled(fulfilment));
    }

    /// Ends a PENDING placement and emits its event.
    pub(super) fn finish(&mut self, p: usize, at: Instant, outcome: Outcome) {
        // A game session still ACTIVATING for a placement that ends another way ends
        // with it.
        if let Some(g) = self.placements[p].activating.take() {
            self.end_game(g, at);
        }
        let end_millis = self.wall(at);
        let placement = &mut self.placements[p];
        placement.status = match outcome {
            Outcome::Fulfilled(_) => PlacementStatus::Fulfilled,
            Outcome::Cancelled => PlacementStatus::Cancelled,
            Outcome::TimedOut => PlacementStatus::TimedOut,
            Outcome::Failed => PlacementStatus::Failed,
        };
        placement.end_millis = Some(end_millis);
        if !matches!(outcome, Outcome::Fulfilled(_)) {
            tracing::info!(
                placement_id = %placement.id,
                outcome = outcome.event_type(),
                "simulated placement ended"
            );
        }
        let event = events::placement_event(
            &self.settings,
            &placement.queue,
            &placement.id,
            placement.start_millis,
            end_millis,
            &outcome,
        );
        let envelope =
            events::sns_envelope(&self.settings, &self.subscription_id, &event, end_millis);
        // The receiver goes only when the simulator does.
        let _ = self.events.send(envelope);
    }

    pub(super) fn end_game(&mut self, g: usize, at: Instant) {
        let game = &mut self.game_sessions[g];
        if game.status == GameSessionStatus::Terminated {
            return;
        }
        let was_activating = game.status == GameSessionStatus::Activating;
        game.status = GameSessionStatus::Terminated;
        game.activation_deadline = None;
        if was_activating {
            // Its placement, still PENDING, may go elsewhere (or here again).
            let placement_id = game.placement_id.clone();
            if let Some(&p) = self.placement_index.get(&placement_id)
                && self.placements[p].activating == Some(g)
            {
                self.placements[p].activating = None;
            }
        }
        let game = &self.game_sessions[g];
        tracing::info!(
            game_session_arn = game.arn,
            "simulated game session TERMINATED"
        );
        let seated: Vec<usize> = game
            .player_sessions
            .iter()
            .copied()
            .filter(|&p| self.player_sessions[p].status.holds_seat())
            .collect();
        for p in seated {
            self.end_player_session(p, PlayerSessionStatus::Completed, at);
        }
        let game = &self.game_sessions[g];
        let server = &mut self.servers[game.server];
        // A replaced process's games ended with it.
        if server.process_id != game.process_id {
            return;
        }
        server.running.retain(|&running| running != g);
        if server.real.is_some() {
            // A real process outlives its game: free for the next one, unless ended.
            if server.running.is_empty() && server.state == ServerState::Active {
                server.state = ServerState::StandingBy;
            }
            return;
        }
        if server.running.is_empty() {
            server.state = ServerState::Terminating;
            server.until = Some(at + self.settings.server_shutdown);
            tracing::debug!(
                process_id = server.process_id,
                "simulated server Terminating"
            );
        }
    }
}
