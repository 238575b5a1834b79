//! `smoke --check-assumptions`: what this stack relies on of API Gateway where AWS's pages
//! say nothing (or where the local stack is only our reading of them), checked on the
//! stack at `--url` (docs/deploy.md#what-this-stack-assumes-of-aws). One socket of player
//! `a` resumes and then stays silent while the checks post to it and ask the `@connections`
//! API about it, with the operator's own AWS credentials (the local stack needs none).
//!
//! Each assumption is CONFIRMED or CONTRADICTED, with what to set either way; one that
//! could not be checked (a step failed) is UNKNOWN, with why. Exit status: 0 when every
//! one is confirmed, 3 when one is contradicted or unknown.

use std::time::Duration;

use aws_adapters::apigateway::ApiGatewayManagementGateway;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_dynamodb::config::{Credentials, SharedCredentialsProvider};
use gamelift_sockets_client::protocol::Route;
use serde_json::json;
use shared::domain::ConnectionId;
use shared::ports::{ConnectionGateway, ConnectionProbe, GatewayError};

use crate::client::{Carrier, RawSocket};
use crate::journeys::Plan;

/// Longer than a second: `lastActiveAt` may come back with whole seconds only, so two
/// readings this far apart tell "moved" from "stayed".
const SETTLE: Duration = Duration::from_millis(2_100);

/// What is assumed, and what an operator sets either way.
pub struct Assumption {
    pub id: &'static str,
    pub claim: &'static str,
    pub if_confirmed: &'static str,
    pub if_contradicted: &'static str,
}

/// Every assumption, in the order they are checked (the table in docs/deploy.md).
pub const ASSUMPTIONS: [Assumption; 6] = [
    Assumption {
        id: "sent-frames-are-not-activity",
        claim: "lastActiveAt stays put while API Gateway sends frames to the client",
        if_confirmed: "pushes cannot keep a dead socket online",
        if_contradicted: "keep PRESENCE_LIVENESS=heartbeat: with connection-activity a dead socket that receives pushes would stay online",
    },
    Assumption {
        id: "ping-is-activity",
        claim: "lastActiveAt moves when the client sends a ping",
        if_confirmed: "pings keep a player online under PRESENCE_LIVENESS=connection-activity",
        if_contradicted: "keep PRESENCE_LIVENESS=heartbeat: with connection-activity players whose clients ping would be swept",
    },
    Assumption {
        id: "heartbeat-acked",
        claim: "a heartbeat with a requestId is acked with it and the server time",
        if_confirmed: "the heartbeat integration's responses are selected on DynamoDB's status",
        if_contradicted: "the heartbeat route's integration responses do not work here: redeploy the template unchanged, then compare its HeartbeatIntegration",
    },
    Assumption {
        id: "heartbeat-silent",
        claim: "a heartbeat without a requestId gets no frame back (an empty rendering sends nothing)",
        if_confirmed: "cost --acked-heartbeats 0 prices the heartbeats",
        if_contradicted: "every heartbeat costs an outbound message: price them with cost --acked-heartbeats 1",
    },
    Assumption {
        id: "replaced-socket-told",
        claim: "a socket replaced by a newer one of the same player is told session_replaced, never acked",
        if_confirmed: "clients stop for good on another device's connect",
        if_contradicted: "a replaced socket is still served: check the connect function's logs and the heartbeat's integration responses",
    },
    Assumption {
        id: "closed-socket-gone",
        claim: "GetConnection of a closed socket answers 410 Gone",
        if_confirmed: "the sweeper takes a player whose socket closed without $disconnect offline",
        if_contradicted: "the sweeper counts a closed socket as a failure: its players stay online until the alarm is looked at",
    },
];

/// The outcome of one assumption.
enum Verdict {
    Confirmed(String),
    Contradicted(String),
    Unknown(String),
}

