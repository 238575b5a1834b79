//! The matchmaking types clients see (README: Client protocol, Matchmaking): ticket ids
//! and statuses with the rule every status change follows (`ticket`), and what the
//! `matchmaking` frame carries besides them (`frame`).

pub mod attributes;
pub mod frame;
pub mod ticket;

pub use attributes::{
    AttributeValue, Attributes, MAX_ATTRIBUTE_ITEMS, MAX_ATTRIBUTE_NAME_LEN,
    MAX_ATTRIBUTE_STRING_LEN, MAX_ATTRIBUTES, PlayerAttributes,
};
pub use frame::{MatchedSeat, MatchmakingDetail};
pub use ticket::{MAX_TICKET_ID_LEN, TICKET_ID_PREFIX, TicketId, TicketIdError, TicketStatus};
