//! The journeys, in order, on two players `a` and `b`: each records one row, and a
//! failure leaves the checks after it not run (they need what it would have set up),
//! except the placement's (nothing after it needs a game).
//!
//! The players are the Rust client (player.rs), as a game would use it. Raw sockets
//! remain only where a check needs what a client must not do or cannot see: `takeover`
//! (the server's close of a replaced socket; the client closes it itself) and `bad
//! frames` (text that is not a valid request).

use std::time::{Duration, Instant};

use gamelift_sockets_client::protocol::domain::PresenceStatus;
use gamelift_sockets_client::protocol::requests::{CursorBody, PlacementRequestBody};
use gamelift_sockets_client::protocol::{ClientRequest, ErrorCode, ErrorReply, Route, ServerFrame};
use gamelift_sockets_client::{ClientError, StopReason};
use serde_json::{Value, json};
use tokio_tungstenite::Connector;

use crate::client::{Carrier, Credential, RawSocket};
use crate::player::{Player, Target};
use crate::report::Report;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlacementMode {
    /// Request one; if the stack cannot start it (`unavailable`: no reachable GameLift
    /// queue), skip the check with the reason.
    Auto,
    /// Request one; a refusal fails the check.
    Require,
    /// Do not request one (a placement starts a real game session on your fleet).
    Skip,
}

/// What the run needs: where, who (with the player ids their credentials name), how long.
pub struct Plan {
    pub url: String,
    pub tls: Option<Connector>,
    pub timeout: Duration,
    pub placement: PlacementMode,
    pub placement_wait: Duration,
    pub a: (Credential, String),
    pub b: (Credential, String),
    /// In every message body, so frames of an earlier run are told apart.
    pub nonce: String,
}

impl Plan {
    fn target(&self) -> Target<'_> {
        Target {
            url: &self.url,
            tls: self.tls.clone(),
            timeout: self.timeout,
        }
    }

    async fn connect(
        &self,
        name: &str,
        who: &(Credential, String),
        carrier: Carrier,
        cursor: Option<u64>,
    ) -> Result<Player, String> {
        Player::connect(name, &self.target(), who, carrier, cursor).await
    }

    /// A raw socket of `who`, `resume`d.
    async fn connect_raw(
        &self,
        name: &str,
        who: &(Credential, String),
        carrier: Carrier,
    ) -> Result<RawSocket, String> {
        let mut socket = RawSocket::connect(
            name,
            &self.url,
            &who.0,
            carrier,
            self.tls.clone(),
            self.timeout,
        )
        .await?;
        let ack = socket
            .request(Route::Resume, json!({}), self.timeout)
            .await?;
        if ack["type"] != "ack" || ack["playerId"] != who.1.as_str() {
            return Err(format!("{name}: resume answered {ack}"));
        }
        Ok(socket)
    }
}