/// Checks every assumption on `plan`'s stack, printing a line each as it is known and a
/// closing line of what to set; true when every one is confirmed.
pub async fn check(plan: &Plan) -> bool {
    let mut verdicts = Vec::new();
    let record = |verdicts: &mut Vec<Verdict>, verdict: Verdict| {
        let assumption = &ASSUMPTIONS[verdicts.len()];
        let (label, evidence, meaning) = match &verdict {
            Verdict::Confirmed(e) => ("CONFIRMED", e, assumption.if_confirmed),
            Verdict::Contradicted(e) => ("CONTRADICTED", e, assumption.if_contradicted),
            Verdict::Unknown(e) => ("UNKNOWN", e, "not checked: run it again"),
        };
        println!("{label:<13} {}: {}", assumption.id, assumption.claim);
        println!("{:<13} seen: {evidence}", "");
        println!("{:<13} so: {meaning}", "");
        verdicts.push(verdict);
    };
    match Probe::open(plan).await {
        Ok(mut probe) => {
            for step in 0..ASSUMPTIONS.len() {
                let verdict = probe.step(step).await;
                record(&mut verdicts, verdict);
            }
            probe.close().await;
        }
        Err(why) => {
            for _ in ASSUMPTIONS {
                record(&mut verdicts, Verdict::Unknown(why.clone()));
            }
        }
    }
    let confirmed = |id: &str| {
        ASSUMPTIONS
            .iter()
            .zip(&verdicts)
            .any(|(a, v)| a.id == id && matches!(v, Verdict::Confirmed(_)))
    };
    let liveness = if confirmed("sent-frames-are-not-activity") && confirmed("ping-is-activity") {
        "PRESENCE_LIVENESS=connection-activity is safe here (heartbeat, the default, is too)"
    } else {
        "keep PRESENCE_LIVENESS=heartbeat (the default)"
    };
    let acked = if confirmed("heartbeat-silent") {
        "cost --acked-heartbeats 0"
    } else {
        "cost --acked-heartbeats 1"
    };
    println!("\nset: {liveness}; {acked}");
    verdicts.iter().all(|v| matches!(v, Verdict::Confirmed(_)))
}

/// Player `a`'s silent socket, the `@connections` API, and what was read so far.
struct Probe<'a> {
    plan: &'a Plan,
    socket: Option<RawSocket>,
    connection: ConnectionId,
    endpoint: String,
    gateway: ApiGatewayManagementGateway,
    /// `lastActiveAt` (ms) before the posts, after them, after the ping.
    readings: Vec<i64>,
}

