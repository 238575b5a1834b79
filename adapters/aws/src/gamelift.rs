//! The GameLift ports ([`PlacementStarter`], [`PlacementStopper`], [`PlayerSessions`]) on
//! Amazon GameLift, with `aws-sdk-gamelift`: StartGameSessionPlacement,
//! StopGameSessionPlacement and CreatePlayerSession.
//!
//! Every SDK error of each operation maps to one [`GameLiftError`]: the modeled error
//! first, then the error code (an error the model does not list for this operation, or
//! a generic AWS one such as `ThrottlingException`), then the transport (timeouts,
//! dispatch failures, 5xx and 429 statuses). The SDK error is kept as the source of
//! `Unavailable`, `OutcomeUnknown` and `Other`. `Unavailable` is only what certainly did
//! nothing (throttling, no connection); what may have been acted on (a timeout, a 5xx,
//! an unreadable answer) is `OutcomeUnknown`.

use async_trait::async_trait;
use aws_sdk_gamelift::Client;
use aws_sdk_gamelift::config::http::HttpResponse;
use aws_sdk_gamelift::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_gamelift::operation::create_player_session::{
    CreatePlayerSessionError, CreatePlayerSessionOutput,
};
use aws_sdk_gamelift::operation::start_game_session_placement::StartGameSessionPlacementError;
use aws_sdk_gamelift::operation::stop_game_session_placement::StopGameSessionPlacementError;
use aws_sdk_gamelift::types::{DesiredPlayerSession, PlayerLatency};

use crate::calls::{AwsCall, Calls, Resource};
use shared::domain::{PlacementId, PlayerId};
use shared::placement::{PlacementRequest, PlayerSession};
use shared::ports::{GameLiftError, PlacementStarter, PlacementStopper, PlayerSessions};

/// Amazon GameLift through one SDK client (built once per process).
#[derive(Clone, Debug)]
pub struct SdkGameLift {
    pub(super) client: Client,
    /// The queues placements go to (`GAME_SESSION_QUEUES`): what StartGameSessionPlacement
    /// is declared on.
    queues: Vec<String>,
}

impl SdkGameLift {
    pub fn new(client: Client) -> Self {
        Self {
            client,
            queues: Vec::new(),
        }
    }

    /// The same client, placing on `queues`.
    pub fn placing_on(mut self, queues: Vec<String>) -> Self {
        self.queues = queues;
        self
    }

    /// A client from the process's SDK configuration (region, credentials, timeouts).
    pub fn from_sdk_config(sdk_config: &aws_config::SdkConfig) -> Self {
        Self::new(Client::new(sdk_config))
    }
}

#[async_trait]
impl PlacementStarter for SdkGameLift {
    async fn start_placement(&self, request: &PlacementRequest) -> Result<(), GameLiftError> {
        let max_players =
            i32::try_from(request.max_players).map_err(|_| GameLiftError::InvalidRequest {
                message: format!(
                    "MaximumPlayerSessionCount {} is out of range",
                    request.max_players
                ),
            })?;
        // A desired player session per player (player data is the requester's); the
        // latencies of every player who reported some.
        let players = request.players();
        let desired: Vec<DesiredPlayerSession> = players
            .iter()
            .map(|(player_id, _)| {
                let data = (*player_id == &request.player_id)
                    .then(|| request.player_data.clone())
                    .flatten();
                DesiredPlayerSession::builder()
                    .player_id(player_id.as_str())
                    .set_player_data(data)
                    .build()
            })
            .collect();
        let latencies: Vec<PlayerLatency> = players
            .iter()
            .flat_map(|(player_id, latencies)| {
                latencies.iter().map(|(region, millis)| {
                    PlayerLatency::builder()
                        .player_id(player_id.as_str())
                        .region_identifier(region)
                        // Milliseconds from a client are ≤ 10 000: exact in an f32.
                        .latency_in_milliseconds(*millis as f32)
                        .build()
                })
            })
            .collect();
        self.client
            .start_game_session_placement()
            .placement_id(request.placement_id.as_str())
            .game_session_queue_name(&request.queue)
            .maximum_player_session_count(max_players)
            .set_desired_player_sessions(Some(desired))
            .set_player_latencies((!latencies.is_empty()).then_some(latencies))
            .send()
            .await
            .map(|_| ())
            .map_err(gamelift_error)
    }
}

