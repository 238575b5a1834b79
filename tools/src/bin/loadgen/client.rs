//! One client: its reader (acks, deliveries and their latencies) and its writer (the
//! messages at the run's rate, heartbeats while holding, the close).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use shared::requests::Route;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tools::frames::client_frame;

use crate::connect::{Socket, connect_and_resume};
use crate::frame::{Frame, Probe};
use crate::state::{ClientResult, Phase, Shared};

/// One client: connect, resume, then read and (in the send phase) write until Stop.
pub async fn client(
    i: usize,
    shared: Arc<Shared>,
    mut phase: watch::Receiver<Phase>,
) -> ClientResult {
    let socket = {
        let Ok(_permit) = shared.connect_gate.acquire().await else {
            return ClientResult::default();
        };
        if shared.args.connect_rate > 0.0 {
            let slot = shared.next_connect_slot.fetch_add(1, Ordering::Relaxed);
            let at = shared.epoch + Duration::from_secs_f64(slot as f64 / shared.args.connect_rate);
            tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
        }
        match connect_and_resume(i, &shared).await {
            Ok(socket) => socket,
            Err(error) => {
                shared.counters.failed.fetch_add(1, Ordering::Relaxed);
                shared.note_error(format!("client {i}: {error}"));
                return ClientResult::default();
            }
        }
    };
    if let Some(ready) = shared.ready.get(i) {
        ready.store(true, Ordering::Relaxed);
    }
    shared.counters.connected.fetch_add(1, Ordering::Relaxed);

    let (mut sink, mut stream) = socket.split();
    let outstanding = Arc::new(AtomicU64::new(0));
    let me = shared.player(i);
    let mut result = ClientResult::default();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();

    // Reader: runs until Stop or the connection ends.
    let reader = {
        let shared = shared.clone();
        let outstanding = outstanding.clone();
        let mut phase = phase.clone();
        async move {
            let mut closed = false;
            // Made once, not per frame: a new wait on the phase for every frame read
            // registered and dropped a waiter each time (the tool's own CPU is the
            // stack's, on one machine).
            let stop = until_stop(phase.clone());
            tokio::pin!(stop);
            loop {
                tokio::select! {
                    frame = stream.next() => match frame {
                        Some(Ok(Message::Text(text))) => {
                            on_frame(&shared, &text, &outstanding, &mut result, &mut seen);
                        }
                        Some(Ok(Message::Close(_))) | None => { closed = true; break; }
                        Some(Ok(_)) => {}
                        Some(Err(error)) => {
                            shared.note_error(format!("client {i} read: {error}"));
                            closed = true;
                            break;
                        }
                    },
                    () = &mut stop => break,
                }
            }
            if closed && *phase.borrow_and_update() != Phase::Stop {
                shared.counters.dropped.fetch_add(1, Ordering::Relaxed);
                if let Some(ready) = shared.ready.get(i) {
                    ready.store(false, Ordering::Relaxed);
                }
                // Requests this connection will never see answered.
                let lost = outstanding.swap(0, Ordering::Relaxed);
                shared.in_flight.add_permits(lost as usize);
            }
            result
        }
    };

    // Writer: the messages, heartbeats while holding, then the close.
    let writer = async {
        let beat = Utf8Bytes::from(client_frame(Route::Heartbeat, None, None).to_string());
        let mut heartbeat = (shared.args.heartbeat_seconds > 0).then(|| {
            let period = Duration::from_secs(shared.args.heartbeat_seconds);
            tokio::time::interval_at(tokio::time::Instant::now() + period, period)
        });
        loop {
            let current = *phase.borrow_and_update();
            match current {
                Phase::Stop => break,
                Phase::Send => {
                    send_messages(i, &me, &shared, &mut sink, &outstanding, &mut phase).await;
                    shared.counters.writers_done.fetch_add(1, Ordering::Relaxed);
                    // Hold the connection (and keep heartbeating) until Stop.
                    loop {
                        tokio::select! {
                            changed = phase.changed() => {
                                if changed.is_err() || *phase.borrow() == Phase::Stop { break; }
                            }
                            () = tick(&mut heartbeat) => {
                                let _ = sink.send(Message::Text(beat.clone())).await;
                            }
                        }
                    }
                    break;
                }
                Phase::Connect => {
                    tokio::select! {
                        changed = phase.changed() => if changed.is_err() { break; },
                        () = tick(&mut heartbeat) => {
                            let _ = sink.send(Message::Text(beat.clone())).await;
                        }
                    }
                }
            }
        }
        let normal = Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: Utf8Bytes::from_static("loadgen done"),
        }));
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            let _ = sink.send(normal).await;
            let _ = sink.close().await;
        })
        .await;
    };

    let (result, ()) = tokio::join!(reader, writer);
    result
}

/// Resolves once the run's phase is Stop (or its sender is gone).
async fn until_stop(mut phase: watch::Receiver<Phase>) {
    while *phase.borrow_and_update() != Phase::Stop {
        if phase.changed().await.is_err() {
            return;
        }
    }
}

