//! Identifiers shaped like API Gateway's: connection ids, request ids and message ids
//! are 11 random bytes in base64, 16 characters ending with `=` (e.g. `L0SM9cOFvHcCIhw=`).
//!
//! The URL-safe alphabet is used so an id never contains `/` (which a path segment of
//! the `@connections` API cannot carry) nor `+`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE;

/// A fresh id such as `L0SM9cOFvHcCIhw=`.
pub fn new_id() -> String {
    let mut bytes = [0u8; 11];
    fastrand::fill(&mut bytes);
    URL_SAFE.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::domain::ConnectionId;

    #[test]
    fn ids_look_like_api_gateway_connection_ids() {
        for _ in 0..1000 {
            let id = new_id();
            assert_eq!(id.len(), 16, "{id}");
            assert!(id.ends_with('='), "{id}");
            assert!(!id.contains('/') && !id.contains('+'), "{id}");
            assert!(ConnectionId::parse(id.clone()).is_ok(), "{id}");
        }
        assert_ne!(new_id(), new_id());
    }
}
