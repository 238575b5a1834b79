//! The player's seat (the last one a placement, a match, `rejoinSession` or `resume` gave)
//! and its connection details kept fresh: `refreshConnectionDetails` at `expiresAt` minus
//! [`refresh_margin`], and for a `connectionUnavailable` seat (a fleet that requires player
//! gateway, whose details GameLift did not give) with capped exponential backoff until it
//! has some. A new seat replaces the old one's schedule; stopping the client ends it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gamelift_sockets_protocol::domain::GameSession;
use gamelift_sockets_protocol::requests::EmptyBody;
use gamelift_sockets_protocol::{ClientRequest, ErrorReply, Route};
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::Actor;
use crate::types::{ClientError, Event};

/// The first retry of a failed refresh (or of a `connectionUnavailable` seat) waits this long.
pub const REFRESH_RETRY_INITIAL: Duration = Duration::from_secs(1);
/// Retries wait twice as long each time, up to this.
pub const REFRESH_RETRY_MAX: Duration = Duration::from_secs(30);

/// How long before a player gateway token expires the client refreshes it: a minute, or a
/// tenth of the time left when that is less (GameLift's tokens last at least 3 minutes,
/// so at least 18 s ahead).
pub fn refresh_margin(time_left: Duration) -> Duration {
    (time_left / 10).min(Duration::from_secs(60))
}

/// An internal refresh's outcome, for the seat it was sent for.
pub(crate) struct Refreshed {
    generation: u64,
    result: Result<(), ClientError>,
}

/// The seat and its refresh schedule.
#[derive(Default)]
pub(super) struct Seat {
    current: Option<GameSession>,
    refresh_at: Option<Instant>,
    /// Refreshes that failed (or answered without details) in a row: the backoff's exponent.
    failures: u32,
    /// A refresh of ours is out: none other starts until it is answered.
    in_flight: bool,
    /// Bumped by every new seat: an answer for an older one changes nothing.
    generation: u64,
}

fn same_seat(a: &GameSession, b: &GameSession) -> bool {
    a.player_session_id == b.player_session_id && a.game_session_arn == b.game_session_arn
}

/// Whether `next` replaces `current`: another seat always; the same seat unless it would
/// lose the details it has, or bring older ones.
fn replaces(current: Option<&GameSession>, next: &GameSession) -> bool {
    let Some(current) = current.filter(|c| same_seat(c, next)) else {
        return true;
    };
    match (&current.connection, &next.connection) {
        (Some(_), None) => false,
        (Some(now), Some(then)) => match (now.expires_at, then.expires_at) {
            (Some(now), Some(then)) => then >= now,
            _ => true,
        },
        (None, _) => true,
    }
}

fn epoch_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The seat in an ack's `gameSession` (`resume`, `rejoinSession`, `joinFriendGame`,
/// `refreshConnectionDetails`).
pub(super) fn seat_of(ack: &Map<String, Value>) -> Option<Option<GameSession>> {
    let value = ack.get("gameSession")?;
    serde_json::from_value::<Option<GameSession>>(value.clone()).ok()
}

impl Actor {
    /// The seat as it is now (what [`crate::Client::seat`] reads).
    fn publish_seat(&self) {
        if let Ok(mut shared) = self.shared_seat.lock() {
            shared.clone_from(&self.seat.current);
        }
    }

    /// A seat the server gave (`None`: none any more).
    pub(super) fn set_seat(&mut self, seat: Option<GameSession>) {
        let Some(seat) = seat else {
            self.seat = Seat {
                generation: self.seat.generation + 1,
                ..Seat::default()
            };
            return self.publish_seat();
        };
        if !replaces(self.seat.current.as_ref(), &seat) {
            return;
        }
        if !self
            .seat
            .current
            .as_ref()
            .is_some_and(|c| same_seat(c, &seat))
        {
            self.seat.generation += 1;
            self.seat.failures = 0;
            self.seat.in_flight = false;
        }
        self.seat.refresh_at = if seat.connection_unavailable {
            Some(Instant::now() + self.seat_backoff())
        } else if let Some(expires_at) = seat.connection.as_ref().and_then(|c| c.expires_at) {
            self.seat.failures = 0;
            let left = Duration::from_millis(
                u64::try_from(expires_at.saturating_sub(epoch_millis())).unwrap_or(0),
            );
            Some(Instant::now() + left - refresh_margin(left))
        } else {
            None
        };
        self.seat.current = Some(seat);
        self.publish_seat();
    }

