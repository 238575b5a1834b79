//! `PLAYER_GATEWAY`: whether the fleets behind the stack's queues use Amazon GameLift
//! Servers' player gateway, and so where a seat's connection details come from and what a
//! seat carries when they cannot be had (the modes: [`PlayerGateway`]; how seats get them:
//! `crate::seats`). A queue whose fleets differ is `enabled` (the call answers each
//! location as it is) or, if every fleet requires the gateway, `required`.
//!
//! Why a parameter, not the fleet's mode: the mode could be read from the fleet
//! (DescribeFleetAttributes on the fleet in the game session ARN): one more GameLift call
//! per game session seated (or per fleet and Lambda instance, cached: the mode is fixed
//! at creation), one more permission, and one more call on GameLift's control plane,
//! whose Describe* limits are low. And the failure policy is needed exactly when GameLift
//! is failing, when that call would fail too. A deployment knows what its fleets are; the
//! parameter costs nothing per seat, and `disabled` spares the GetPlayerConnectionDetails
//! call itself.

use crate::domain::GameSession;

/// `PLAYER_GATEWAY`'s default, as its type.
pub const DEFAULT_PLAYER_GATEWAY: PlayerGateway = PlayerGateway::Disabled;

/// The fleets' `PlayerGatewayMode`, as the deployment states it (one value for every
/// queue: asking each fleet would cost a DescribeFleetAttributes per game session).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerGateway {
    /// No player gateway: nothing to ask GameLift; a seat's connection details are the
    /// game session's own address (what GetPlayerConnectionDetails would answer).
    Disabled,
    /// `ENABLED` fleets: one GetPlayerConnectionDetails per game session; when it fails,
    /// the seat goes out with the game server's address (such a fleet still takes direct
    /// connections), and a refresh may bring the gateway's.
    Enabled,
    /// `REQUIRED` fleets: one call per game session; when it fails, the seat goes out
    /// with `connectionUnavailable` (a direct connection would be refused) and the client
    /// refreshes.
    Required,
}

impl PlayerGateway {
    /// Every value, in the order `settings::PLAYER_GATEWAY` lists them.
    pub const ALL: [Self; 3] = [Self::Disabled, Self::Enabled, Self::Required];

    /// The value of `PLAYER_GATEWAY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "disabled",
            Self::Enabled => "enabled",
            Self::Required => "required",
        }
    }

    /// Whether seats' connection details are asked of GameLift (GetPlayerConnectionDetails)
    /// rather than taken from the game session.
    pub fn asks_gamelift(self) -> bool {
        self != Self::Disabled
    }

    /// `seat` as it goes out when GameLift gave no connection details for its player
    /// (the call failed, or left the player out); with `Disabled`, what it always is.
    pub fn without_details(self, seat: GameSession) -> GameSession {
        match self {
            Self::Disabled | Self::Enabled => {
                let direct = seat.direct_connection();
                seat.with_connection(direct)
            }
            Self::Required => seat.with_connection_unavailable(),
        }
    }
}

choice_words!(PlayerGateway, super::settings::PLAYER_GATEWAY);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ConnectionDetails;
    use gamelift_sockets_protocol::fixtures::seat;

    #[test]
    fn given_each_mode_when_no_details_were_had_then_the_seat_is_direct_or_unavailable() {
        // Given a seat whose details GameLift did not give
        // When it goes out under each mode
        // Then disabled and enabled connect straight to the game server, required waits
        let direct = Some(ConnectionDetails::direct("10.0.0.1", 7777));
        assert_eq!(
            PlayerGateway::Disabled.without_details(seat()).connection,
            direct
        );
        assert_eq!(
            PlayerGateway::Enabled.without_details(seat()).connection,
            direct
        );
        let required = PlayerGateway::Required.without_details(seat());
        assert_eq!(required.connection, None);
        assert!(required.connection_unavailable);
    }

    #[test]
    fn given_the_words_then_each_mode_reads_back_and_only_disabled_asks_nothing() {
        for mode in PlayerGateway::ALL {
            assert_eq!(mode.as_str().parse::<PlayerGateway>(), Ok(mode));
            assert_eq!(mode.asks_gamelift(), mode != PlayerGateway::Disabled);
        }
        assert!("REQUIRED".parse::<PlayerGateway>().is_err());
    }
}
