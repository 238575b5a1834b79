//! `/console/api`: the JSON a script gets, the actions and how they refuse bad requests.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use super::{next_where, player, send};

/// One HTTP/1.1 request (`Connection: close`): the status and the body as JSON (or as a
/// string when it is not JSON).
async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    let body = serde_json::from_str(body).unwrap_or_else(|_| Value::from(body));
    (status, body)
}

const JSON: (&str, &str) = ("Content-Type", "application/json");

async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, Value) {
    http(addr, "POST", path, &[JSON], body).await
}

pub(super) async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Value) {
    http(addr, "GET", path, &[], "").await
}

pub(super) async fn stack() -> local::RunningStack {
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 100;
    local::start(settings).await.unwrap()
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_from_the_binary_and_nothing_else_is() {
    let stack = stack().await;
    let addr = stack.addr();
    let (status, page) = get(addr, "/console").await;
    assert_eq!(status, 200);
    let page = page.as_str().unwrap();
    assert!(page.contains("/console/assets/console.js"), "{page}");
    // Nothing from elsewhere: every script and style is the console's own.
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "{page}"
    );
    for asset in ["console.js", "views.js", "client.js", "console.css"] {
        let (status, _) = get(addr, &format!("/console/assets/{asset}")).await;
        assert_eq!(status, 200, "{asset}");
    }
    let (status, body) = get(addr, "/console/assets/nope.js").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not_found")));
    let (status, body) = get(addr, "/console/api/tickets-or-anything").await;
    assert_eq!((status, body["error"].as_str()), (404, Some("not_found")));
    assert!(
        body["message"].as_str().unwrap().contains("players"),
        "{body}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn the_sections_say_who_is_connected_what_waits_in_their_inbox_and_what_the_fleet_holds() {
    let stack = stack().await;
    sections_show_players_inboxes_parties_and_fleet(stack).await;
}

#[tokio::test]
async fn the_sections_read_dynamodb_local_as_they_read_memory() {
    let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") else {
        eprintln!("skipped: DYNAMODB_ENDPOINT is not set (run scripts/test.sh)");
        return;
    };
    // Tables of its own: other suites use DynamoDB Local at the same time.
    let suffix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.storage.dynamodb_endpoint = Some(endpoint);
    let storage = &mut settings.storage;
    storage.players_table = format!("ConsolePlayers{suffix}");
    storage.messages_table = format!("ConsoleMessages{suffix}");
    storage.placements_table = format!("ConsolePlacements{suffix}");
    storage.subscriptions_table = format!("ConsoleSubscriptions{suffix}");
    storage.parties_table = format!("ConsoleParties{suffix}");
    storage.friends_table = format!("ConsoleFriends{suffix}");
    let stack = local::start(settings).await.unwrap();
    sections_show_players_inboxes_parties_and_fleet(stack).await;
}