impl<'a> Probe<'a> {
    async fn open(plan: &'a Plan) -> Result<Probe<'a>, String> {
        let endpoint = management_endpoint(&plan.url)?;
        let mut socket = RawSocket::connect(
            "a",
            &plan.url,
            &plan.a.0,
            Carrier::Header,
            plan.tls.clone(),
            plan.timeout,
        )
        .await?;
        let ack = socket
            .request(Route::Resume, json!({}), plan.timeout)
            .await?;
        let connection = ack["connectionId"].as_str().ok_or_else(|| {
            format!("resume's ack names no connectionId (a stack older than this tool?): {ack}")
        })?;
        let connection = ConnectionId::parse(connection)
            .map_err(|e| format!("resume's connectionId {connection:?}: {e}"))?;
        Ok(Self {
            plan,
            socket: Some(socket),
            connection,
            gateway: ApiGatewayManagementGateway::new(sdk_config(&plan.url).await),
            endpoint,
            readings: Vec::new(),
        })
    }

    fn socket(&mut self) -> Result<&mut RawSocket, String> {
        self.socket
            .as_mut()
            .ok_or_else(|| "a's socket is closed".to_owned())
    }

    async fn step(&mut self, step: usize) -> Verdict {
        let result = match step {
            0 => self.sent_frames().await,
            1 => self.ping().await,
            2 => self.acked_heartbeat().await,
            3 => self.silent_heartbeat().await,
            4 => self.replaced().await,
            _ => self.gone().await,
        };
        result.unwrap_or_else(Verdict::Unknown)
    }

    /// GetConnection's `lastActiveAt`, in ms.
    async fn last_active(&self) -> Result<i64, String> {
        let info = self
            .gateway
            .get(&self.endpoint, &self.connection)
            .await
            .map_err(|e| {
                format!(
                    "GetConnection failed: {}",
                    shared::telemetry::ErrorChain(&e)
                )
            })?;
        info.last_active_at_millis
            .ok_or_else(|| "GetConnection returned no lastActiveAt".to_owned())
    }

    async fn sent_frames(&mut self) -> Result<Verdict, String> {
        tokio::time::sleep(SETTLE).await;
        let before = self.last_active().await?;
        for n in 0..3 {
            let frame = json!({"type": "smoke_probe", "n": n}).to_string();
            self.gateway
                .post(&self.endpoint, &self.connection, frame.as_bytes())
                .await
                .map_err(|e| format!("PostToConnection failed: {e}"))?;
            tokio::time::sleep(SETTLE / 3).await;
        }
        let timeout = self.plan.timeout;
        for n in 0..3 {
            self.socket()?
                .wait_for("a posted frame", timeout, |f| {
                    f["type"] == "smoke_probe" && f["n"] == n
                })
                .await?;
        }
        tokio::time::sleep(SETTLE / 2).await;
        let after = self.last_active().await?;
        self.readings = vec![before, after];
        let evidence = format!(
            "{} before 3 posts over {:.1} s, {} after",
            iso(before),
            SETTLE.as_secs_f64(),
            iso(after)
        );
        Ok(if after > before {
            Verdict::Contradicted(evidence)
        } else {
            Verdict::Confirmed(evidence)
        })
    }

    async fn ping(&mut self) -> Result<Verdict, String> {
        let before = *self
            .readings
            .last()
            .ok_or("the reading before the ping is missing: the previous check failed")?;
        tokio::time::sleep(SETTLE / 2).await;
        self.socket()?.send_bare(Route::Ping, None).await?;
        tokio::time::sleep(SETTLE).await;
        let after = self.last_active().await?;
        let evidence = format!("{} before a ping, {} after", iso(before), iso(after));
        Ok(if after > before {
            Verdict::Confirmed(evidence)
        } else {
            Verdict::Contradicted(evidence)
        })
    }

    async fn acked_heartbeat(&mut self) -> Result<Verdict, String> {
        let timeout = self.plan.timeout;
        let answer = self
            .socket()?
            .request(Route::Heartbeat, json!({}), timeout)
            .await?;
        Ok(
            if answer["type"] == "ack" && answer["serverTime"].is_i64() {
                Verdict::Confirmed(format!("answered {answer}"))
            } else {
                Verdict::Contradicted(format!("answered {answer}"))
            },
        )
    }

    async fn silent_heartbeat(&mut self) -> Result<Verdict, String> {
        let socket = self.socket()?;
        socket.send_bare(Route::Heartbeat, None).await?;
        Ok(match socket.next_text_within(SETTLE).await? {
            None => Verdict::Confirmed(format!("nothing came back within {SETTLE:?}")),
            Some(text) => Verdict::Contradicted(format!("a frame came back: {text:?}")),
        })
    }

    /// A second socket of `a` takes over; the first sends a heartbeat at once, which must
    /// not be acked, and must be told `session_replaced` and closed.
    async fn replaced(&mut self) -> Result<Verdict, String> {
        let plan = self.plan;
        let mut second = RawSocket::connect(
            "a (second socket)",
            &plan.url,
            &plan.a.0,
            Carrier::Query,
            plan.tls.clone(),
            plan.timeout,
        )
        .await?;
        let mut first = self.socket.take().ok_or("a's socket is closed")?;
        let _ = first
            .send_bare(Route::Heartbeat, Some("smoke-replaced"))
            .await;
        let mut told = false;
        let mut acked = None;
        while let Ok(frame) = first
            .wait_for("session_replaced", plan.timeout, |_| true)
            .await
        {
            told |= frame["type"] == "session_replaced";
            if frame["type"] == "ack" {
                acked = Some(frame);
            }
        }
        let resumed = second.request(Route::Resume, json!({}), plan.timeout).await;
        second.close().await;
        if let Some(ack) = acked {
            return Ok(Verdict::Contradicted(format!(
                "the replaced socket's heartbeat was acked: {ack}"
            )));
        }
        if let Err(why) = resumed {
            return Err(format!("the second socket did not resume: {why}"));
        }
        Ok(if told {
            Verdict::Confirmed("told session_replaced, then closed; its heartbeat not acked".into())
        } else {
            Verdict::Contradicted("closed without session_replaced".into())
        })
    }

    async fn gone(&mut self) -> Result<Verdict, String> {
        Ok(
            match self.gateway.get(&self.endpoint, &self.connection).await {
                Err(GatewayError::Gone) => {
                    Verdict::Confirmed("the replaced socket's GetConnection: 410".into())
                }
                Ok(info) => Verdict::Contradicted(format!(
                    "the replaced socket's GetConnection answered {info:?}"
                )),
                Err(other) => Verdict::Contradicted(format!(
                    "the replaced socket's GetConnection failed otherwise: {other}"
                )),
            },
        )
    }

    async fn close(self) {
        if let Some(socket) = self.socket {
            socket.close().await;
        }
    }
}

/// The `@connections` API of a stage URL: `wss://host/stage` → `https://host/stage`
/// (`ws://` → `http://` for the local stack).
pub fn management_endpoint(url: &str) -> Result<String, String> {
    let (scheme, rest) = if let Some(rest) = url.strip_prefix("wss://") {
        ("https", rest)
    } else if let Some(rest) = url.strip_prefix("ws://") {
        ("http", rest)
    } else {
        return Err(format!("{url:?} is not a WebSocket URL"));
    };
    let rest = rest.split('?').next().unwrap_or_default();
    if !rest.contains('/') {
        return Err(format!("{url:?} has no stage: it must end with /<Stage>"));
    }
    Ok(format!("{scheme}://{rest}"))
}

/// The region of an API Gateway host (`abc.execute-api.eu-west-1.amazonaws.com`).
fn region_of(url: &str) -> Option<String> {
    let host = url.split("://").nth(1)?.split(['/', ':']).next()?;
    let mut labels = host.split('.');
    labels.find(|l| *l == "execute-api")?;
    labels.next().map(str::to_owned)
}

/// The operator's AWS configuration (profile, SSO, environment: the SDK's default chain)
/// for a deployed stack; static stand-in credentials for the local stack (`ws://`), which
/// checks none.
async fn sdk_config(url: &str) -> SdkConfig {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Some(region) = region_of(url) {
        loader = loader.region(Region::new(region));
    }
    if url.starts_with("ws://") {
        loader = loader
            .region(Region::new("us-east-1"))
            .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
                "local", "local", None, None, "smoke",
            )));
    }
    loader.load().await
}

fn iso(millis: i64) -> String {
    local::time::iso8601(millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_stage_urls_then_the_management_endpoint_and_region_are_derived() {
        assert_eq!(
            management_endpoint("wss://abc.execute-api.eu-west-1.amazonaws.com/Development")
                .unwrap(),
            "https://abc.execute-api.eu-west-1.amazonaws.com/Development"
        );
        assert_eq!(
            management_endpoint("ws://127.0.0.1:3001/Development?playerId=x").unwrap(),
            "http://127.0.0.1:3001/Development"
        );
        assert!(management_endpoint("ws://127.0.0.1:3001").is_err());
        assert_eq!(
            region_of("wss://abc.execute-api.eu-west-1.amazonaws.com/Development").as_deref(),
            Some("eu-west-1")
        );
        assert_eq!(region_of("ws://127.0.0.1:3001/Development"), None);
    }

    #[test]
    fn every_assumption_has_a_distinct_id() {
        let ids: std::collections::BTreeSet<_> = ASSUMPTIONS.iter().map(|a| a.id).collect();
        assert_eq!(ids.len(), ASSUMPTIONS.len());
    }
}
