//! FlexMatch matchmaking as the socket offers it (README: Client protocol,
//! Matchmaking): ticket ids and statuses with the rule every status change follows
//! (`ticket`), the ticket record and its changes (`tickets`), a player's attributes and
//! the `matchmaking` frame's fields (`frame`). The route bodies are the protocol crate's
//! (`requests`); the FlexMatch events GameLift sends are read by `on-matchmaking-event`.

pub mod settings;
pub mod tickets;

/// The ticket and frame types clients see, from the protocol crate.
pub use gamelift_sockets_protocol::matchmaking::{frame, ticket};

pub use frame::{MatchedSeat, MatchmakingDetail};
pub use gamelift_sockets_protocol::matchmaking::{AttributeValue, Attributes, PlayerAttributes};
pub use settings::MatchmakingSettings;
pub use ticket::{TicketId, TicketIdError, TicketStatus};
pub use tickets::{
    MAX_TICKET_PLAYERS, MatchmakingPlayer, MatchmakingRequest, TICKET_RETENTION_SECONDS,
    TicketChange, TicketPlayerChange, TicketPushes, TicketRecord,
};
