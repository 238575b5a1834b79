//! DynamoDB SDK errors → [`StoreError`].

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use shared::ports::StoreError;

/// How a DynamoDB call failed, as far as the adapters care.
#[derive(Debug)]
pub(crate) enum Failure {
    /// `ConditionalCheckFailedException`: the write's condition was false; an answer,
    /// not a fault.
    ConditionFailed,
    Store(StoreError),
}

/// Error codes DynamoDB documents as retryable.
const TRANSIENT_CODES: &[&str] = &[
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ThrottlingException",
    "InternalServerError",
    "ServiceUnavailable",
    // A conditional write on an item that a transaction is updating: retry later.
    "TransactionConflictException",
];

/// A conditional write's outcome: `true` when it was applied, `false` when its condition
/// failed (nothing changed), a store error otherwise.
pub(crate) fn applied<O, E>(
    result: Result<O, SdkError<E, HttpResponse>>,
) -> Result<bool, StoreError>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    match result {
        Ok(_) => Ok(true),
        Err(err) => match classify(err) {
            Failure::ConditionFailed => Ok(false),
            Failure::Store(err) => Err(err),
        },
    }
}

pub(crate) fn classify<E>(err: SdkError<E, HttpResponse>) -> Failure
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    if err.code() == Some("ConditionalCheckFailedException") {
        return Failure::ConditionFailed;
    }
    let transient = match &err {
        SdkError::TimeoutError(_) => true,
        // A connector error the caller caused (e.g. a malformed endpoint) will not
        // heal by itself; I/O, timeouts and the rest may.
        SdkError::DispatchFailure(dispatch) => !dispatch.is_user(),
        SdkError::ServiceError(_) | SdkError::ResponseError(_) => {
            err.code()
                .is_some_and(|code| TRANSIENT_CODES.contains(&code))
                || err
                    .raw_response()
                    .is_some_and(|raw| raw.status().is_server_error())
        }
        _ => false,
    };
    Failure::Store(if transient {
        StoreError::Unavailable(Box::new(err))
    } else {
        StoreError::Other(Box::new(err))
    })
}

/// For calls where a failed condition is impossible or also a fault.
pub(crate) fn store_error<E>(err: SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    match classify(err) {
        Failure::ConditionFailed => {
            StoreError::Other("unexpected conditional check failure".into())
        }
        Failure::Store(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::error::ConnectorError;
    use aws_sdk_dynamodb::error::ErrorMetadata;
    use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
    use aws_smithy_runtime_api::http::StatusCode;
    use aws_smithy_types::body::SdkBody;

    use super::*;

    fn service_error(code: &str, status: u16) -> SdkError<UpdateItemError, HttpResponse> {
        let err = UpdateItemError::generic(ErrorMetadata::builder().code(code).build());
        let raw = HttpResponse::new(StatusCode::try_from(status).unwrap(), SdkBody::empty());
        SdkError::service_error(err, raw)
    }

    fn kind(failure: Failure) -> &'static str {
        match failure {
            Failure::ConditionFailed => "condition",
            Failure::Store(StoreError::Unavailable(_)) => "unavailable",
            Failure::Store(StoreError::Other(_)) => "other",
            Failure::Store(StoreError::Corrupt { .. }) => "corrupt",
        }
    }

    #[test]
    fn conditional_check_failures_are_answers() {
        let err = service_error("ConditionalCheckFailedException", 400);
        assert_eq!(kind(classify(err)), "condition");
    }

    #[test]
    fn throttling_and_server_errors_are_transient() {
        for (code, status) in [
            ("ProvisionedThroughputExceededException", 400),
            ("RequestLimitExceeded", 400),
            ("ThrottlingException", 400),
            ("InternalServerError", 500),
            ("SomethingNew", 503),
        ] {
            assert_eq!(
                kind(classify(service_error(code, status))),
                "unavailable",
                "{code}"
            );
        }
        let timeout: SdkError<UpdateItemError, HttpResponse> =
            SdkError::timeout_error("took too long");
        assert_eq!(kind(classify(timeout)), "unavailable");
        let io: SdkError<UpdateItemError, HttpResponse> =
            SdkError::dispatch_failure(ConnectorError::io("connection reset".into()));
        assert_eq!(kind(classify(io)), "unavailable");
    }

    #[test]
    fn everything_else_is_a_fault_keeping_the_sdk_error() {
        for (code, status) in [
            ("ResourceNotFoundException", 400),
            ("ValidationException", 400),
            ("AccessDeniedException", 400),
        ] {
            match classify(service_error(code, status)) {
                Failure::Store(StoreError::Other(source)) => {
                    let sdk = source
                        .downcast_ref::<SdkError<UpdateItemError, HttpResponse>>()
                        .expect("the SDK error is the source");
                    assert_eq!(sdk.code(), Some(code));
                }
                other => panic!("{code}: {other:?}"),
            }
        }
        let user: SdkError<UpdateItemError, HttpResponse> =
            SdkError::dispatch_failure(ConnectorError::user("bad endpoint".into()));
        assert_eq!(kind(classify(user)), "other");
    }
}