impl Calls<dyn PlacementStarter> for SdkGameLift {
    /// StartGameSessionPlacement has a resource type: the queues it may place on.
    fn calls(&self) -> Vec<AwsCall> {
        self.queues
            .iter()
            .map(|queue| {
                AwsCall::new(
                    "gamelift:StartGameSessionPlacement",
                    Resource::GameSessionQueue(queue.clone()),
                )
            })
            .collect()
    }
}

#[async_trait]
impl PlacementStopper for SdkGameLift {
    async fn stop_placement(&self, placement_id: &PlacementId) -> Result<(), GameLiftError> {
        self.client
            .stop_game_session_placement()
            .placement_id(placement_id.as_str())
            .send()
            .await
            .map(|_| ())
            .map_err(gamelift_error)
    }
}

impl Calls<dyn PlacementStopper> for SdkGameLift {
    /// No resource type: IAM matches it on `*` only.
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::new(
            "gamelift:StopGameSessionPlacement",
            Resource::Any,
        )]
    }
}

#[async_trait]
impl PlayerSessions for SdkGameLift {
    async fn create_player_session(
        &self,
        game_session_arn: &str,
        player_id: &PlayerId,
        player_data: Option<&str>,
    ) -> Result<PlayerSession, GameLiftError> {
        let output = self
            .client
            .create_player_session()
            .game_session_id(game_session_arn)
            .player_id(player_id.as_str())
            .set_player_data(player_data.map(str::to_owned))
            .send()
            .await
            .map_err(gamelift_error)?;
        player_session(&output, game_session_arn)
    }
}

impl Calls<dyn PlayerSessions> for SdkGameLift {
    /// No resource type: IAM matches it on `*` only.
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::new("gamelift:CreatePlayerSession", Resource::Any)]
    }
}

/// The seat GameLift created. The id and the port are required; the game session id
/// falls back to the one asked for, and an address GameLift leaves out (an Anywhere
/// fleet may give only one of them) is empty.
fn player_session(
    output: &CreatePlayerSessionOutput,
    game_session_arn: &str,
) -> Result<PlayerSession, GameLiftError> {
    let unexpected = |what: &str| {
        GameLiftError::Other(format!("CreatePlayerSession returned no valid {what}").into())
    };
    let session = output
        .player_session()
        .ok_or_else(|| unexpected("PlayerSession"))?;
    let player_session_id = session
        .player_session_id()
        .filter(|id| !id.is_empty())
        .ok_or_else(|| unexpected("PlayerSessionId"))?;
    let port = session
        .port()
        .and_then(|port| u16::try_from(port).ok())
        .ok_or_else(|| unexpected("Port"))?;
    Ok(PlayerSession {
        player_session_id: player_session_id.to_owned(),
        game_session_arn: session
            .game_session_id()
            .unwrap_or(game_session_arn)
            .to_owned(),
        ip_address: session.ip_address().unwrap_or_default().to_owned(),
        dns_name: session.dns_name().unwrap_or_default().to_owned(),
        port,
    })
}

/// What a GameLift refusal means to the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    InvalidRequest,
    NotFound,
    SessionEnded,
    SessionFull,
    Unavailable,
    OutcomeUnknown,
    Other,
}

/// The modeled errors of one operation.
pub(super) trait Modeled {
    fn kind(&self) -> Kind;
    /// The modeled exception's own message.
    fn detail(&self) -> Option<&str>;
}

/// Implements [`Modeled`] for an operation's error from one table of its modeled
/// exceptions and what each means: a variant is named once, for its kind and for its
/// message. Any other variant (a code the model does not list) goes [`by_code`].
macro_rules! modeled {
    ($error:ty { $($variant:ident => $kind:ident),+ $(,)? }) => {
        impl $crate::gamelift::Modeled for $error {
            fn kind(&self) -> $crate::gamelift::Kind {
                match self {
                    $(Self::$variant(_) => $crate::gamelift::Kind::$kind,)+
                    _ => $crate::gamelift::by_code(
                        aws_sdk_gamelift::error::ProvideErrorMetadata::code(self),
                    ),
                }
            }

            fn detail(&self) -> Option<&str> {
                match self {
                    $(Self::$variant(e) => e.message(),)+
                    _ => None,
                }
            }
        }
    };
}
pub(super) use modeled;

