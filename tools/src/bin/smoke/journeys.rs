//! The journeys, in order, on two players `a` and `b`: each records one row, and a
//! failure leaves the checks after it not run (they need what it would have set up).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_tungstenite::Connector;

use crate::client::{Carrier, Credential, Player};
use crate::report::Report;

/// Every check, in the order they run.
pub const CHECKS: [&str; 8] = [
    "connect and resume",
    "heartbeat",
    "bad frames",
    "presence",
    "message online",
    "message offline",
    "takeover",
    "placement",
];

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
    async fn connect(
        &self,
        name: &str,
        who: &(Credential, String),
        carrier: Carrier,
    ) -> Result<Player, String> {
        Player::connect(
            name,
            &self.url,
            &who.0,
            carrier,
            self.tls.clone(),
            self.timeout,
        )
        .await
    }
}

/// `resume`, checking that the stack took the credential for the expected player.
async fn resume(
    player: &mut Player,
    expected: &str,
    cursor: Option<&Value>,
    timeout: Duration,
) -> Result<Value, String> {
    let body = cursor.map_or_else(|| json!({}), |cursor| json!({ "cursor": cursor }));
    let ack = player.request("resume", body, timeout).await?;
    if ack["type"] != "ack" {
        return Err(format!("{}: resume answered {ack}", player.name));
    }
    if ack["playerId"] != expected {
        return Err(format!(
            "{}: the stack says this is player {}, not {expected}",
            player.name, ack["playerId"]
        ));
    }
    Ok(ack)
}

fn expect_ack(frame: &Value, route: &str) -> Result<(), String> {
    if frame["type"] == "ack" {
        Ok(())
    } else {
        Err(format!("{route} answered {frame}"))
    }
}

