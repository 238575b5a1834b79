//! What the GameLift adapters' tests share: the adapter on a mocked SDK client, an
//! outcome named in a word, an error answer as GameLift puts it on the wire (or a bare
//! status), and the check that each modeled refusal of a call maps as expected.

use aws_sdk_gamelift::config::retry::RetryConfig;
use aws_smithy_mocks::{Rule, RuleMode, mock_client};
use aws_smithy_runtime_api::client::orchestrator::HttpResponse as RawResponse;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use shared::ports::GameLiftError;

use crate::gamelift::SdkGameLift;

/// An adapter whose client answers with `rules` (retries off: one attempt per call).
pub(crate) fn gamelift(rules: &[&Rule]) -> SdkGameLift {
    SdkGameLift::new(mock_client!(
        aws_sdk_gamelift,
        RuleMode::MatchAny,
        rules,
        |config| config.retry_config(RetryConfig::disabled())
    ))
}

/// The outcome in a word (with GameLift's message where the player is told it).
pub(crate) fn kind<T: std::fmt::Debug>(result: Result<T, GameLiftError>) -> String {
    match result {
        Ok(_) => "ok".into(),
        Err(GameLiftError::InvalidRequest { message }) => format!("invalid: {message}"),
        Err(GameLiftError::NotFound { message }) => format!("not found: {message}"),
        Err(GameLiftError::SessionEnded { message }) => format!("ended: {message}"),
        Err(GameLiftError::SessionFull { message }) => format!("full: {message}"),
        Err(GameLiftError::Unavailable(_)) => "unavailable".into(),
        Err(GameLiftError::OutcomeUnknown(_)) => "unknown".into(),
        Err(GameLiftError::Other(_)) => "other".into(),
    }
}

/// An error answer as GameLift sends one (Smithy RPC v2 CBOR): a map with `__type` and
/// `Message`.
pub(crate) fn wire_error(status: u16, code: &str, message: &str) -> RawResponse {
    fn text(out: &mut Vec<u8>, value: &str) {
        let len = value.len();
        assert!(len < 256, "short strings only");
        if len < 24 {
            out.push(0x60 | len as u8);
        } else {
            out.extend([0x78, len as u8]);
        }
        out.extend(value.as_bytes());
    }
    let mut body = vec![0xa2];
    text(&mut body, "__type");
    text(&mut body, code);
    text(&mut body, "Message");
    text(&mut body, message);
    let mut response = RawResponse::new(StatusCode::try_from(status).unwrap(), SdkBody::from(body));
    response
        .headers_mut()
        .insert("content-type", "application/cbor");
    response
        .headers_mut()
        .insert("smithy-protocol", "rpc-v2-cbor");
    response
}

/// A bare status with an empty body, as a proxy or a load balancer answers.
pub(crate) fn bare_status(status: u16) -> RawResponse {
    RawResponse::new(StatusCode::try_from(status).unwrap(), SdkBody::empty())
}

/// A modeled error of an operation, and what it maps to (as [`kind`] says it).
pub(crate) type Case<E> = (fn() -> E, &'static str);

/// Asserts each case: `call`, on an adapter whose operation refuses with the case's
/// error (the rule `refusing` makes), maps to the case's outcome.
pub(crate) async fn assert_refusals<E, T: std::fmt::Debug>(
    cases: impl IntoIterator<Item = Case<E>>,
    refusing: impl Fn(fn() -> E) -> Rule,
    call: impl AsyncFn(&SdkGameLift) -> Result<T, GameLiftError>,
) {
    for (error, expected) in cases {
        let rule = refusing(error);
        assert_eq!(kind(call(&gamelift(&[&rule])).await), expected);
    }
}

/// A modeled refusal of the operation error `$error`, as a `fn() -> $error`: the variant
/// named after its exception, with GameLift's message when one is given.
macro_rules! refusal {
    ($error:ident :: $exception:ident) => {
        || $error::$exception(aws_sdk_gamelift::types::error::$exception::builder().build())
    };
    ($error:ident :: $exception:ident, $message:expr) => {
        || {
            $error::$exception(
                aws_sdk_gamelift::types::error::$exception::builder()
                    .message($message)
                    .build(),
            )
        }
    };
}
pub(crate) use refusal;