/// Runs every journey, recording a row for each.
pub async fn run(plan: &Plan, report: &mut Report) {
    let timeout = plan.timeout;
    let (a_id, b_id) = (plan.a.1.as_str(), plan.b.1.as_str());

    // a connects (credential in a header) and resumes.
    let step = async {
        let a = plan.connect("a", &plan.a, Carrier::Header, None).await?;
        Ok((
            a,
            format!("a is {a_id} ({})", plan.a.0.describe(Carrier::Header)),
        ))
    };
    let Some(mut a) = report.check("connect and resume", step.await) else {
        return;
    };

    let step = async {
        // The route itself, asking for an answer (the client's timer sends it unanswered).
        let heartbeat = ClientRequest::Heartbeat {
            request_id: None,
            body: CursorBody::default(),
        };
        let ack = a
            .client
            .request(heartbeat)
            .await
            .map_err(|e| e.to_string())?;
        let time = ack
            .get("serverTime")
            .and_then(Value::as_u64)
            .ok_or(format!("no serverTime in {ack:?}"))?;
        Ok(((), format!("acked, serverTime {time}")))
    };
    let Some(()) = report.check("heartbeat", step.await) else {
        return;
    };

    // a watches b, then b comes online (credential in the query string).
    let step = async {
        let ack = a
            .client
            .subscribe_presence(&[b_id])
            .await
            .map_err(|e| format!("subscribePresence: {e}"))?;
        let before = ack
            .presence
            .iter()
            .find(|(player, _)| player.as_str() == b_id)
            .map(|(_, status)| *status)
            .ok_or(format!("no presence of {b_id} in {ack:?}"))?;
        let b = plan.connect("b", &plan.b, Carrier::Query, None).await?;
        let resumed = b.resume_ack.get("resumed") == Some(&Value::Bool(true));
        if before != PresenceStatus::Offline || resumed {
            // A takeover or a resume within the grace period is no presence change.
            let why = if resumed {
                "b resumed a session of an earlier run"
            } else {
                "b was still online from an earlier run"
            };
            return Ok((
                b,
                format!(
                    "subscribe answered {}; {why}, so no change was pushed",
                    before.as_str()
                ),
            ));
        }
        let is_b = |f: &ServerFrame| matches!(f, ServerFrame::Presence { player_id, .. } if player_id == b_id);
        let (_, pushed) = a.wait_for("b's presence change", timeout, is_b).await?;
        if !matches!(&pushed, ServerFrame::Presence { status, .. } if status == "online") {
            return Err(format!("a was pushed {pushed:?}, not b online"));
        }
        Ok((
            b,
            format!(
                "subscribe answered offline; b connecting ({}) pushed online to a",
                plan.b.0.describe(Carrier::Query)
            ),
        ))
    };
    let Some(mut b) = report.check("presence", step.await) else {
        return;
    };

    let step = async {
        let seq = send_and_receive(&a, &mut b, a_id, b_id, &plan.nonce, 1, timeout).await?;
        Ok((seq, format!("a → b, pushed to b (seq {seq})")))
    };
    let Some(cursor) = report.check("message online", step.await) else {
        return;
    };

    // b leaves; a writes; b comes back and resumes from the last push it handled.
    let step = async {
        b.close().await;
        let queued = a
            .client
            .send_message(&[b_id], message(&plan.nonce, 2))
            .await
            .map_err(|e| format!("sendMessage to an offline player: {e}"))?;
        if queued != 1 {
            return Err(format!("sendMessage to an offline player queued {queued}"));
        }
        let mut b = plan
            .connect("b (back)", &plan.b, Carrier::Header, Some(cursor))
            .await?;
        let is_second = |f: &ServerFrame| is_message(f, a_id, &plan.nonce, 2);
        let replayed = b.has_kept(is_second);
        b.wait_for("the message sent while b was away", timeout, is_second)
            .await?;
        let how = if replayed {
            "replayed before the resume ack"
        } else {
            "pushed after the resume ack"
        };
        Ok((b, format!("sent while b was away, {how}")))
    };
    let Some(b) = report.check("message offline", step.await) else {
        return;
    };

    match plan.placement {
        PlacementMode::Skip => {
            report.skip("placement", "not requested (--placement skip)".to_owned())
        }
        mode => match placement(&mut a, mode, plan.placement_wait, timeout).await {
            Ok(Placed::Result(detail)) => report.pass("placement", detail),
            Ok(Placed::Refused(why)) => report.skip("placement", why),
            Err(error) => report.fail("placement", error),
        },
    }
    b.close().await;

    // A raw socket of a replaces the client, then a second raw socket replaces the
    // first: raw, to see the server close the replaced socket (the client closes it).
    let step = async {
        let mut first = plan
            .connect_raw("a (raw socket)", &plan.a, Carrier::Query)
            .await?;
        let reason = match a.stopped(timeout).await {
            Ok(reason) => reason,
            Err(_) => {
                // At the latest, the old socket learns it on its next frame.
                let client = a.client.clone();
                tokio::spawn(async move {
                    let heartbeat = ClientRequest::Heartbeat {
                        request_id: None,
                        body: CursorBody::default(),
                    };
                    let _ = client.request(heartbeat).await;
                });
                a.stopped(timeout).await?
            }
        };
        if reason != StopReason::SessionReplaced {
            return Err(format!(
                "a's client stopped with {reason:?}, not SessionReplaced"
            ));
        }
        let second = plan
            .connect_raw("a (second raw socket)", &plan.a, Carrier::Header)
            .await?;
        let replaced = |f: &Value| f["type"] == "session_replaced";
        if first
            .wait_for("session_replaced", timeout, replaced)
            .await
            .is_err()
        {
            first.send_bare(Route::Heartbeat, None).await?;
            first
                .wait_for("session_replaced after a frame", timeout, replaced)
                .await?;
        }
        first.closed_by_server(timeout).await?;
        Ok((
            second,
            "a's client stopped on session_replaced; a second socket got the first one session_replaced and closed".to_owned(),
        ))
    };
    let Some(mut raw) = report.check("takeover", step.await) else {
        return;
    };

    let step = async {
        raw.send_text("hello").await?;
        let error = raw
            .wait_for("an error for a frame that is not JSON", timeout, |f| {
                f["type"] == "error" && f.get("requestId").is_none()
            })
            .await?;
        expect_code(&error, "bad_request")?;
        raw.send_text(r#"{"route":"dance","requestId":"smoke-dance"}"#)
            .await?;
        let error = raw
            .wait_for("an answer to the unknown route", timeout, |f| {
                f["requestId"] == "smoke-dance"
            })
            .await?;
        expect_code(&error, "unknown_route")?;
        let refused = raw
            .request(
                Route::SessionPlacementRequest,
                json!({"latencies": {"us-east-1": -5}}),
                timeout,
            )
            .await?;
        expect_code(&refused, "bad_request")?;
        let ack = raw.request(Route::Heartbeat, json!({}), timeout).await?;
        if ack["type"] != "ack" {
            return Err(format!("heartbeat after the bad frames answered {ack}"));
        }
        Ok(((), "not JSON, unknown route, latency -5: each answered with its error; the socket stayed open".to_owned()))
    };
    let _ = report.check("bad frames", step.await);
    raw.close().await;
}

fn expect_code(frame: &Value, code: &str) -> Result<(), String> {
    if frame["type"] == "error" && frame["code"] == code {
        Ok(())
    } else {
        Err(format!("expected an error {code}, got {frame}"))
    }
}

fn message(nonce: &str, n: u64) -> Value {
    json!({"smoke": nonce, "n": n})
}

/// Message `n` of this run, from `from`.
fn is_message(frame: &ServerFrame, from_id: &str, nonce: &str, n: u64) -> bool {
    matches!(frame, ServerFrame::Message { from, message, .. }
        if from == from_id && message["smoke"] == nonce && message["n"] == n)
}

/// `from` sends message `n` to `to`, which must be pushed it; returns its `seq`.
async fn send_and_receive(
    from: &Player,
    to: &mut Player,
    from_id: &str,
    to_id: &str,
    nonce: &str,
    n: u64,
    timeout: Duration,
) -> Result<u64, String> {
    let queued = from
        .client
        .send_message(&[to_id], message(nonce, n))
        .await
        .map_err(|e| format!("sendMessage: {e}"))?;
    if queued != 1 {
        return Err(format!("sendMessage queued {queued}"));
    }
    let (seq, message) = to
        .wait_for("the message", timeout, |f| is_message(f, from_id, nonce, n))
        .await?;
    seq.ok_or(format!("a message frame without seq: {message:?}"))
}

/// How the placement check ended when it did not fail.
enum Placed {
    /// A result was pushed (detail).
    Result(String),
    /// The stack could not start one (why), in `auto` mode.
    Refused(String),
}

/// Requests a placement and waits for its pushed result; with none within `wait`, cancels
/// it, whose `CANCELLED` result travels the same path (queue, topic, on-placement-event,
/// Messages stream, socket).
async fn placement(
    a: &mut Player,
    mode: PlacementMode,
    wait: Duration,
    timeout: Duration,
) -> Result<Placed, String> {
    let started = Instant::now();
    let answer = a
        .client
        .request_placement(PlacementRequestBody::default())
        .await;
    let placement_id = match answer {
        Ok(ack) => Some(Value::from(ack.placement_id.as_str())),
        // One still pending from an earlier run: its result will do.
        Err(ClientError::Server { reply, .. }) if matches!(&*reply, ErrorReply::Conflict(c) if c.detail.placement_id.is_some()) => {
            match *reply {
                ErrorReply::Conflict(conflict) => conflict
                    .detail
                    .placement_id
                    .map(|id| Value::from(id.as_str())),
                _ => None,
            }
        }
        Err(ClientError::Server { reply, .. })
            if reply.code() == ErrorCode::Unavailable && mode == PlacementMode::Auto =>
        {
            return Ok(Placed::Refused(format!(
                "the stack could not start a placement ({}): no reachable GameLift queue? (--placement require makes this a failure)",
                reply.message()
            )));
        }
        Err(error) => return Err(format!("sessionPlacementRequest: {error}")),
    };
    let placement_id = placement_id
        .and_then(|id| id.as_str().map(str::to_owned))
        .ok_or("sessionPlacementRequest acked without a placementId")?;
    let is_result = |f: &ServerFrame| matches!(f, ServerFrame::Placement { placement_id: id, .. } if id.as_str() == placement_id);
    if let Ok((_, result)) = a.wait_for("the placement's result", wait, is_result).await {
        return Ok(Placed::Result(describe_result(&result, started)));
    }
    match a.client.cancel_placement(Some(&placement_id)).await {
        // conflict / not_found: it ended meanwhile, and its result is on the way.
        Ok(_) => {}
        Err(ClientError::Server { reply, .. })
            if matches!(reply.code(), ErrorCode::Conflict | ErrorCode::NotFound) => {}
        Err(error) => {
            return Err(format!(
                "no result within {wait:?}, and cancelPlacement: {error}"
            ));
        }
    }
    let (_, result) = a
        .wait_for(
            "the placement's result after cancelling it",
            timeout,
            is_result,
        )
        .await?;
    Ok(Placed::Result(format!(
        "no result within {wait:?}, so cancelled: {}",
        describe_result(&result, started)
    )))
}

fn describe_result(result: &ServerFrame, started: Instant) -> String {
    let ServerFrame::Placement {
        status,
        game_session,
        ..
    } = result
    else {
        return format!("{result:?}");
    };
    let status = serde_json::to_value(status)
        .ok()
        .and_then(|s| s.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{status:?}"));
    let place = game_session
        .as_ref()
        .map(|game| format!(", game at {}:{}", game.ip_address, game.port))
        .unwrap_or_default();
    format!(
        "{status} pushed {:.1} s after the request{place}",
        started.elapsed().as_secs_f64()
    )
}
