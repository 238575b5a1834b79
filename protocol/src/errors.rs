//! The `error` reply, one model (README.md#client-protocol-v1): every code
//! ([`ErrorCode`]) and, per code, the fields an error of that code carries besides its
//! message ([`ErrorReply`]), each field declared once here. The server builds its errors
//! from these types and clients read them through them (and through the types generated
//! from the schema, where `error` is a union keyed by `code`).
//!
//! A frame carries the message (`ErrorReply<ErrorMessage>`: `code`, `message`, then the
//! code's fields); the backend API's problem details (RFC 9457) carry the same fields
//! with the message as their `detail`, outside ([`ErrorReply<NoMessage>`]). Field order is
//! the order the fields go out in.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::domain::{PlacementId, PlayerId, PresenceStatus};
use crate::matchmaking::{TicketId, TicketStatus};
use crate::party::PartyId;

/// Declares the codes: `Variant = "name" => constructor(DetailType) "what it means"`, or
/// `constructor()` for a code whose errors carry nothing besides their message; the
/// attributes go to the [`ErrorCode`] variant, the text to the [`ErrorReply`] variant.
/// Both are derived from the list, with each code's name written once.
macro_rules! error_codes {
    ($(
        $(#[$attr:meta])*
        $variant:ident = $name:literal => $constructor:ident($($detail:ty)?) $meaning:literal
    ),* $(,)?) => {
        /// Error codes of `error` frames.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        pub enum ErrorCode {
            $($(#[$attr])* #[serde(rename = $name)] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order they are declared.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code's name in frames (`not_found`, ...).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name),*
                }
            }
        }

        /// An error: its `code`, `T` (the message: [`ErrorMessage`] in frames) and the
        /// fields of that code ([`Refused::detail`]).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(tag = "code")]
        pub enum ErrorReply<T = ErrorMessage> {
            $(#[doc = $meaning] #[serde(rename = $name)] $variant(Refused<T $(, $detail)?>),)*
        }

        impl<T> ErrorReply<T> {
            /// An error of `code` saying `text`, with none of the code's optional fields.
            pub fn new(code: ErrorCode, text: T) -> Self {
                match code {
                    $(ErrorCode::$variant => Self::$variant(Refused {
                        text,
                        detail: Default::default(),
                    }),)*
                }
            }

            pub fn code(&self) -> ErrorCode {
                match self {
                    $(Self::$variant(_) => ErrorCode::$variant),*
                }
            }

            pub fn text(&self) -> &T {
                match self {
                    $(Self::$variant(refused) => &refused.text),*
                }
            }

            /// The same error, its text turned into another (`T` to `U`) by `f`.
            pub fn map_text<U>(self, f: impl FnOnce(T) -> U) -> ErrorReply<U> {
                match self {
                    $(Self::$variant(refused) => ErrorReply::$variant(Refused {
                        text: f(refused.text),
                        detail: refused.detail,
                    }),)*
                }
            }
        }

        impl ErrorReply {
            $(
                #[doc = concat!("A `", $name, "` error saying `message`.")]
                pub fn $constructor(message: impl Into<String> $(, fields: $detail)?) -> Self {
                    Self::$variant(Refused {
                        text: ErrorMessage::new(message),
                        detail: error_codes!(@detail fields $($detail)?),
                    })
                }
            )*
        }
    };
    (@detail $value:ident) => { NoDetail {} };
    (@detail $value:ident $detail:ty) => { $value };
}

error_codes! {
    BadRequest = "bad_request" => bad_request(FieldDetail)
        "The request (its frame or body) is not valid; nothing was done.",
    UnknownRoute = "unknown_route" => unknown_route(AllowDetail)
        "No such route (or, in the backend API, endpoint).",
    PayloadTooLarge = "payload_too_large" => payload_too_large(FieldDetail)
        "The frame, or the message in it, is over its limit.",
    NotFound = "not_found" => not_found(NotFoundDetail)
        "What the request names does not exist (or is not the caller's).",
    Conflict = "conflict" => conflict(ConflictDetail)
        "The request conflicts with the current state (e.g. a request already pending).",
    /// The request is valid, but the caller may not do it (e.g. only a party's leader
    /// may kick).
    Forbidden = "forbidden" => forbidden(ForbiddenDetail)
        "The request is valid, but the caller may not do it.",
    SessionEnded = "session_ended" => session_ended(SessionEndedDetail)
        "The game session is over: request a placement or matchmaking anew.",
    /// The game session has no free player slot (GameLift's GameSessionFullException).
    SessionFull = "session_full" => session_full(SessionEndedDetail)
        "The game session has no free player slot; one may free up.",
    /// Over a per-player rate limit; the frame carries `retryAfterMs`.
    RateLimited = "rate_limited" => rate_limited(RateLimitedDetail)
        "Over a per-player rate limit: nothing was done; retry after `retryAfterMs`.",
    Unavailable = "unavailable" => unavailable()
        "A dependency is unavailable: retrying may work.",
    Internal = "internal" => internal()
        "A server fault.",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ErrorReply {
    pub fn message(&self) -> &str {
        &self.text().message
    }

    /// The message apart, and the error without it (what problem details carry).
    pub fn into_parts(self) -> (String, ErrorReply<NoMessage>) {
        let mut message = String::new();
        let untold = self.map_text(|text| {
            message = text.message;
            NoMessage {}
        });
        (message, untold)
    }
}

// One error: `T` (its message) and `D`, the fields its code carries. No doc comment:
// the schema inlines it into each code's variant, which its own doc would describe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Refused<T = ErrorMessage, D = NoDetail> {
    #[serde(flatten)]
    pub text: T,
    #[serde(flatten)]
    pub detail: D,
}

// An error frame's text (no doc comment: the schema inlines it in each code's variant).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorMessage {
    /// What went wrong, and what (not) to do about it, for a person.
    pub message: String,
}