/// Runs every journey, recording a row for each.
pub async fn run(plan: &Plan, report: &mut Report) {
    let timeout = plan.timeout;
    let (a_id, b_id) = (plan.a.1.as_str(), plan.b.1.as_str());

    // a connects (credential in a header) and resumes.
    let step = async {
        let mut a = plan.connect("a", &plan.a, Carrier::Header).await?;
        resume(&mut a, a_id, None, timeout).await?;
        Ok((
            a,
            format!("a is {a_id} ({})", plan.a.0.describe(Carrier::Header)),
        ))
    };
    let Some(mut a) = report.check("connect and resume", step.await) else {
        return;
    };

    let step = async {
        let ack = a.request("heartbeat", json!({}), timeout).await?;
        expect_ack(&ack, "heartbeat")?;
        let time = ack["serverTime"]
            .as_u64()
            .ok_or(format!("no serverTime in {ack}"))?;
        Ok(((), format!("acked, serverTime {time}")))
    };
    let Some(()) = report.check("heartbeat", step.await) else {
        return;
    };

    let step = async {
        a.send_text("hello").await?;
        let error = a
            .wait_for("an error for a frame that is not JSON", timeout, |f| {
                f["type"] == "error" && f.get("requestId").is_none()
            })
            .await?;
        expect_code(&error, "bad_request")?;
        a.send_text(r#"{"route":"dance","requestId":"smoke-dance"}"#)
            .await?;
        let error = a
            .wait_for("an answer to the unknown route", timeout, |f| {
                f["requestId"] == "smoke-dance"
            })
            .await?;
        expect_code(&error, "unknown_route")?;
        let refused = a
            .request(
                "sessionPlacementRequest",
                json!({"latencies": {"us-east-1": -5}}),
                timeout,
            )
            .await?;
        expect_code(&refused, "bad_request")?;
        let ack = a.request("heartbeat", json!({}), timeout).await?;
        expect_ack(&ack, "heartbeat after the bad frames")?;
        Ok(((), "not JSON, unknown route, latency -5: each answered with its error; the socket stayed open".to_owned()))
    };
    let Some(()) = report.check("bad frames", step.await) else {
        return;
    };

    // a watches b, then b comes online (credential in the query string).
    let step = async {
        let ack = a
            .request("subscribePresence", json!({"playerIds": [b_id]}), timeout)
            .await?;
        expect_ack(&ack, "subscribePresence")?;
        let before = ack["presence"][b_id]
            .as_str()
            .ok_or(format!("no presence of {b_id} in {ack}"))?
            .to_owned();
        let mut b = plan.connect("b", &plan.b, Carrier::Query).await?;
        let resumed = resume(&mut b, b_id, None, timeout).await?["resumed"] == true;
        if before != "offline" || resumed {
            // A takeover or a resume within the grace period is no presence change.
            let why = if resumed {
                "b resumed a session of an earlier run"
            } else {
                "b was still online from an earlier run"
            };
            return Ok((
                b,
                format!("subscribe answered {before}; {why}, so no change was pushed"),
            ));
        }
        let pushed = a
            .wait_for("b's presence change", timeout, |f| {
                f["type"] == "presence" && f["playerId"] == b_id
            })
            .await?;
        if pushed["status"] != "online" {
            return Err(format!("a was pushed {pushed}, not b online"));
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
        let seq = send_and_receive(&mut a, &mut b, a_id, b_id, &plan.nonce, 1, timeout).await?;
        Ok((seq.clone(), format!("a → b, pushed to b (seq {seq})")))
    };
    let Some(cursor) = report.check("message online", step.await) else {
        return;
    };

    // b leaves; a writes; b comes back and resumes from the last frame it processed.
    let step = async {
        b.close().await;
        let ack = a
            .request("sendMessage", message_body(b_id, &plan.nonce, 2), timeout)
            .await?;
        if ack["queued"] != 1 {
            return Err(format!("sendMessage to an offline player answered {ack}"));
        }
        let mut b = plan.connect("b (back)", &plan.b, Carrier::Header).await?;
        resume(&mut b, b_id, Some(&cursor), timeout).await?;
        let is_second = |f: &Value| is_message(f, a_id, &plan.nonce, 2);
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

    // a connects again: the first socket is replaced.
    let step = async {
        let mut second = plan
            .connect("a (second socket)", &plan.a, Carrier::Query)
            .await?;
        resume(&mut second, a_id, None, timeout).await?;
        let replaced = |f: &Value| f["type"] == "session_replaced";
        if a.wait_for("session_replaced", timeout, replaced)
            .await
            .is_err()
        {
            // At the latest, the old socket learns it on its next frame.
            a.send_text(r#"{"route":"heartbeat"}"#).await?;
            a.wait_for("session_replaced after a frame", timeout, replaced)
                .await?;
        }
        a.closed_by_server(timeout).await?;
        Ok((
            second,
            "the first socket got session_replaced and was closed".to_owned(),
        ))
    };
    let Some(mut a) = report.check("takeover", step.await) else {
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
    a.close().await;
    b.close().await;
}

fn expect_code(frame: &Value, code: &str) -> Result<(), String> {
    if frame["type"] == "error" && frame["code"] == code {
        Ok(())
    } else {
        Err(format!("expected an error {code}, got {frame}"))
    }
}

fn message_body(to: &str, nonce: &str, n: u64) -> Value {
    json!({"playerIds": [to], "message": {"smoke": nonce, "n": n}})
}

/// Message `n` of this run, from `from`.
fn is_message(frame: &Value, from: &str, nonce: &str, n: u64) -> bool {
    frame["type"] == "message"
        && frame["from"] == from
        && frame["message"]["smoke"] == nonce
        && frame["message"]["n"] == n
}

/// `from` sends message `n` to `to`, which must be pushed it; returns its `seq`.
async fn send_and_receive(
    from: &mut Player,
    to: &mut Player,
    from_id: &str,
    to_id: &str,
    nonce: &str,
    n: u64,
    timeout: Duration,
) -> Result<Value, String> {
    let ack = from
        .request("sendMessage", message_body(to_id, nonce, n), timeout)
        .await?;
    if ack["queued"] != 1 {
        return Err(format!("sendMessage answered {ack}"));
    }
    let message = to
        .wait_for("the message", timeout, |f| is_message(f, from_id, nonce, n))
        .await?;
    message
        .get("seq")
        .filter(|seq| seq.is_number())
        .cloned()
        .ok_or(format!("a message frame without seq: {message}"))
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
        .request("sessionPlacementRequest", json!({}), timeout)
        .await?;
    let placement_id = match (answer["type"].as_str(), answer["code"].as_str()) {
        (Some("ack"), _) => answer["placementId"].clone(),
        // One still pending from an earlier run: its result will do.
        (Some("error"), Some("conflict")) if answer["placementId"].is_string() => {
            answer["placementId"].clone()
        }
        (Some("error"), Some("unavailable")) if mode == PlacementMode::Auto => {
            return Ok(Placed::Refused(format!(
                "the stack could not start a placement ({}): no reachable GameLift queue? (--placement require makes this a failure)",
                answer["message"].as_str().unwrap_or("unavailable")
            )));
        }
        _ => return Err(format!("sessionPlacementRequest answered {answer}")),
    };
    let is_result = |f: &Value| f["type"] == "placement" && f["placementId"] == placement_id;
    if let Ok(result) = a.wait_for("the placement's result", wait, is_result).await {
        return Ok(Placed::Result(describe_result(&result, started)));
    }
    let cancel = a
        .request(
            "cancelPlacement",
            json!({"placementId": placement_id}),
            timeout,
        )
        .await?;
    // conflict / not_found: it ended meanwhile, and its result is on the way.
    if cancel["type"] != "ack" && cancel["code"] != "conflict" && cancel["code"] != "not_found" {
        return Err(format!(
            "no result within {wait:?}, and cancelPlacement answered {cancel}"
        ));
    }
    let result = a
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

fn describe_result(result: &Value, started: Instant) -> String {
    let status = result["status"].as_str().unwrap_or("?");
    let game = &result["gameSession"];
    let place = if game.is_object() {
        format!(
            ", game at {}:{}",
            game["ipAddress"].as_str().unwrap_or("?"),
            game["port"]
        )
    } else {
        String::new()
    };
    format!(
        "{status} pushed {:.1} s after the request{place}",
        started.elapsed().as_secs_f64()
    )
}