modeled!(StartGameSessionPlacementError {
    InvalidRequestException => InvalidRequest,
    NotFoundException => NotFound,
    InternalServiceException => OutcomeUnknown,
    UnauthorizedException => Other,
    UnsupportedRegionException => Other,
});

modeled!(StopGameSessionPlacementError {
    InvalidRequestException => InvalidRequest,
    NotFoundException => NotFound,
    InternalServiceException => OutcomeUnknown,
    UnauthorizedException => Other,
});

modeled!(CreatePlayerSessionError {
    InvalidRequestException => InvalidRequest,
    NotFoundException => NotFound,
    GameSessionFullException => SessionFull,
    InvalidGameSessionStatusException => SessionEnded,
    TerminalRoutingStrategyException => SessionEnded,
    InternalServiceException => OutcomeUnknown,
    UnauthorizedException => Other,
});

/// Error codes the AWS SDKs treat as throttling (as `aws-runtime` classifies them),
/// plus the transient request timeouts.
const THROTTLING_CODES: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
    "RequestTimeout",
    "RequestTimeoutException",
];

/// An error the operation's model does not list, by its code.
pub(super) fn by_code(code: Option<&str>) -> Kind {
    match code {
        Some("InvalidRequestException") => Kind::InvalidRequest,
        Some("NotFoundException") => Kind::NotFound,
        Some("GameSessionFullException") => Kind::SessionFull,
        Some("InvalidGameSessionStatusException" | "TerminalRoutingStrategyException") => {
            Kind::SessionEnded
        }
        Some("InternalServiceException") => Kind::OutcomeUnknown,
        Some(code) if THROTTLING_CODES.contains(&code) => Kind::Unavailable,
        _ => Kind::Other,
    }
}

pub(super) fn gamelift_error<E>(err: SdkError<E, HttpResponse>) -> GameLiftError
where
    E: Modeled + ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let status = err.raw_response().map(|raw| raw.status().as_u16());
    let kind = match &err {
        SdkError::ServiceError(service) => match service.err().kind() {
            // An unmodeled answer with no known code: the status decides.
            Kind::Other => by_status(status),
            kind => kind,
        },
        SdkError::TimeoutError(_) => Kind::OutcomeUnknown,
        // A connector error the caller caused (e.g. a malformed endpoint) will not
        // heal by itself; I/O failures and the rest may. A timed-out connection may
        // have carried the request; a refused or broken one is taken not to have.
        SdkError::DispatchFailure(dispatch) if dispatch.is_user() => Kind::Other,
        SdkError::DispatchFailure(dispatch) if dispatch.is_timeout() => Kind::OutcomeUnknown,
        SdkError::DispatchFailure(_) => Kind::Unavailable,
        _ => by_status(status),
    };
    let message = || {
        err.as_service_error()
            .and_then(Modeled::detail)
            .or(err.message())
            .or(err.code())
            .unwrap_or("no message")
            .to_owned()
    };
    match kind {
        Kind::InvalidRequest => GameLiftError::InvalidRequest { message: message() },
        Kind::NotFound => GameLiftError::NotFound { message: message() },
        Kind::SessionEnded => GameLiftError::SessionEnded { message: message() },
        Kind::SessionFull => GameLiftError::SessionFull { message: message() },
        Kind::Unavailable => GameLiftError::Unavailable(Box::new(err)),
        Kind::OutcomeUnknown => GameLiftError::OutcomeUnknown(Box::new(err)),
        Kind::Other => GameLiftError::Other(Box::new(err)),
    }
}