impl ErrorMessage {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

// No text: problem details carry the message as their `detail`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoMessage {}

/// The fields of a code whose errors carry none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NoDetail {}

/// `bad_request`, `payload_too_large`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FieldDetail {
    /// The backend API: the request's field at fault (`body` for the body as a whole,
    /// `path` or a path parameter for the path).
    pub field: Option<String>,
}

impl FieldDetail {
    pub fn named(field: impl Into<String>) -> Self {
        Self {
            field: Some(field.into()),
        }
    }
}

/// `unknown_route`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AllowDetail {
    /// The backend API: the one method the path serves (also the `Allow` header).
    pub allow: Option<String>,
}

/// `not_found`: what was not found, where the error names it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotFoundDetail {
    /// The recipients no player has (`sendMessage`, the backend API's messages): nothing
    /// was sent.
    pub player_ids: Option<Vec<PlayerId>>,
    /// The ticket that is over (`stopMatchmaking`), or the matchmaking ticket that
    /// `cancelPlacement` found pending.
    pub ticket_id: Option<TicketId>,
    /// The backend API: the player no one is.
    pub player_id: Option<PlayerId>,
    /// The backend API: the party no one is in.
    pub party_id: Option<PartyId>,
    /// The backend API: the presence of a player with no open connection.
    pub presence: Option<PresenceStatus>,
}

impl NotFoundDetail {
    pub fn ticket(ticket_id: TicketId) -> Self {
        Self {
            ticket_id: Some(ticket_id),
            ..Self::default()
        }
    }
}

/// `conflict`: what the request ran into, where the error names it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConflictDetail {
    /// The live matchmaking ticket already pending, or the ticket not awaiting an answer
    /// (`acceptMatch`).
    pub ticket_id: Option<TicketId>,
    /// The placement already pending.
    pub placement_id: Option<PlacementId>,
    /// Whose pending request it is, when it is another player's or a party's
    /// reservation found it.
    pub player_id: Option<PlayerId>,
    /// The status of the ticket not awaiting an answer.
    pub status: Option<TicketStatus>,
    /// The backend API: the game session the player is seated in instead (`null`:
    /// none).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub current_game_session_id: Option<Option<String>>,
}

impl ConflictDetail {
    pub fn ticket(ticket_id: TicketId) -> Self {
        Self {
            ticket_id: Some(ticket_id),
            ..Self::default()
        }
    }
}

/// `session_ended` and `session_full`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEndedDetail {
    /// The game session that ended (or is full).
    pub game_session_arn: Option<String>,
    /// `joinFriendGame`: the friend whose game it is.
    pub player_id: Option<PlayerId>,
}

/// `forbidden`.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForbiddenDetail {
    /// `joinFriendGame`: the player whose game the caller may not join (not a friend).
    pub player_id: Option<PlayerId>,
}

/// `rate_limited`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitedDetail {
    /// Retry after this many milliseconds; nothing was done.
    pub retry_after_ms: i64,
}

/// A field that is present, `null` or not: `Some(None)` for `null`, `None` (the
/// default) when absent.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests;
