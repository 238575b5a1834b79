//! StartMatchBackfill and StopMatchBackfill over a real socket, through the local
//! FlexMatch (duel rules: one player a team), from a game server whose match lost a
//! player.

use gamelift_server_protocol::model::{AttributeValue, MatchmakerData, Player};
use gamelift_server_protocol::{StartMatchBackfill, StopMatchBackfill};
use tokio::sync::mpsc::UnboundedReceiver;

use super::*;
use crate::flexmatch::{FlexMatch, FlexMatchSettings};

const CONFIGURATION_ARN: &str =
    "arn:aws:gamelift:local:123456789012:matchmakingconfiguration/default";

type Stream = tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>;

struct Game {
    h: Harness,
    flexmatch: Arc<FlexMatch>,
    events: UnboundedReceiver<Value>,
    gs: Client<Stream>,
    arn: String,
    /// Alice's team; Bob (on the other) has left.
    alice_team: String,
}

/// Alice and Bob matched on proc-1's ACTIVE game; Bob has left (his seat reopened).
async fn game_that_lost_bob(request_timeout: u64) -> Game {
    let h = Harness::real_only(30, 60).await;
    let settings = FlexMatchSettings {
        rule_set: crate::flexmatch::rule_set::RuleSet::parse(include_str!(
            "../../../rule-sets/duel.json"
        ))
        .unwrap(),
        configuration: "default".into(),
        acceptance_timeout: None,
        request_timeout: Duration::from_secs(request_timeout),
        queue: "default-queue".into(),
        region: "local".into(),
        account_id: "123456789012".into(),
    };
    let (rule, events) = channel_sink();
    let (flexmatch, _task) = FlexMatch::start(settings, h.sim.clone(), rule);
    let mut gs = connect(&h, "proc-1").await;
    ok(
        &gs.call("a", activate(7777)).await,
        "ActivateServerProcess",
        "a",
    );
    search(&flexmatch, "t-alice", "alice", 1000.0).await;
    search(&flexmatch, "t-bob", "bob", 1000.0).await;
    let create = gs.push("CreateGameSession").await;
    let arn = create["GameSessionId"].as_str().unwrap().to_owned();
    let data = MatchmakerData::parse(create["MatchmakerData"].as_str().unwrap())
        .unwrap()
        .unwrap();
    let alice_team = team_of(&data, "alice").unwrap();
    let activate_game = Request::ActivateGameSession(ActivateGameSession {
        game_session_id: arn.clone(),
    });
    ok(
        &gs.call("b", activate_game).await,
        "ActivateGameSession",
        "b",
    );
    let bob = seat_of(&h, "bob").unwrap();
    let remove = Request::RemovePlayerSession(RemovePlayerSession {
        game_session_id: arn.clone(),
        player_session_id: bob,
    });
    ok(&gs.call("c", remove).await, "RemovePlayerSession", "c");
    Game {
        h,
        flexmatch,
        events,
        gs,
        arn,
        alice_team,
    }
}

/// A Go SDK's socket for `pid` (its type named, unlike [`Harness::connect`]'s).
async fn connect(h: &Harness, pid: &str) -> Client<Stream> {
    let url = format!("{}/?{}", h.endpoint().ws_url, h.query(pid).encode());
    Client(tokio_tungstenite::connect_async(url).await.unwrap().0)
}

fn team_of(data: &MatchmakerData, player: &str) -> Option<String> {
    data.teams
        .iter()
        .find(|t| t.players.iter().any(|p| p.player_id == player))
        .map(|t| t.name.clone())
}

fn seat_of(h: &Harness, player: &str) -> Option<String> {
    h.sim
        .snapshot()
        .player_sessions
        .iter()
        .rev()
        .find(|s| s.player_id == player)
        .map(|s| s.player_session_id.clone())
}

fn start_backfill(arn: &str, configuration: &str, team: &str) -> Request {
    Request::StartMatchBackfill(StartMatchBackfill {
        game_session_arn: arn.into(),
        matchmaking_configuration_arn: configuration.into(),
        ticket_id: String::new(),
        players: vec![Player {
            player_id: "alice".into(),
            team: team.into(),
            player_attributes: [("skill".to_owned(), AttributeValue::Double { n: 1000.0 })].into(),
            latency_in_ms: [("local".to_owned(), 20)].into(),
        }],
    })
}

fn stop_backfill(arn: &str, ticket: &str) -> Request {
    Request::StopMatchBackfill(StopMatchBackfill {
        game_session_arn: arn.into(),
        matchmaking_configuration_arn: CONFIGURATION_ARN.into(),
        ticket_id: ticket.into(),
    })
}

/// The next matchmaking event of `kind` naming `ticket`.
async fn event(events: &mut UnboundedReceiver<Value>, kind: &str, ticket: &str) -> Value {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("an event within 5 s")
            .unwrap();
        let detail = &event["detail"];
        let names = detail["tickets"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|t| t["ticketId"] == ticket));
        if detail["type"] == kind && names {
            return detail.clone();
        }
    }
}