async fn sections_show_players_inboxes_parties_and_fleet(stack: local::RunningStack) {
    // Given alice and bob connected, a message from alice in bob's inbox, and alice's party
    let addr = stack.addr();
    let mut alice = player(&stack.url(), "alice").await;
    let mut bob = player(&stack.url(), "bob").await;
    send(
        &mut alice,
        json!({"route": "sendMessage", "requestId": "m", "body": {"playerIds": ["bob"], "message": {"text": "gg"}}}),
    )
    .await;
    next_where(&mut bob, |f| f["type"] == "message").await;
    send(
        &mut alice,
        json!({"route": "createParty", "requestId": "p"}),
    )
    .await;
    let created = next_where(&mut alice, |f| {
        f["type"] == "ack" && f["route"] == "createParty"
    })
    .await;
    let party_id = created["party"]["partyId"].clone();

    // When a script reads the sections
    let (status, players) = get(addr, "/console/api/players").await;
    assert_eq!(status, 200);
    let (_, connections) = get(addr, "/console/api/connections").await;
    let (_, fleet) = get(addr, "/console/api/fleet").await;
    let (_, parties) = get(addr, "/console/api/parties").await;
    let (_, state) = get(addr, "/console/api/state").await;

    // Then each player is there, online, with their inbox
    let row = |id: &str| {
        players
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["playerId"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(row("bob")["presence"], "online");
    assert_eq!(row("bob")["backlog"]["stored"], 1, "{players}");
    assert_eq!(row("alice")["partyId"], party_id, "{players}");
    // And their connections, the fleet and alice's party
    let owners: Vec<&str> = connections
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["playerId"].as_str().unwrap())
        .collect();
    assert_eq!(owners.len(), 2);
    assert!(owners.contains(&"alice") && owners.contains(&"bob"));
    assert_eq!(fleet["capacity"]["servers"], 2);
    assert_eq!(fleet["faults"]["failPlacements"], false);
    assert_eq!(parties[0]["partyId"], party_id, "{parties}");
    assert_eq!(parties[0]["leaderId"], "alice");
    assert_eq!(parties[0]["members"][0]["presence"], "online");
    for section in [
        "players",
        "connections",
        "placements",
        "fleet",
        "parties",
        "stack",
    ] {
        assert!(
            state.get(section).is_some(),
            "{section} missing from {state}"
        );
    }
    // And the feed filters by player and kind
    let (_, feed) = get(addr, "/console/api/feed?player=bob&kind=connected").await;
    let feed = feed.as_array().unwrap();
    assert_eq!(feed.len(), 1, "{feed:?}");
    assert_eq!(feed[0]["playerIds"], json!(["bob"]));
    let (status, refused) = get(addr, "/console/api/feed?kind=dance").await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (400, Some("bad_request"))
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn actions_refuse_what_is_not_json_from_the_consoles_own_origin() {
    let stack = stack().await;
    let addr = stack.addr();
    let path = "/console/api/fleet/faults";
    let body = r#"{"failPlacements":true}"#;
    // A form post from anywhere (no JSON content type)
    let (status, refused) = http(addr, "POST", path, &[], body).await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (400, Some("bad_request"))
    );
    // Another site's page
    let (status, refused) = http(
        addr,
        "POST",
        path,
        &[JSON, ("Origin", "http://evil.example")],
        body,
    )
    .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (403, Some("forbidden"))
    );
    // Nothing to change, an unknown field, a delay out of range
    for bad in [
        "{}",
        r#"{"failEverything":true}"#,
        r#"{"placementDelayMs":3600001}"#,
    ] {
        let (status, refused) = post(addr, path, bad).await;
        assert_eq!(
            (status, refused["error"].as_str()),
            (400, Some("bad_request")),
            "{bad}"
        );
    }
    assert_eq!(
        stack.simulator().faults(),
        local::gamelift::Faults::default()
    );
    // Unknown things are 404s, a placement that is not PENDING a 409
    let (status, _) = post(addr, "/console/api/connections/nope=/drop", "{}").await;
    assert_eq!(status, 404);
    let (status, _) = post(addr, "/console/api/placements/nope/fail", "{}").await;
    assert_eq!(status, 404);
    let (status, _) = post(addr, "/console/api/game-sessions/nope/terminate", "{}").await;
    assert_eq!(status, 404);
    stack.shutdown().await;
}