    /// A `refreshConnectionDetails` ack (ours or the game's): the seat with fresh details,
    /// announced; an answer about another seat than the one held (it changed meanwhile)
    /// is dropped.
    pub(super) fn seat_refreshed(&mut self, ack: &Map<String, Value>) {
        let Some(Some(seat)) = seat_of(ack) else {
            return;
        };
        if self
            .seat
            .current
            .as_ref()
            .is_some_and(|c| !same_seat(c, &seat))
        {
            return;
        }
        self.set_seat(Some(seat.clone()));
        self.emit(Event::ConnectionDetails(seat));
    }

    /// The next wait of a backoff, and one more failure counted.
    fn seat_backoff(&mut self) -> Duration {
        let exponent = self.seat.failures.min(16);
        self.seat.failures += 1;
        (REFRESH_RETRY_INITIAL * 2u32.pow(exponent)).min(REFRESH_RETRY_MAX)
    }

    /// On the actor's tick: sends our refresh when it is due.
    pub(super) async fn refresh_seat_if_due(&mut self, now: Instant) {
        if self.seat.in_flight || self.seat.refresh_at.is_none_or(|at| at > now) {
            return;
        }
        self.seat.refresh_at = None;
        self.seat.in_flight = true;
        let (reply, answer) = oneshot::channel();
        let frame = ClientRequest::RefreshConnectionDetails {
            request_id: None,
            body: EmptyBody {},
        };
        self.on_request(frame, reply).await;
        let (generation, timeout, done) = (
            self.seat.generation,
            self.config.request_timeout,
            self.refreshed_tx.clone(),
        );
        tokio::spawn(async move {
            let result = match tokio::time::timeout(timeout, answer).await {
                Ok(Ok(result)) => result.map(|_| ()),
                Ok(Err(_)) => Err(ClientError::Closed(crate::StopReason::ClosedByClient)),
                Err(_) => Err(ClientError::Timeout {
                    route: Route::RefreshConnectionDetails.as_str(),
                }),
            };
            let _ = done.send(Refreshed { generation, result });
        });
    }

    /// Our refresh was answered (its seat already taken by [`Actor::seat_refreshed`]): on
    /// a failure, try again later, unless there is no seat left to refresh.
    pub(super) fn on_seat_refreshed(&mut self, refreshed: Refreshed) {
        if refreshed.generation != self.seat.generation {
            return;
        }
        self.seat.in_flight = false;
        let Err(error) = refreshed.result else {
            return;
        };
        match error.code().as_str() {
            // No seat any more, or the game is over: nothing left to refresh.
            "not_found" | "session_ended" | "closed" => self.seat.refresh_at = None,
            _ => {
                let retry_after = match &error {
                    ClientError::Server { reply, .. } => match reply.as_ref() {
                        ErrorReply::RateLimited(refused) => {
                            u64::try_from(refused.detail.retry_after_ms).ok()
                        }
                        _ => None,
                    },
                    _ => None,
                }
                .map(Duration::from_millis);
                let wait = retry_after.unwrap_or_else(|| self.seat_backoff());
                self.seat.refresh_at = Some(Instant::now() + wait);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use gamelift_sockets_protocol::domain::ConnectionDetails;

    use super::*;

    fn seat(player_session_id: &str, expires_at: Option<i64>) -> GameSession {
        GameSession {
            game_session_arn: "arn:gs".into(),
            ip_address: "10.0.0.1".into(),
            dns_name: "h".into(),
            port: 7777,
            region: "r".into(),
            player_session_id: player_session_id.into(),
            connection: Some(ConnectionDetails {
                expires_at,
                player_gateway_token: expires_at.map(|_| "t".into()),
                ..ConnectionDetails::direct("10.0.0.1", 7777)
            }),
            connection_unavailable: false,
        }
    }

    #[test]
    fn the_margin_is_a_minute_or_a_tenth_of_the_time_left() {
        assert_eq!(
            refresh_margin(Duration::from_secs(600)),
            Duration::from_secs(60)
        );
        assert_eq!(
            refresh_margin(Duration::from_secs(180)),
            Duration::from_secs(18)
        );
        assert_eq!(
            refresh_margin(Duration::from_secs(2)),
            Duration::from_millis(200)
        );
    }

    #[test]
    fn given_the_same_seat_then_only_details_at_least_as_new_replace_it() {
        let held = seat("psess-1", Some(2_000));
        assert!(replaces(Some(&held), &seat("psess-1", Some(3_000))));
        assert!(!replaces(Some(&held), &seat("psess-1", Some(1_000))));
        let unavailable = GameSession {
            connection: None,
            connection_unavailable: true,
            ..held.clone()
        };
        assert!(
            !replaces(Some(&held), &unavailable),
            "details do not un-happen"
        );
        assert!(
            replaces(Some(&held), &seat("psess-2", Some(1_000))),
            "another seat"
        );
        assert!(replaces(None, &held));
    }
}
