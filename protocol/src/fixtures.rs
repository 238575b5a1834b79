//! Fixtures the tests of this crate and of the crates above it share (feature
//! `test-support`): values with nothing to say of their own, written once.

use crate::domain::GameSession;

/// A seat on a game server reached directly (no player gateway relays): player session
/// `psess-1` at 10.0.0.1:7777 in us-east-1.
pub fn seat() -> GameSession {
    GameSession {
        game_session_arn: "arn:gs".into(),
        ip_address: "10.0.0.1".into(),
        dns_name: "host.example".into(),
        port: 7777,
        region: "us-east-1".into(),
        player_session_id: "psess-1".into(),
        connection: None,
        connection_unavailable: false,
    }
}