#[tokio::test]
async fn a_failing_fleet_fails_the_placement_and_a_dropped_connection_ends_without_a_close_frame() {
    let stack = stack().await;
    let addr = stack.addr();
    let mut alice = player(&stack.url(), "alice").await;

    // Given the fleet told to fail placements
    let (status, answer) = post(
        addr,
        "/console/api/fleet/faults",
        r#"{"failPlacements":true}"#,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["faults"]["failPlacements"], true);

    // When alice asks for a game, then she is told it FAILED
    send(
        &mut alice,
        json!({"route": "sessionPlacementRequest", "body": {}}),
    )
    .await;
    let placed = next_where(&mut alice, |f| f["type"] == "placement").await;
    assert_eq!(placed["status"], "FAILED", "{placed}");

    // And when her connection is dropped from the console
    let (_, connections) = get(addr, "/console/api/connections").await;
    let id = connections[0]["connectionId"].as_str().unwrap().to_owned();
    let (status, answer) = post(addr, &format!("/console/api/connections/{id}/drop"), "{}").await;
    assert_eq!(status, 200, "{answer}");

    // Then her socket ends with no close frame (1006 for her client)
    let ending = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match futures_util::StreamExt::next(&mut alice).await {
                Some(Ok(Message::Close(frame))) => return format!("close frame {frame:?}"),
                Some(Ok(_)) => {}
                Some(Err(error)) => return format!("error {error}"),
                None => return "ended".to_owned(),
            }
        }
    })
    .await
    .unwrap();
    assert!(!ending.starts_with("close frame"), "{ending}");
    // And the feed says so
    let (_, feed) = get(addr, "/console/api/feed?player=alice&kind=disconnected").await;
    assert!(
        feed[0]["summary"].as_str().unwrap().contains("1006"),
        "{feed}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn the_live_stream_starts_with_the_recent_feed_and_the_state() {
    let stack = stack().await;
    let _alice = player(&stack.url(), "alice").await;
    let mut stream = TcpStream::connect(stack.addr()).await.unwrap();
    stream
        .write_all(
            b"GET /console/api/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n",
        )
        .await
        .unwrap();
    let mut seen = String::new();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(Duration::from_secs(5), async {
        while !(seen.contains("event: feed") && seen.contains("event: state")) {
            let n = stream.read(&mut buffer).await.unwrap();
            assert!(n > 0, "the stream ended: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no feed and state within 5 s: {seen}"));
    assert!(seen.contains("text/event-stream"), "{seen}");
    assert!(seen.contains("alice connected"), "{seen}");

    // And a page left open does not hold the stack's shutdown up: its stream ends
    let started = std::time::Instant::now();
    stack.shutdown().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown took {:?} with a console page open",
        started.elapsed()
    );
    let mut rest = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut rest)).await;
    assert!(
        matches!(ended, Ok(Ok(_))),
        "the stream did not end: {ended:?}"
    );
}

