//! Status codes: a response is a success only with `StatusCode` 200 (a missing one is
//! read as 0, an error, by all three SDKs: Go `server/internal/websocket_client.go`
//! `readHandler`, C++ `WebSocketppClientWrapper.cpp` `OnMessage`, C#
//! `GameLiftWebSocket.cs` `OnMessage`).

use serde::{Deserialize, Serialize};

/// The one success code.
pub const STATUS_OK: u16 = 200;

/// What kind of failure a status code means, as the SDKs map it (Go
/// `common/errors.go` `getErrorTypeForStatusCode`, C++ `GameLiftErrors.h`
/// `GetErrorTypeForStatusCode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ErrorKind {
    /// 400, and any 4xx without a kind of its own.
    BadRequest,
    /// 401.
    Unauthorized,
    /// 403.
    Forbidden,
    /// 404.
    NotFound,
    /// 409.
    Conflict,
    /// 429.
    TooManyRequests,
    /// 5xx, 0 (no status) and anything else.
    InternalService,
}

impl ErrorKind {
    /// The kind of a non-200 status code.
    pub fn from_status(status: u16) -> Self {
        match status {
            400 => Self::BadRequest,
            401 => Self::Unauthorized,
            403 => Self::Forbidden,
            404 => Self::NotFound,
            409 => Self::Conflict,
            429 => Self::TooManyRequests,
            402..=499 => Self::BadRequest,
            _ => Self::InternalService,
        }
    }

    /// The status code the service answers for this kind.
    pub fn status(self) -> u16 {
        match self {
            Self::BadRequest => 400,
            Self::Unauthorized => 401,
            Self::Forbidden => 403,
            Self::NotFound => 404,
            Self::Conflict => 409,
            Self::TooManyRequests => 429,
            Self::InternalService => 500,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_each_kind_when_its_status_is_read_back_then_the_kind_is_the_same() {
        for kind in [
            ErrorKind::BadRequest,
            ErrorKind::Unauthorized,
            ErrorKind::Forbidden,
            ErrorKind::NotFound,
            ErrorKind::Conflict,
            ErrorKind::TooManyRequests,
            ErrorKind::InternalService,
        ] {
            assert_eq!(ErrorKind::from_status(kind.status()), kind);
        }
    }

    #[test]
    fn given_other_codes_when_mapped_then_4xx_is_bad_request_and_the_rest_internal() {
        assert_eq!(ErrorKind::from_status(418), ErrorKind::BadRequest);
        assert_eq!(ErrorKind::from_status(0), ErrorKind::InternalService);
        assert_eq!(ErrorKind::from_status(503), ErrorKind::InternalService);
        assert_eq!(ErrorKind::from_status(302), ErrorKind::InternalService);
    }
}