#[tokio::test]
async fn given_a_game_that_lost_a_player_when_it_backfills_and_a_new_ticket_matches_then_the_player_is_seated_in_that_game_and_the_server_gets_both_players()
 {
    let mut g = game_that_lost_bob(120).await;
    let answer =
        g.gs.call(
            "d",
            start_backfill(&g.arn, CONFIGURATION_ARN, &g.alice_team),
        )
        .await;
    ok(&answer, "StartMatchBackfill", "d");
    let backfill_ticket = answer["TicketId"].as_str().unwrap().to_owned();
    assert!(!backfill_ticket.is_empty(), "{answer}");

    search(&g.flexmatch, "t-carol", "carol", 1000.0).await;
    let succeeded = event(&mut g.events, "MatchmakingSucceeded", "t-carol").await;
    assert_eq!(succeeded["gameSessionInfo"]["gameSessionArn"], g.arn);
    let carol_seat = seat_of(&g.h, "carol").expect("carol has a player session");
    let carol = succeeded["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["ticketId"] == "t-carol")
        .unwrap();
    assert_eq!(carol["players"][0]["playerSessionId"], carol_seat);
    let snapshot = g.h.sim.snapshot();
    let seat = snapshot
        .player_sessions
        .iter()
        .find(|s| s.player_session_id == carol_seat)
        .unwrap();
    assert_eq!(seat.game_session_arn, g.arn);
    assert_eq!(seat.status, crate::gamelift::PlayerSessionStatus::Reserved);

    let update = g.gs.push("UpdateGameSession").await;
    assert_eq!(update["UpdateReason"], "MATCHMAKING_DATA_UPDATED");
    assert_eq!(update["BackfillTicketId"], backfill_ticket.as_str());
    assert_eq!(update["GameSession"]["GameSessionId"], g.arn);
    let data = MatchmakerData::parse(update["GameSession"]["MatchmakerData"].as_str().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(team_of(&data, "alice"), Some(g.alice_team.clone()));
    let carol_team = team_of(&data, "carol").expect("carol is in the matchmaker data");
    assert_ne!(carol_team, g.alice_team);
}

#[tokio::test]
async fn given_a_backfill_when_nobody_comes_within_the_request_timeout_then_the_server_gets_backfill_timed_out()
 {
    let mut g = game_that_lost_bob(1).await;
    let answer =
        g.gs.call("d", start_backfill(&g.arn, "default", &g.alice_team))
            .await;
    ok(&answer, "StartMatchBackfill", "d");
    let update = g.gs.push("UpdateGameSession").await;
    assert_eq!(update["UpdateReason"], "BACKFILL_TIMED_OUT");
    assert_eq!(update["BackfillTicketId"], answer["TicketId"]);
}

#[tokio::test]
async fn given_a_searching_backfill_when_the_server_stops_it_then_it_is_cancelled_and_the_server_gets_backfill_cancelled()
 {
    let mut g = game_that_lost_bob(120).await;
    let mut start = start_backfill(&g.arn, CONFIGURATION_ARN, &g.alice_team);
    if let Request::StartMatchBackfill(request) = &mut start {
        request.ticket_id = "my-backfill".into();
    }
    let answer = g.gs.call("d", start).await;
    assert_eq!(answer["TicketId"], "my-backfill", "{answer}");
    ok(
        &g.gs.call("e", stop_backfill(&g.arn, "my-backfill")).await,
        "StopMatchBackfill",
        "e",
    );
    let update = g.gs.push("UpdateGameSession").await;
    assert_eq!(update["UpdateReason"], "BACKFILL_CANCELLED");
    assert_eq!(update["BackfillTicketId"], "my-backfill");
    event(&mut g.events, "MatchmakingCancelled", "my-backfill").await;
    refused(
        &g.gs.call("f", stop_backfill(&g.arn, "my-backfill")).await,
        404,
        "no live backfill ticket",
    );
}

#[tokio::test]
async fn given_backfill_requests_that_are_not_allowed_then_each_is_refused_with_why() {
    let mut g = game_that_lost_bob(120).await;
    let other = "arn:aws:gamelift:local:123456789012:matchmakingconfiguration/other";
    refused(
        &g.gs
            .call("d", start_backfill(&g.arn, other, &g.alice_team))
            .await,
        404,
        "the local stack runs",
    );
    refused(
        &g.gs
            .call("e", start_backfill(&g.arn, CONFIGURATION_ARN, "green"))
            .await,
        400,
        "not a team of rule set duel",
    );
    refused(
        &g.gs.call("f", stop_backfill(&g.arn, "nobody")).await,
        404,
        "no live backfill ticket",
    );
    let ticket =
        g.gs.call(
            "g",
            start_backfill(&g.arn, CONFIGURATION_ARN, &g.alice_team),
        )
        .await["TicketId"]
            .as_str()
            .unwrap()
            .to_owned();

    // Another process: the game is not its own, nor the backfill ticket.
    let mut other_gs = connect(&g.h, "proc-2").await;
    ok(
        &other_gs.call("a", activate(7778)).await,
        "ActivateServerProcess",
        "a",
    );
    refused(
        &other_gs
            .call(
                "b",
                start_backfill(&g.arn, CONFIGURATION_ARN, &g.alice_team),
            )
            .await,
        400,
        "belongs to another process",
    );
    refused(
        &other_gs.call("c", stop_backfill(&g.arn, &ticket)).await,
        400,
        "belongs to another process",
    );

    // A game session still ACTIVATING (the backfill stopped first: it would take Dave).
    ok(
        &g.gs.call("h", stop_backfill(&g.arn, &ticket)).await,
        "StopMatchBackfill",
        "h",
    );
    search(&g.flexmatch, "t-dave", "dave", 1000.0).await;
    search(&g.flexmatch, "t-erin", "erin", 1000.0).await;
    let mut activating = None;
    for _ in 0..200 {
        activating =
            g.h.sim
                .snapshot()
                .game_sessions
                .into_iter()
                .find(|s| s.status == GameSessionStatus::Activating);
        if activating.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let activating = activating.expect("Dave and Erin's game is sent to a process");
    let caller = if activating.process_id == "proc-1" {
        &mut g.gs
    } else {
        &mut other_gs
    };
    let start = start_backfill(
        &activating.game_session_arn,
        CONFIGURATION_ARN,
        &g.alice_team,
    );
    refused(&caller.call("i", start).await, 400, "not ACTIVE");
}