/// A bare HTTP answer: 429 and 5xx are worth retrying (a 5xx may have been acted on),
/// anything else is a fault.
fn by_status(status: Option<u16>) -> Kind {
    match status {
        Some(429) => Kind::Unavailable,
        Some(500..=599) => Kind::OutcomeUnknown,
        _ => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_gamelift::operation::create_player_session::CreatePlayerSessionOutput;
    use aws_sdk_gamelift::operation::start_game_session_placement::StartGameSessionPlacementOutput;
    use aws_sdk_gamelift::operation::stop_game_session_placement::StopGameSessionPlacementOutput;
    use aws_sdk_gamelift::types::error::{
        GameSessionFullException, InternalServiceException, InvalidGameSessionStatusException,
    };
    use aws_sdk_gamelift::types::{GameSessionPlacement, PlayerSession as SdkPlayerSession};
    use aws_smithy_mocks::mock;
    use aws_smithy_runtime_api::client::result::ConnectorError;
    use shared::placement::PlacementPlayer;

    use super::*;
    use crate::gamelift_mocks::{
        Case, assert_refusals, bare_status, gamelift, kind, refusal, wire_error,
    };
    use contracts::fixtures::placement_id;

    const ARN: &str = "arn:aws:gamelift:eu-west-1::gamesession/fleet-2222bbbb-33cc-44dd-55ee-6666ffff77aa/gsess-4444dddd";

    fn player() -> PlayerId {
        PlayerId::parse("player-1").unwrap()
    }

    fn request() -> PlacementRequest {
        PlacementRequest {
            placement_id: placement_id("0d3c2f5e-6b1f-4a7b-9f0e-2a1b3c4d5e6f"),
            queue: "default-queue".into(),
            max_players: 8,
            player_id: player(),
            player_data: Some(r#"{"skin":"red"}"#.into()),
            latencies: vec![("eu-west-1".into(), 42), ("us-east-1".into(), 120)],
            party: Vec::new(),
        }
    }

    #[tokio::test]
    async fn start_placement_sends_every_field() {
        let rule = mock!(Client::start_game_session_placement)
            .match_requests(|req| {
                let desired = req.desired_player_sessions();
                let latencies = req.player_latencies();
                let latency = |i: usize| {
                    (
                        latencies[i].player_id(),
                        latencies[i].region_identifier(),
                        latencies[i].latency_in_milliseconds(),
                    )
                };
                req.placement_id() == Some("0d3c2f5e-6b1f-4a7b-9f0e-2a1b3c4d5e6f")
                    && req.game_session_queue_name() == Some("default-queue")
                    && req.maximum_player_session_count() == Some(8)
                    && desired.len() == 1
                    && desired[0].player_id() == Some("player-1")
                    && desired[0].player_data() == Some(r#"{"skin":"red"}"#)
                    && latencies.len() == 2
                    && latency(0) == (Some("player-1"), Some("eu-west-1"), Some(42.0))
                    && latency(1) == (Some("player-1"), Some("us-east-1"), Some(120.0))
                    && req.priority_configuration_override().is_none()
            })
            .then_output(|| {
                StartGameSessionPlacementOutput::builder()
                    .game_session_placement(
                        GameSessionPlacement::builder()
                            .placement_id("0d3c2f5e-6b1f-4a7b-9f0e-2a1b3c4d5e6f")
                            .build(),
                    )
                    .build()
            });
        gamelift(&[&rule])
            .start_placement(&request())
            .await
            .expect("placed");
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn start_placement_without_latencies_or_player_data_sends_neither() {
        let rule = mock!(Client::start_game_session_placement)
            .match_requests(|req| {
                req.player_latencies().is_empty()
                    && req.desired_player_sessions().len() == 1
                    && req.desired_player_sessions()[0].player_data().is_none()
            })
            .then_output(|| StartGameSessionPlacementOutput::builder().build());
        let request = PlacementRequest {
            player_data: None,
            latencies: vec![],
            ..request()
        };
        gamelift(&[&rule]).start_placement(&request).await.unwrap();
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn given_a_party_when_placing_then_each_member_has_a_desired_session_and_their_own_latencies()
     {
        let rule = mock!(Client::start_game_session_placement)
            .match_requests(|req| {
                let desired: Vec<_> = req
                    .desired_player_sessions()
                    .iter()
                    .map(|d| (d.player_id(), d.player_data()))
                    .collect();
                let latencies: Vec<_> = req
                    .player_latencies()
                    .iter()
                    .map(|l| (l.player_id(), l.region_identifier()))
                    .collect();
                desired
                    == [
                        (Some("player-1"), Some(r#"{"skin":"red"}"#)),
                        (Some("bob"), None),
                        (Some("carol"), None),
                    ]
                    && latencies
                        == [
                            (Some("player-1"), Some("eu-west-1")),
                            (Some("player-1"), Some("us-east-1")),
                            (Some("bob"), Some("eu-west-1")),
                        ]
            })
            .then_output(|| StartGameSessionPlacementOutput::builder().build());
        let request = PlacementRequest {
            party: vec![
                PlacementPlayer {
                    player_id: PlayerId::parse("bob").unwrap(),
                    latencies: vec![("eu-west-1".into(), 30)],
                },
                PlacementPlayer {
                    player_id: PlayerId::parse("carol").unwrap(),
                    latencies: Vec::new(),
                },
            ],
            ..request()
        };
        gamelift(&[&rule]).start_placement(&request).await.unwrap();
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn stop_placement_sends_the_placement_id() {
        let rule = mock!(Client::stop_game_session_placement)
            .match_requests(|req| req.placement_id() == Some("placement-1"))
            .then_output(|| StopGameSessionPlacementOutput::builder().build());
        gamelift(&[&rule])
            .stop_placement(&placement_id("placement-1"))
            .await
            .expect("stopped");
        assert_eq!(rule.num_calls(), 1);
    }

    fn sdk_player_session() -> SdkPlayerSession {
        SdkPlayerSession::builder()
            .player_session_id("psess-1111aaaa")
            .player_id("player-1")
            .game_session_id(ARN)
            .ip_address("203.0.113.10")
            .dns_name("ec2-203-0-113-10.eu-west-1.compute.amazonaws.com")
            .port(7777)
            .build()
    }

    #[tokio::test]
    async fn create_player_session_returns_the_new_seat() {
        let rule = mock!(Client::create_player_session)
            .match_requests(|req| {
                req.game_session_id() == Some(ARN)
                    && req.player_id() == Some("player-1")
                    && req.player_data() == Some("hello")
            })
            .then_output(|| {
                CreatePlayerSessionOutput::builder()
                    .player_session(sdk_player_session())
                    .build()
            });
        let session = gamelift(&[&rule])
            .create_player_session(ARN, &player(), Some("hello"))
            .await
            .unwrap();
        assert_eq!(
            session,
            PlayerSession {
                player_session_id: "psess-1111aaaa".into(),
                game_session_arn: ARN.into(),
                ip_address: "203.0.113.10".into(),
                dns_name: "ec2-203-0-113-10.eu-west-1.compute.amazonaws.com".into(),
                port: 7777,
            }
        );
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn create_player_session_without_player_data_sends_none() {
        let rule = mock!(Client::create_player_session)
            .match_requests(|req| req.player_data().is_none())
            .then_output(|| {
                CreatePlayerSessionOutput::builder()
                    .player_session(sdk_player_session())
                    .build()
            });
        gamelift(&[&rule])
            .create_player_session(ARN, &player(), None)
            .await
            .unwrap();
        assert_eq!(rule.num_calls(), 1);
    }

    #[tokio::test]
    async fn an_incomplete_player_session_is_a_fault() {
        for session in [
            None,
            Some(SdkPlayerSession::builder().port(7777).build()),
            Some(
                SdkPlayerSession::builder()
                    .player_session_id("psess-1")
                    .build(),
            ),
            Some(
                SdkPlayerSession::builder()
                    .player_session_id("psess-1")
                    .port(70_000)
                    .build(),
            ),
        ] {
            let rule = mock!(Client::create_player_session).then_output(move || {
                CreatePlayerSessionOutput::builder()
                    .set_player_session(session.clone())
                    .build()
            });
            let result = gamelift(&[&rule])
                .create_player_session(ARN, &player(), None)
                .await;
            assert_eq!(kind(result), "other");
        }
        // Only the id and the port are required.
        let rule = mock!(Client::create_player_session).then_output(|| {
            CreatePlayerSessionOutput::builder()
                .player_session(
                    SdkPlayerSession::builder()
                        .player_session_id("psess-1")
                        .port(7777)
                        .build(),
                )
                .build()
        });
        let session = gamelift(&[&rule])
            .create_player_session(ARN, &player(), None)
            .await
            .unwrap();
        assert_eq!(session.game_session_arn, ARN);
        assert_eq!(session.ip_address, "");
    }

    #[tokio::test]
    async fn start_placement_errors_map() {
        type E = StartGameSessionPlacementError;
        let cases: Vec<Case<E>> = vec![
            (
                refusal!(E::InvalidRequestException, "PlacementId already used"),
                "invalid: PlacementId already used",
            ),
            (
                refusal!(E::NotFoundException, "no such queue"),
                "not found: no such queue",
            ),
            (refusal!(E::InternalServiceException), "unknown"),
            (refusal!(E::UnauthorizedException), "other"),
            (refusal!(E::UnsupportedRegionException), "other"),
        ];
        let refusing = |e| mock!(Client::start_game_session_placement).then_error(e);
        assert_refusals(cases, refusing, async |g| {
            g.start_placement(&request()).await
        })
        .await;
    }

    #[tokio::test]
    async fn stop_placement_errors_map() {
        type E = StopGameSessionPlacementError;
        let cases: Vec<Case<E>> = vec![
            (
                refusal!(E::InvalidRequestException, "placement is not PENDING"),
                "invalid: placement is not PENDING",
            ),
            (refusal!(E::NotFoundException, "gone"), "not found: gone"),
            (refusal!(E::InternalServiceException), "unknown"),
            (refusal!(E::UnauthorizedException), "other"),
        ];
        let refusing = |e| mock!(Client::stop_game_session_placement).then_error(e);
        let stop = async |g: &SdkGameLift| g.stop_placement(&placement_id("placement-1")).await;
        assert_refusals(cases, refusing, stop).await;
    }

    #[tokio::test]
    async fn create_player_session_errors_map() {
        type E = CreatePlayerSessionError;
        let cases: Vec<Case<E>> = vec![
            (refusal!(E::GameSessionFullException, "full"), "full: full"),
            (
                refusal!(E::InvalidGameSessionStatusException, "TERMINATED"),
                "ended: TERMINATED",
            ),
            (
                refusal!(E::TerminalRoutingStrategyException, "terminal alias"),
                "ended: terminal alias",
            ),
            (
                refusal!(E::InvalidRequestException, "bad id"),
                "invalid: bad id",
            ),
            (
                refusal!(E::NotFoundException, "no game"),
                "not found: no game",
            ),
            (refusal!(E::InternalServiceException), "unknown"),
            (refusal!(E::UnauthorizedException), "other"),
        ];
        let refusing = |e| mock!(Client::create_player_session).then_error(e);
        assert_refusals(cases, refusing, create).await;
    }

    /// A seat for player-1 in the game session ARN, without player data.
    async fn create(g: &SdkGameLift) -> Result<PlayerSession, GameLiftError> {
        g.create_player_session(ARN, &player(), None).await
    }

    /// Each placement call (start, stop, create a seat) answered with `response`: its
    /// outcome, in a word.
    async fn outcomes(
        response: impl Fn() -> HttpResponse + Clone + Send + Sync + 'static,
    ) -> [String; 3] {
        let start =
            mock!(Client::start_game_session_placement).then_http_response(response.clone());
        let stop = mock!(Client::stop_game_session_placement).then_http_response(response.clone());
        let create_seat = mock!(Client::create_player_session).then_http_response(response);
        let gamelift = gamelift(&[&start, &stop, &create_seat]);
        [
            kind(gamelift.start_placement(&request()).await),
            kind(gamelift.stop_placement(&placement_id("placement-1")).await),
            kind(create(&gamelift).await),
        ]
    }

    /// Errors off the wire, by their `__type` code: modeled ones parse into their
    /// variant, throttling ones (not modeled for these operations) by code.
    #[tokio::test]
    async fn wire_errors_map_by_code_on_every_call() {
        let cases = [
            (400, "ThrottlingException", "unavailable"),
            (400, "LimitExceededException", "unavailable"),
            (400, "TooManyRequestsException", "unavailable"),
            (400, "InvalidRequestException", "invalid: boom"),
            (400, "NotFoundException", "not found: boom"),
            (500, "InternalServiceException", "unknown"),
            (400, "UnauthorizedException", "other"),
            (400, "AccessDeniedException", "other"),
            // An unknown code: the status decides.
            (503, "ServiceUnavailableException", "unknown"),
        ];
        for (status, code, expected) in cases {
            let outcomes = outcomes(move || wire_error(status, code, "boom")).await;
            assert_eq!(outcomes, [expected; 3], "{code} on start, stop, create");
        }
        for (code, expected) in [
            ("GameSessionFullException", "full: no seat"),
            ("InvalidGameSessionStatusException", "ended: no seat"),
            ("TerminalRoutingStrategyException", "ended: no seat"),
        ] {
            let rule = mock!(Client::create_player_session)
                .then_http_response(move || wire_error(400, code, "no seat"));
            assert_eq!(kind(create(&gamelift(&[&rule])).await), expected, "{code}");
        }
    }

    #[tokio::test]
    async fn bare_statuses_map() {
        for (status, expected) in [
            (500, "unknown"),
            (502, "unknown"),
            (503, "unknown"),
            (429, "unavailable"),
            (400, "other"),
            (403, "other"),
        ] {
            let outcomes = outcomes(move || bare_status(status)).await;
            assert_eq!(outcomes, [expected; 3], "{status} on start, stop, create");
        }
    }

    #[test]
    fn an_unknown_outcome_keeps_the_sdk_error_as_source() {
        let err: SdkError<CreatePlayerSessionError, HttpResponse> = SdkError::service_error(
            CreatePlayerSessionError::InternalServiceException(
                InternalServiceException::builder().build(),
            ),
            wire_error(500, "InternalServiceException", "x"),
        );
        match gamelift_error(err) {
            GameLiftError::OutcomeUnknown(source) => {
                let sdk = source
                    .downcast_ref::<SdkError<CreatePlayerSessionError, HttpResponse>>()
                    .expect("the SDK error is the source");
                assert_eq!(sdk.raw_response().map(|r| r.status().as_u16()), Some(500));
            }
            other => panic!("{other:?}"),
        }
    }

    /// What may have reached GameLift (a timeout) is an unknown outcome; a connection
    /// that failed did nothing; a caller's mistake is a fault.
    #[test]
    fn timeouts_are_unknown_outcomes_failed_connections_unavailable_user_errors_faults() {
        type Err = SdkError<StopGameSessionPlacementError, HttpResponse>;
        let timeout: Err = SdkError::timeout_error("operation timed out");
        assert!(matches!(
            gamelift_error(timeout),
            GameLiftError::OutcomeUnknown(_)
        ));
        let io: Err = SdkError::dispatch_failure(ConnectorError::io("connection refused".into()));
        assert!(matches!(gamelift_error(io), GameLiftError::Unavailable(_)));
        let timed_out: Err =
            SdkError::dispatch_failure(ConnectorError::timeout("read timeout".into()));
        assert!(matches!(
            gamelift_error(timed_out),
            GameLiftError::OutcomeUnknown(_)
        ));
        let user: Err = SdkError::dispatch_failure(ConnectorError::user("bad endpoint".into()));
        assert!(matches!(gamelift_error(user), GameLiftError::Other(_)));
        let construction: Err = SdkError::construction_failure("missing field");
        assert!(matches!(
            gamelift_error(construction),
            GameLiftError::Other(_)
        ));
    }

    #[test]
    fn error_codes_reach_the_protocol() {
        use shared::frames::ErrorCode;
        let full = gamelift_error::<CreatePlayerSessionError>(SdkError::service_error(
            CreatePlayerSessionError::GameSessionFullException(
                GameSessionFullException::builder().build(),
            ),
            wire_error(400, "GameSessionFullException", "x"),
        ));
        assert_eq!(full.code(), ErrorCode::SessionFull);
        let ended = gamelift_error::<CreatePlayerSessionError>(SdkError::service_error(
            CreatePlayerSessionError::InvalidGameSessionStatusException(
                InvalidGameSessionStatusException::builder().build(),
            ),
            wire_error(400, "InvalidGameSessionStatusException", "x"),
        ));
        assert_eq!(ended.code(), ErrorCode::SessionEnded);
        let unknown = GameLiftError::OutcomeUnknown("timed out".into());
        assert_eq!(unknown.code(), ErrorCode::Unavailable);
    }

    #[tokio::test]
    async fn out_of_range_max_players_is_refused_before_the_call() {
        let rule = mock!(Client::start_game_session_placement)
            .then_output(|| StartGameSessionPlacementOutput::builder().build());
        let request = PlacementRequest {
            max_players: u32::MAX,
            ..request()
        };
        let result = gamelift(&[&rule]).start_placement(&request).await;
        assert!(kind(result).starts_with("invalid"));
        assert_eq!(rule.num_calls(), 0);
    }
}