#[tokio::test]
async fn a_slowed_placement_waits_and_an_ended_game_session_is_terminated() {
    let stack = stack().await;
    let addr = stack.addr();
    let mut alice = player(&stack.url(), "alice").await;
    let (status, _) = post(
        addr,
        "/console/api/fleet/faults",
        r#"{"placementDelayMs":300}"#,
    )
    .await;
    assert_eq!(status, 200);

    // Given a PENDING placement slowed by a second from the console
    send(
        &mut alice,
        json!({"route": "sessionPlacementRequest", "requestId": "p", "body": {}}),
    )
    .await;
    let ack = next_where(&mut alice, |f| f["type"] == "ack").await;
    let placement = ack["placementId"].as_str().unwrap().to_owned();
    let (status, answer) = post(
        addr,
        &format!("/console/api/placements/{placement}/delay"),
        r#"{"ms":3000}"#,
    )
    .await;
    assert_eq!(status, 200, "{answer}");

    // Then it is still PENDING after its normal delay, and FULFILLED later
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (_, placements) = get(addr, "/console/api/placements").await;
    assert_eq!(placements[0]["status"], "PENDING", "{placements}");
    let placed = next_where(&mut alice, |f| f["type"] == "placement").await;
    assert_eq!(placed["status"], "FULFILLED");

    // And a placement no longer PENDING cannot be failed (409)
    let (status, refused) = post(
        addr,
        &format!("/console/api/placements/{placement}/fail"),
        "{}",
    )
    .await;
    assert_eq!((status, refused["error"].as_str()), (409, Some("conflict")));

    // When its game session is ended from the console, then the fleet shows it TERMINATED
    let arn = placed["gameSession"]["gameSessionArn"].as_str().unwrap();
    let id = arn.rsplit('/').next().unwrap();
    let (status, answer) = post(
        addr,
        &format!("/console/api/game-sessions/{id}/terminate"),
        "{}",
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let (_, fleet) = get(addr, "/console/api/fleet").await;
    assert_eq!(fleet["gameSessions"][0]["status"], "TERMINATED", "{fleet}");
    stack.shutdown().await;
}

#[tokio::test]
async fn a_silent_socket_the_sweeper_closes_shows_as_zombie_swept() {
    // Given a stack that sweeps every second and wants a heartbeat every second
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.presence.heartbeat_timeout_seconds = 1;
    settings.presence.sweep_interval_seconds = 1;
    let stack = local::start(settings).await.unwrap();
    let addr = stack.addr();

    // When dave connects and never sends a heartbeat
    let mut dave = player(&stack.url(), "dave").await;
    let told = next_where(&mut dave, |f| f["type"] == "disconnected").await;
    assert_eq!(told["reason"], "heartbeat_timeout");

    // Then the console names him zombie-swept, not merely offline
    let presence = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let (_, players) = get(addr, "/console/api/players").await;
            let presence = players[0]["presence"].as_str().unwrap_or("").to_owned();
            if presence != "online" {
                return presence;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .unwrap();
    assert_eq!(presence, "zombie-swept");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_two_players_matched_by_flexmatch_then_the_tickets_section_and_the_feed_show_it() {
    // Given a stack with the example 1v1 rule set and no acceptance
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 100;
    let rule_set = concat!(env!("CARGO_MANIFEST_DIR"), "/rule-sets/duel.json");
    settings.matchmaking.matchmaking_rule_set = Some(rule_set.to_owned());
    let stack = local::start(settings).await.unwrap();
    let addr = stack.addr();
    let (_, empty) = get(addr, "/console/api/tickets").await;
    assert_eq!(empty, json!([]));

    // When alice and bob start matchmaking and are matched
    let mut alice = player(&stack.url(), "alice").await;
    let mut bob = player(&stack.url(), "bob").await;
    for ws in [&mut alice, &mut bob] {
        let body = json!({"latencies": {"us-east-1": 40}});
        send(
            ws,
            json!({"route": "startMatchmaking", "requestId": "m", "body": body}),
        )
        .await;
    }
    for ws in [&mut alice, &mut bob] {
        let done = next_where(ws, |f| {
            f["type"] == "matchmaking" && f["status"] != "SEARCHING" && f["status"] != "PLACING"
        })
        .await;
        assert_eq!(done["status"], "COMPLETED", "{done}");
    }

    // Then the tickets section lists both tickets COMPLETED, with their players and match
    let (status, tickets) = get(addr, "/console/api/tickets").await;
    assert_eq!(status, 200);
    let tickets = tickets.as_array().unwrap();
    assert_eq!(tickets.len(), 2, "{tickets:?}");
    let mut players: Vec<&str> = Vec::new();
    for ticket in tickets {
        assert_eq!(ticket["status"], "COMPLETED", "{ticket}");
        assert_eq!(ticket["lastEvent"], "MatchmakingSucceeded", "{ticket}");
        assert!(ticket["matchId"].is_string(), "{ticket}");
        players.extend(
            ticket["players"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| p["playerId"].as_str()),
        );
    }
    players.sort_unstable();
    assert_eq!(players, ["alice", "bob"]);
    // And alice's feed has the FlexMatch events handed to on-matchmaking-event
    let (_, feed) = get(addr, "/console/api/feed?player=alice&kind=eventBridge").await;
    let text = feed.to_string();
    for event in [
        "MatchmakingSearching",
        "PotentialMatchCreated",
        "MatchmakingSucceeded",
    ] {
        assert!(text.contains(event), "{event} missing: {text}");
    }
    stack.shutdown().await;
}

/// The metrics section until `done` holds (within 10 s).
async fn metrics_until(addr: std::net::SocketAddr, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, metrics) = get(addr, "/console/api/metrics").await;
        assert_eq!(status, 200, "{metrics}");
        if done(&metrics) {
            return metrics;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not seen in 10 s: {metrics}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The total of the series `name` whose dimensions include `dims`.
fn total(metrics: &Value, name: &str, dims: &[(&str, &str)]) -> f64 {
    metrics["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == name)
        .filter(|s| dims.iter().all(|(k, v)| s["dimensions"][k] == *v))
        .map(|s| s["total"].as_f64().unwrap())
        .sum()
}

#[tokio::test]
async fn given_a_message_pushed_to_a_live_player_then_the_metrics_section_counts_it_from_the_emf_lines()
 {
    let stack = stack().await;
    let url = stack.url();
    let mut alice = player(&url, "alice").await;
    let mut bob = player(&url, "bob").await;
    let body = json!({"playerIds": ["bob"], "message": {"text": "gg"}});
    send(
        &mut alice,
        json!({"route": "sendMessage", "requestId": "m", "body": body}),
    )
    .await;
    next_where(&mut bob, |f| f["type"] == "message").await;
    send(
        &mut alice,
        json!({"route": "sendMessage", "body": {"playerIds": ["nobody"], "message": {}}}),
    )
    .await;

    let metrics = metrics_until(stack.addr(), |m| {
        total(m, "Deliveries", &[("Outcome", "posted")]) >= 1.0 && total(m, "Refusals", &[]) >= 1.0
    })
    .await;
    assert_eq!(metrics["invalid"], 0, "every EMF line is valid: {metrics}");
    assert!(
        metrics["namespace"]
            .as_str()
            .unwrap()
            .starts_with("GameLiftSockets/")
    );
    // Per route only with DETAILED_METRICS=true, as deployed by default.
    assert_eq!(total(&metrics, "Requests", &[]), 0.0);
    assert!(total(&metrics, "Refusals", &[("Route", "sendMessage")]) == 0.0);
    let lag = metrics["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "DeliveryLag")
        .expect("a delivery lag series");
    assert!(lag["p99"].as_f64().unwrap() >= 0.0, "{lag}");
    let counts: u64 = metrics["lag"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(counts >= 1, "the lag histogram has the post: {metrics}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_gateway_fleet_then_the_fleet_shows_the_details_given_and_the_throttling_fault() {
    use shared::config::PlayerGateway;
    use shared::ports::PlayerConnections;
    // Given a stack whose fleet requires player gateway, and alice placed in a game
    let mut settings = local::Settings::default();
    settings.gateway.port = 0;
    settings.simulator.sim_server_startup_ms = 0;
    settings.simulator.sim_placement_delay_ms = 100;
    settings.placement.player_gateway = PlayerGateway::Required;
    let stack = local::start(settings).await.unwrap();
    let addr = stack.addr();
    let mut alice = player(&stack.url(), "alice").await;
    send(
        &mut alice,
        json!({"route": "sessionPlacementRequest", "body": {}}),
    )
    .await;
    let placed = next_where(&mut alice, |f| f["type"] == "placement").await;
    let arn = placed["gameSession"]["gameSessionArn"].as_str().unwrap();
    let alice_id = shared::domain::PlayerId::parse("alice").unwrap();

    // When her connection details are asked of the simulator
    let given = stack
        .simulator()
        .get_player_connection_details(arn, std::slice::from_ref(&alice_id))
        .await
        .unwrap();

    // Then the fleet section shows the mode, the call and what was given
    let (_, fleet) = get(addr, "/console/api/fleet").await;
    assert_eq!(fleet["playerGateway"], "required", "{fleet}");
    // Two calls: the placement's (on-placement-event seats her behind the gateway) and ours.
    assert_eq!(fleet["connectionDetailsCalls"], 2);
    let shown = &fleet["playerConnections"][0];
    assert_eq!(shown["playerId"], "alice");
    assert_eq!(
        shown["playerGatewayToken"].as_str(),
        given[0].details.player_gateway_token.as_deref()
    );
    assert_eq!(shown["endpoints"].as_array().unwrap().len(), 2);

    // And with the fault on, the next call is throttled, and the knob reads back
    let (status, answer) = post(
        addr,
        "/console/api/fleet/faults",
        r#"{"failConnectionDetails":true}"#,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["faults"]["failConnectionDetails"], true);
    assert_eq!(answer["faults"]["failPlacements"], false);
    assert!(matches!(
        stack
            .simulator()
            .get_player_connection_details(arn, &[alice_id])
            .await,
        Err(shared::ports::GameLiftError::Unavailable(_))
    ));
    stack.shutdown().await;
}

/// The Server-Sent Events of `/console/api/events` as `(event, data)`, read from an
/// HTTP/1.0 response (no chunked encoding: the body is the event stream as written).
struct Events {
    stream: TcpStream,
    buffered: String,
}

impl Events {
    async fn open(addr: std::net::SocketAddr) -> Self {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /console/api/events HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n")
            .await
            .unwrap();
        let mut events = Self {
            stream,
            buffered: String::new(),
        };
        while !events.buffered.contains("\r\n\r\n") {
            events.fill().await;
        }
        let body = events.buffered.split_once("\r\n\r\n").unwrap().1.to_owned();
        events.buffered = body;
        events
    }

    async fn fill(&mut self) {
        let mut buffer = [0u8; 65536];
        let n = self.stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the event stream ended");
        self.buffered
            .push_str(&String::from_utf8_lossy(&buffer[..n]));
    }

    async fn next(&mut self) -> (String, Value) {
        loop {
            if let Some((block, rest)) = self.buffered.split_once("\n\n") {
                let (block, rest) = (block.to_owned(), rest.to_owned());
                self.buffered = rest;
                let field = |name: &str| {
                    block
                        .lines()
                        .filter_map(|line| line.strip_prefix(name))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let data = field("data:");
                if let Ok(data) = serde_json::from_str(data.trim()) {
                    return (field("event:").trim().to_owned(), data);
                }
                continue;
            }
            self.fill().await;
        }
    }
}

#[tokio::test]
async fn given_a_placement_fulfilled_when_its_frame_reaches_the_feed_then_the_state_before_it_shows_the_game()
 {
    let stack = stack().await;
    let mut alice = player(&stack.url(), "alice").await;
    let mut events = Events::open(stack.addr()).await;
    send(
        &mut alice,
        json!({"route": "sessionPlacementRequest", "requestId": "p", "body": {}}),
    )
    .await;
    // Alice's row as the page last drew it, each time the FULFILLED frame's feed event came.
    let row_at_frame = tokio::time::timeout(Duration::from_secs(10), async {
        let mut row = Value::Null;
        loop {
            let (event, data) = events.next().await;
            if event == "state" {
                let players = data["players"].as_array().cloned().unwrap_or_default();
                if let Some(alice) = players.into_iter().find(|p| p["playerId"] == "alice") {
                    row = alice;
                }
            } else if event == "feed" {
                let frames = data.as_array().cloned().unwrap_or_default();
                let fulfilled = frames.iter().any(|e| {
                    e["kind"] == "frameOut"
                        && e["summary"]
                            .as_str()
                            .unwrap_or("")
                            .contains("placement FULFILLED")
                });
                if fulfilled {
                    return row;
                }
            }
        }
    })
    .await
    .expect("the FULFILLED frame in the feed within 10 s");
    let placed = next_where(&mut alice, |f| f["type"] == "placement").await;
    assert_eq!(placed["status"], "FULFILLED");
    // Then the row the page shows with the frame has the game, and no pending placement.
    assert_eq!(
        row_at_frame["gameSession"]["gameSessionArn"], placed["gameSession"]["gameSessionArn"],
        "{row_at_frame}"
    );
    assert_eq!(
        row_at_frame["pendingPlacementId"],
        Value::Null,
        "{row_at_frame}"
    );
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_friendship_made_through_the_backend_api_then_the_friends_section_shows_it_with_presence_until_it_ends()
 {
    // Given alice and bob connected, made friends by a studio's service
    let stack = stack().await;
    let addr = stack.addr();
    let backend: std::net::SocketAddr = stack
        .backend_api_url()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let _alice = player(&stack.url(), "alice").await;
    let mut bob = player(&stack.url(), "bob").await;
    let (status, ack) = http(backend, "PUT", "/v1/players/alice/friends/bob", &[], "").await;
    assert_eq!(status, 200, "{ack}");
    // And bob is pushed the friendship live, as for an invitation accepted on the socket
    let pushed = next_where(&mut bob, |f| f["type"] == "friend").await;
    assert_eq!(
        (&pushed["playerId"], &pushed["state"]),
        (&json!("alice"), &json!("friends"))
    );

    // When a script reads the friends section
    let (status, friends) = get(addr, "/console/api/friends").await;

    // Then each side is a row, the other a friend with their presence
    assert_eq!(status, 200);
    let row = |id: &str| {
        friends
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["playerId"] == id)
            .unwrap_or_else(|| panic!("no row for {id}: {friends}"))
            .clone()
    };
    assert_eq!(row("alice")["friends"][0]["playerId"], "bob", "{friends}");
    assert_eq!(row("alice")["friends"][0]["presence"], "online");
    assert_eq!(row("bob")["friends"][0]["playerId"], "alice");
    assert_eq!(row("bob")["invitation"], json!([]));
    assert_eq!(row("bob")["more"], false);
    let (_, state) = get(addr, "/console/api/state").await;
    assert!(state.get("friends").is_some(), "{state}");

    // And once the friendship ends, neither has a row
    let (status, _) = http(backend, "DELETE", "/v1/players/bob/friends/alice", &[], "").await;
    assert_eq!(status, 200);
    let (_, friends) = get(addr, "/console/api/friends").await;
    assert_eq!(friends, json!([]));
    stack.shutdown().await;
}
