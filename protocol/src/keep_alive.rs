//! How a client keeps its player online: the `keepAlive` of `resume`'s ack. The server
//! chooses (its presence setting and timeout decide what counts as a sign of life and
//! how often one is needed), so a stack can change it without shipping new clients.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::requests::Route;

/// The frame a client's timer sends, and how often. A client that got no `keepAlive`
/// (a stack older than it) sends what it is configured to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeepAlive {
    pub route: KeepAliveRoute,
    /// Seconds between two of the timer's frames: two per heartbeat timeout with a tenth
    /// of it to spare, so one lost frame does not take the player offline, and one before
    /// the idle timeout closes the socket (API Gateway's is 10 minutes: at most 540).
    #[schemars(range(min = 1))]
    pub interval_seconds: u32,
}

/// What the timer sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum KeepAliveRoute {
    /// Every tick is a `heartbeat` (with the cursor of the last pushed frame handled, if
    /// any): the server's record of the player moves only on heartbeats.
    Heartbeat,
    /// A tick is a `ping` (one inbound message, no write), or a `heartbeat` with the
    /// cursor when a pushed frame was handled since the cursor was last reported: the
    /// server also counts API Gateway's record of the socket's activity.
    Ping,
}

impl KeepAliveRoute {
    /// The route the timer sends.
    pub fn route(self) -> Route {
        match self {
            Self::Heartbeat => Route::Heartbeat,
            Self::Ping => Route::Ping,
        }
    }

    /// The route's name in frames.
    pub fn as_str(self) -> &'static str {
        self.route().as_str()
    }
}

/// API Gateway closes a WebSocket connection idle (no frame from the client) this long:
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html>.
pub const API_GATEWAY_IDLE_TIMEOUT_SECONDS: u64 = 600;

/// `limit` less a tenth of it (at least a second, and never below a second): how long a
/// frame may wait and still beat a deadline `limit` away with time to spare.
fn with_time_to_spare(limit: u64) -> u64 {
    limit.saturating_sub((limit / 10).max(1)).max(1)
}

impl KeepAlive {
    /// The timer for a server that takes a player offline after `timeout_seconds`
    /// without a sign of life, behind a gateway that closes a socket idle for
    /// `idle_timeout_seconds` ([`API_GATEWAY_IDLE_TIMEOUT_SECONDS`] on AWS): two frames
    /// per timeout, and one per idle timeout, each with a tenth of it to spare (at
    /// least a second); never under a second.
    pub fn for_timeouts(
        route: KeepAliveRoute,
        timeout_seconds: u64,
        idle_timeout_seconds: u64,
    ) -> Self {
        let interval = (with_time_to_spare(timeout_seconds) / 2)
            .min(with_time_to_spare(idle_timeout_seconds))
            .max(1);
        Self {
            route,
            interval_seconds: u32::try_from(interval).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: u64 = API_GATEWAY_IDLE_TIMEOUT_SECONDS;

    #[test]
    fn given_the_default_timeout_when_the_interval_is_chosen_then_two_beats_fit_with_a_tenth_to_spare()
     {
        let keep_alive = KeepAlive::for_timeouts(KeepAliveRoute::Heartbeat, 90, IDLE);
        assert_eq!(keep_alive.interval_seconds, 40);
        // One lost beat: the next comes 80 s after the last one that landed, 10 s early.
        assert!(2 * u64::from(keep_alive.interval_seconds) + 9 <= 90);
    }

    #[test]
    fn given_a_long_timeout_when_the_interval_is_chosen_then_a_frame_still_beats_api_gateways_idle_timeout()
     {
        for timeout in [1_200, 7_200] {
            assert_eq!(
                KeepAlive::for_timeouts(KeepAliveRoute::Ping, timeout, IDLE).interval_seconds,
                540
            );
        }
    }

    #[test]
    fn given_tiny_timeouts_when_the_interval_is_chosen_then_it_is_a_second() {
        for timeout in [1, 2, 3] {
            assert_eq!(
                KeepAlive::for_timeouts(KeepAliveRoute::Ping, timeout, IDLE).interval_seconds,
                1
            );
        }
        assert_eq!(
            KeepAlive::for_timeouts(KeepAliveRoute::Ping, 90, 2).interval_seconds,
            1,
            "a local stack that closes sockets idle for 2 s"
        );
    }

    #[test]
    fn given_a_keep_alive_when_serialized_then_it_is_the_acks_camel_case_object() {
        let json =
            serde_json::to_value(KeepAlive::for_timeouts(KeepAliveRoute::Heartbeat, 90, IDLE))
                .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"route": "heartbeat", "intervalSeconds": 40})
        );
    }
}