async fn tick(interval: &mut Option<tokio::time::Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

async fn send_messages(
    i: usize,
    me: &str,
    shared: &Shared,
    sink: &mut futures_util::stream::SplitSink<Socket, Message>,
    outstanding: &AtomicU64,
    phase: &mut watch::Receiver<Phase>,
) {
    let args = &shared.args;
    let Some(connected) = shared.connected.get() else {
        return;
    };
    let others = connected.len().saturating_sub(1);
    if others == 0 {
        return;
    }
    let k = args.recipients.min(others);
    let mut rng = fastrand::Rng::with_seed(i as u64 ^ 0x9e37_79b9_7f4a_7c15);
    let pad = "x".repeat(args.pad_bytes);
    let c = &shared.counters;
    // Made once: the send phase ends only with Stop.
    let changed = phase.changed();
    tokio::pin!(changed);
    for seq in 0..args.messages {
        if args.rate > 0.0 {
            let slot = shared.next_slot.fetch_add(1, Ordering::Relaxed);
            let at = Duration::from_secs_f64(slot as f64 / args.rate);
            let start = *shared.send_epoch.get_or_init(Instant::now);
            let at = tokio::time::Instant::from_std(start + at);
            tokio::select! {
                () = tokio::time::sleep_until(at) => {}
                _ = &mut changed => return,
            }
        }
        let permit = tokio::select! {
            permit = shared.in_flight.acquire() => permit,
            _ = &mut changed => return,
        };
        let Ok(permit) = permit else { return };
        permit.forget();
        // Recipients: k distinct connected clients other than this one.
        let mut recipients: Vec<u32> = Vec::with_capacity(k);
        while recipients.len() < k {
            let pick = connected[rng.usize(..connected.len())];
            if pick as usize != i && !recipients.contains(&pick) {
                recipients.push(pick);
            }
        }
        let ids = recipients
            .iter()
            .map(|r| format!("\"{}\"", shared.player(*r as usize)))
            .collect::<Vec<_>>()
            .join(",");
        let t = shared.now_nanos();
        let pad_field = if pad.is_empty() {
            String::new()
        } else {
            format!(",\"pad\":\"{pad}\"")
        };
        let route = Route::SendMessage;
        let frame = format!(
            "{{\"route\":\"{route}\",\"requestId\":\"{t}\",\"body\":{{\"playerIds\":[{ids}],\"message\":{{\"seq\":{seq},\"t\":{t},\"from\":{i}{pad_field}}}}}}}"
        );
        outstanding.fetch_add(1, Ordering::Relaxed);
        if let Err(error) = sink.send(Message::Text(Utf8Bytes::from(frame))).await {
            outstanding.fetch_sub(1, Ordering::Relaxed);
            shared.in_flight.add_permits(1);
            shared.note_error(format!("client {i} ({me}) send: {error}"));
            return;
        }
        let now = shared.now_nanos();
        c.sent.fetch_add(1, Ordering::Relaxed);
        c.first_send.fetch_min(t, Ordering::Relaxed);
        c.last_send.fetch_max(now, Ordering::Relaxed);
    }
}

fn on_frame(
    shared: &Shared,
    text: &str,
    outstanding: &AtomicU64,
    result: &mut ClientResult,
    seen: &mut HashSet<(u64, u64)>,
) {
    let c = &shared.counters;
    let Ok(frame) = serde_json::from_str::<Frame<'_>>(text) else {
        c.other_frames.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let now = shared.now_nanos();
    match frame.kind.as_ref() {
        "message" => match frame.probe() {
            Some(Probe { t, seq, from }) if t <= now => {
                if seen.insert((from, seq)) {
                    c.received.fetch_add(1, Ordering::Relaxed);
                    c.last_receive.fetch_max(now, Ordering::Relaxed);
                    result.latencies_ns.push(now - t);
                } else {
                    c.duplicates.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ => {
                c.foreign.fetch_add(1, Ordering::Relaxed);
            }
        },
        "ack" | "error" if frame.route.as_deref() == Some(Route::SendMessage.as_str()) => {
            if frame.kind == "ack" {
                c.acked.fetch_add(1, Ordering::Relaxed);
                c.expected
                    .fetch_add(frame.queued.unwrap_or(0), Ordering::Relaxed);
                c.last_ack.fetch_max(now, Ordering::Relaxed);
            } else {
                c.send_errors.fetch_add(1, Ordering::Relaxed);
                shared.note_error(format!(
                    "sendMessage error {}: {text}",
                    frame.code.as_deref().unwrap_or("?")
                ));
            }
            if let Some(t) = frame
                .request_id
                .as_deref()
                .and_then(|r| r.parse::<u64>().ok())
                && t <= now
            {
                result.ack_latencies_ns.push(now - t);
            }
            if outstanding
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
            {
                shared.in_flight.add_permits(1);
            }
        }
        "ack" if frame.route.as_deref() == Some(Route::Heartbeat.as_str()) => {}
        _ => {
            c.other_frames.fetch_add(1, Ordering::Relaxed);
        }
    }
}
