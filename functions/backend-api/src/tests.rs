//! The handler on the `events/backend-api-*.json` samples (HTTP API payload v2, as
//! API Gateway sends them with AWS_IAM auth) and on variations of them.

use std::sync::Arc;

use contracts::fixtures::{
    T0, connected, inbox, placed_game_session, placement_id, player, player_record, settlement,
};
use contracts::ports::*;
use contracts::unavailable::Unavailable;
use lambda_http::http::{StatusCode, header};
use memory_adapters::test_wiring::TestWiring;
use serde_json::{Value, json};
use shared::domain::PlacementStatus;
use shared::messaging::{MessageKind, StoredMessage};
use shared::placement::{PlacedGameSession, PlacementRecord};
use shared::ports::PlacementOutcomes;

use super::*;

const ARN: &str =
    "arn:aws:gamelift:us-east-1::gamesession/fleet-2a8f4b1e-0000-4000-8000-000000000001/gsess-7";

struct World {
    w: TestWiring,
    api: BackendApi,
}

/// alice and bob are connected (alice on `c-alice`, bob on `c-bob`).
async fn world() -> World {
    let w = TestWiring::new().at(T0 + 1_000);
    for name in ["alice", "bob"] {
        connected(&*w.tables.players, name, &format!("c-{name}"), T0).await;
    }
    World {
        api: wire(&w.wiring()),
        w,
    }
}

impl World {
    /// `names` were placed together in game `arn` (as `on-placement-event` settles it).
    async fn seated(&self, id: &str, arn: &str, names: &[&str]) {
        self.w
            .tables
            .placements
            .create(&PlacementRecord::pending(
                placement_id(id),
                player(names[0]),
                "q",
                T0,
            ))
            .await
            .unwrap();
        let outcomes = &self.w.tables.outcomes;
        let mut settlement = settlement(id, PlacementStatus::Fulfilled, names, T0);
        settlement.game_session = Some(PlacedGameSession {
            game_session_arn: arn.into(),
            ..placed_game_session()
        });
        assert!(outcomes.settle(&settlement).await.unwrap());
    }

    async fn call(&self, event: &Value) -> (StatusCode, lambda_http::http::HeaderMap, Value) {
        call(&self.api, event).await
    }

    async fn inbox(&self, name: &str) -> Vec<StoredMessage> {
        inbox(&*self.w.tables.messages, name, T0 + 1_000)
            .await
            .into_iter()
            .filter(|m| m.kind != MessageKind::Placement)
            .collect()
    }

    async fn record(&self, name: &str) -> shared::players::PlayerRecord {
        player_record(&*self.w.tables.players, name).await
    }
}

/// Runs one HTTP API event (JSON, as Lambda receives it) through the handler as
/// `lambda_http` would: status, headers and the body as JSON.
async fn call(
    api: &BackendApi,
    event: &Value,
) -> (StatusCode, lambda_http::http::HeaderMap, Value) {
    let request = lambda_http::request::from_str(&event.to_string()).unwrap();
    let response = api.handle(request).await;
    let body = serde_json::from_slice(response.body().as_ref()).unwrap();
    (response.status(), response.headers().clone(), body)
}

fn sample(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn send_message_event() -> Value {
    sample(include_str!(
        "../../../events/backend-api-send-message.json"
    ))
}

/// `event` with another body.
fn with_body(mut event: Value, body: &Value) -> Value {
    event["body"] = json!(body.to_string());
    event
}

/// `event` with another method and path.
fn at(mut event: Value, method: &str, path: &str) -> Value {
    event["rawPath"] = json!(path);
    event["requestContext"]["http"]["method"] = json!(method);
    event["requestContext"]["http"]["path"] = json!(path);
    event
}

#[tokio::test]
async fn given_the_send_message_sample_then_each_player_gets_a_backend_message_in_their_inbox() {
    let w = world().await;
    let (status, headers, body) = w.call(&send_message_event()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(body["queued"], 2);
    for name in ["alice", "bob"] {
        let inbox = w.inbox(name).await;
        assert_eq!(inbox.len(), 1, "{name}: {inbox:?}");
        assert_eq!(inbox[0].sender_id, "match-service");
        let frame: Value = serde_json::from_str(&inbox[0].payload).unwrap();
        assert_eq!(frame["type"], "message");
        assert_eq!(frame["from"], "match-service");
        assert_eq!(frame["backend"], true);
        assert_eq!(
            frame["message"],
            json!({"kind": "match_result", "won": true, "xp": 1200})
        );
        assert_eq!(frame["messageId"], body["messageId"]);
    }
}

#[tokio::test]
async fn given_no_from_then_the_message_is_from_system() {
    let w = world().await;
    let event = with_body(
        send_message_event(),
        &json!({"playerIds": ["bob"], "message": "hi"}),
    );
    let (status, _, _) = w.call(&event).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let frame: Value = serde_json::from_str(&w.inbox("bob").await[0].payload).unwrap();
    assert_eq!(frame["from"], "system");
}

#[tokio::test]
async fn given_an_unknown_recipient_then_404_names_it_and_nothing_is_sent() {
    let w = world().await;
    let event = with_body(
        send_message_event(),
        &json!({"playerIds": ["alice", "nobody"], "message": 1}),
    );
    let (status, headers, body) = w.call(&event).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers[header::CONTENT_TYPE], "application/problem+json");
    assert_eq!(body["code"], "not_found");
    assert_eq!(body["playerIds"], json!(["nobody"]));
    assert!(w.inbox("alice").await.is_empty());
}

#[tokio::test]
async fn given_bad_inputs_then_each_is_a_typed_problem_naming_its_field() {
    let w = world().await;
    let big = "x".repeat(MAX_BODY_BYTES / 2);
    let cases = [
        (json!({"message": 1}), StatusCode::BAD_REQUEST, "playerIds"),
        (
            json!({"playerIds": [], "message": 1}),
            StatusCode::BAD_REQUEST,
            "playerIds",
        ),
        (
            json!({"playerIds": ["a b"], "message": 1}),
            StatusCode::BAD_REQUEST,
            "playerIds",
        ),
        (
            json!({"playerIds": ["alice"]}),
            StatusCode::BAD_REQUEST,
            "message",
        ),
        (
            json!({"playerIds": ["alice"], "partyId": "p", "message": 1}),
            StatusCode::BAD_REQUEST,
            "partyId",
        ),
        (
            json!({"partyId": 7, "message": 1}),
            StatusCode::BAD_REQUEST,
            "partyId",
        ),
        (
            json!({"playerIds": ["alice"], "message": 1, "from": "no spaces"}),
            StatusCode::BAD_REQUEST,
            "from",
        ),
        (
            json!({"playerIds": ["alice"], "message": big}),
            StatusCode::PAYLOAD_TOO_LARGE,
            "message",
        ),
    ];
    for (body, expected, field) in cases {
        let (status, _, problem) = w.call(&with_body(send_message_event(), &body)).await;
        assert_eq!(status, expected, "{body}: {problem}");
        assert_eq!(problem["field"], field, "{problem}");
        assert_eq!(problem["status"], expected.as_u16());
    }
    let too_big = "x".repeat(MAX_BODY_BYTES + 1);
    let mut event = send_message_event();
    event["body"] = json!(too_big);
    let (status, _, problem) = w.call(&event).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(problem["code"], "payload_too_large");
    assert!(w.inbox("alice").await.is_empty(), "nothing was stored");
}

#[tokio::test]
async fn given_the_bad_body_sample_then_400_names_the_body() {
    let w = world().await;
    let (status, _, problem) = w
        .call(&sample(include_str!(
            "../../../events/backend-api-bad-body.json"
        )))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(problem["field"], "body");
    assert_eq!(problem["type"], "urn:gamelift-sockets:problem:bad_request");
}

#[tokio::test]
async fn given_an_unknown_party_then_404() {
    let w = world().await;
    let event = with_body(
        send_message_event(),
        &json!({"partyId": "no-party", "message": 1}),
    );
    let (status, _, problem) = w.call(&event).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(problem["partyId"], "no-party");
}

#[tokio::test]
async fn given_the_get_player_sample_then_presence_and_game_state() {
    let w = world().await;
    w.seated("p-1", ARN, &["alice"]).await;
    let (status, _, body) = w
        .call(&sample(include_str!(
            "../../../events/backend-api-get-player.json"
        )))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["playerId"], "alice");
    assert_eq!(body["status"], "online");
    assert_eq!(body["online"], true);
    assert_eq!(body["connectedSince"], T0);
    assert_eq!(body["gameSession"]["gameSessionArn"], ARN);
    assert_eq!(body["gameSession"]["playerSessionId"], "psess-alice");
    assert_eq!(body["partyId"], Value::Null);
    assert_eq!(body["pendingPlacementId"], Value::Null);

    let unknown = at(
        sample(include_str!("../../../events/backend-api-get-player.json")),
        "GET",
        "/v1/players/nobody",
    );
    let (status, _, problem) = w.call(&unknown).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(problem["playerId"], "nobody");
}

#[tokio::test]
async fn given_the_batch_get_sample_then_known_players_in_order_and_the_rest_not_found() {
    let w = world().await;
    w.w.tables
        .players
        .disconnect(
            &player("bob"),
            &contracts::fixtures::connection_of("bob"),
            T0,
            T0 + 500,
        )
        .await
        .unwrap();
    let (status, _, body) = w
        .call(&sample(include_str!(
            "../../../events/backend-api-batch-get-players.json"
        )))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let players = body["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(
        (&players[0]["playerId"], &players[0]["online"]),
        (&json!("alice"), &json!(true))
    );
    // bob dropped and his grace period is over by now (T0 + 1000).
    assert_eq!(players[1]["status"], "disconnected");
    assert_eq!(players[1]["online"], false);
    assert_eq!(players[1]["connectedSince"], Value::Null);
    assert_eq!(body["notFound"], json!(["nobody"]));
}

#[tokio::test]
async fn given_the_end_connection_sample_then_a_kick_of_the_current_connection_is_queued() {
    let w = world().await;
    let (status, _, body) = w
        .call(&sample(include_str!(
            "../../../events/backend-api-end-connection.json"
        )))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["connectionId"], "c-alice");
    let inbox = w.inbox("alice").await;
    assert_eq!(inbox.len(), 1);
    assert_eq!(inbox[0].kind, MessageKind::Kick);
    assert_eq!(inbox[0].kicks().as_deref(), Some("c-alice"));
    let frame: Value = serde_json::from_str(&inbox[0].payload).unwrap();
    assert_eq!(
        frame,
        json!({"type": "disconnected_by_server", "reason": "server shutting down, rejoin",
               "connectionId": "c-alice"})
    );
}

#[tokio::test]
async fn given_a_player_without_an_open_connection_when_ending_it_then_404_and_nothing_is_queued() {
    let w = world().await;
    w.w.tables
        .players
        .disconnect(
            &player("alice"),
            &contracts::fixtures::connection_of("alice"),
            T0,
            T0 + 30_000,
        )
        .await
        .unwrap();
    let event = sample(include_str!(
        "../../../events/backend-api-end-connection.json"
    ));
    let (status, _, problem) = w.call(&event).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["code"], "not_found");
    assert!(w.inbox("alice").await.is_empty());
    let (status, _, problem) = w.call(&with_body(event, &json!({"reason": ""}))).await;
    assert_eq!(
        (status, &problem["field"]),
        (StatusCode::BAD_REQUEST, &json!("reason"))
    );
}

#[tokio::test]
async fn given_the_game_session_ended_sample_then_every_seat_in_that_game_is_cleared() {
    let w = world().await;
    w.seated("p-1", ARN, &["alice"]).await;
    w.seated(
        "p-2",
        "arn:aws:gamelift:us-east-1::gamesession/fleet-1/other",
        &["bob"],
    )
    .await;
    let event = sample(include_str!(
        "../../../events/backend-api-game-session-ended.json"
    ));
    let (status, _, body) = w.call(&event).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["cleared"], json!(["alice"]));
    assert_eq!(
        body["notSeated"],
        json!(["bob"]),
        "bob's seat is in another game"
    );
    assert_eq!(body["gameSessionId"], ARN);
    let alice = w.record("alice").await;
    assert_eq!(alice.game_session, None);
    assert_eq!(alice.ended_game_session.as_deref(), Some(ARN));
    assert!(w.record("bob").await.game_session.is_some());
    // A retry changes nothing more.
    let (_, _, again) = w.call(&event).await;
    assert_eq!(again["cleared"], json!([]));
}

#[tokio::test]
async fn given_the_player_left_sample_then_the_seat_is_cleared_once_and_a_seat_elsewhere_conflicts()
{
    let w = world().await;
    w.seated("p-1", ARN, &["alice"]).await;
    let event = sample(include_str!("../../../events/backend-api-player-left.json"));
    let (status, _, body) = w.call(&event).await;
    assert_eq!((status, &body), (StatusCode::OK, &json!({"cleared": true})));
    let (status, _, body) = w.call(&event).await;
    assert_eq!(
        (status, &body),
        (StatusCode::OK, &json!({"cleared": false})),
        "a retry"
    );

    w.seated(
        "p-2",
        "arn:aws:gamelift:us-east-1::gamesession/fleet-1/next",
        &["bob"],
    )
    .await;
    let path = event["rawPath"]
        .as_str()
        .unwrap()
        .replace("/alice/", "/bob/");
    let (status, _, problem) = w.call(&at(event.clone(), "POST", &path)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{problem}");
    assert_eq!(
        problem["currentGameSessionId"],
        "arn:aws:gamelift:us-east-1::gamesession/fleet-1/next"
    );
    let path = path.replace("/bob/", "/nobody/");
    let (status, _, _) = w.call(&at(event, "POST", &path)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn given_unknown_paths_or_methods_then_404_unknown_route() {
    let w = world().await;
    let (status, headers, problem) = w
        .call(&at(send_message_event(), "GET", "/v1/messages"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(problem["code"], "unknown_route");
    assert_eq!(headers[header::ALLOW], "POST");
    let (status, _, problem) = w
        .call(&at(send_message_event(), "POST", "/v1/nothing"))
        .await;
    assert_eq!(
        (status, &problem["code"]),
        (StatusCode::NOT_FOUND, &json!("unknown_route"))
    );
}

#[tokio::test]
async fn given_the_store_is_down_then_503_retryable() {
    let down = Arc::new(Unavailable);
    let mut w = TestWiring::new();
    w.replace::<dyn PlayerReader>(down.clone())
        .replace::<dyn PlayerLookup>(down.clone())
        .replace::<dyn Seats>(down.clone())
        .replace::<dyn MessageStore>(down.clone())
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn FriendReader>(down.clone())
        .replace::<dyn FriendCommits>(down);
    let api = wire(&w.wiring());
    let get = || sample(include_str!("../../../events/backend-api-get-player.json"));
    for event in [
        send_message_event(),
        get(),
        sample(include_str!("../../../events/backend-api-player-left.json")),
        at(get(), "POST", "/v1/players/alice/friends:list"),
        at(get(), "DELETE", "/v1/players/alice/friends/bob"),
    ] {
        let (status, headers, problem) = call(&api, &event).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{problem}");
        assert_eq!(headers[header::RETRY_AFTER], "1");
        assert_eq!(problem["code"], "unavailable");
    }
}

#[test]
fn the_samples_come_from_a_game_server_role() {
    let event = send_message_event();
    let request = lambda_http::request::from_str(&event.to_string()).unwrap();
    assert_eq!(
        caller_of(&request),
        "arn:aws:sts::123456789012:assumed-role/GameServerFleetRole/i-0123456789abcdef0"
    );
}

mod friends {
    //! The friend endpoints, on the get-player sample moved to their paths.

    use shared::friends::{Action, read_pair};

    use super::*;

    fn event(method: &str, path: &str) -> Value {
        at(
            sample(include_str!("../../../events/backend-api-get-player.json")),
            method,
            path,
        )
    }

    /// The `friend` frames in `name`'s inbox, as (about, state).
    async fn friend_frames(w: &World, name: &str) -> Vec<(String, String)> {
        w.inbox(name)
            .await
            .into_iter()
            .filter(|m| m.kind == MessageKind::Friend)
            .map(|m| {
                let frame: Value = serde_json::from_str(&m.payload).unwrap();
                assert_eq!(frame["type"], "friend");
                (
                    frame["playerId"].as_str().unwrap().to_owned(),
                    frame["state"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    /// `who` does `action` on their relation with `other`, as on the socket (set-up).
    async fn acts(w: &World, who: &str, other: &str, action: Action) {
        let pair = read_pair(w.w.tables.friends.as_ref(), &player(who), &player(other))
            .await
            .unwrap();
        w.api.relations().carry_out(pair, action).await.unwrap();
    }

    fn told(about: &str, state: &str) -> (String, String) {
        (about.to_owned(), state.to_owned())
    }

    #[tokio::test]
    async fn given_two_known_players_when_a_friendship_is_put_then_both_are_friends_and_each_is_pushed_it_once()
     {
        let w = world().await;
        let put = event("PUT", "/v1/players/alice/friends/bob");
        let (status, headers, body) = w.call(&put).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        assert_eq!(body, json!({"playerId": "bob", "state": "friends"}));
        assert_eq!(friend_frames(&w, "alice").await, [told("bob", "friends")]);
        assert_eq!(friend_frames(&w, "bob").await, [told("alice", "friends")]);
        // Idempotent: already friends, nothing more is written or pushed.
        let (status, _, body) = w.call(&put).await;
        assert_eq!(
            (status, &body["state"]),
            (StatusCode::OK, &json!("friends"))
        );
        assert_eq!(friend_frames(&w, "bob").await.len(), 1);
    }

    #[tokio::test]
    async fn given_an_invitation_when_a_friendship_is_put_then_it_is_accepted_for_both() {
        let w = world().await;
        acts(&w, "bob", "alice", Action::Add).await;
        let (status, _, body) = w.call(&event("PUT", "/v1/players/alice/friends/bob")).await;
        assert_eq!(
            (status, &body["state"]),
            (StatusCode::OK, &json!("friends"))
        );
        let (_, _, page) = w.call(&event("POST", "/v1/players/bob/friends:list")).await;
        assert_eq!(page["friends"][0]["state"], "friends", "{page}");
    }

    #[tokio::test]
    async fn given_an_unknown_player_when_a_friendship_is_put_then_404_names_them_and_nothing_is_written()
     {
        let w = world().await;
        let (status, headers, problem) = w
            .call(&event("PUT", "/v1/players/alice/friends/nobody"))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{problem}");
        assert_eq!(headers[header::CONTENT_TYPE], "application/problem+json");
        assert_eq!(problem["code"], "not_found");
        assert_eq!(problem["playerIds"], json!(["nobody"]));
        assert!(friend_frames(&w, "alice").await.is_empty());
        let (_, _, page) = w
            .call(&event("POST", "/v1/players/alice/friends:list"))
            .await;
        assert_eq!(page, json!({"friends": [], "cursor": null}));
    }

    #[tokio::test]
    async fn given_a_block_when_a_friendship_is_put_then_409_says_who_blocked_whom_and_the_block_stays()
     {
        let w = world().await;
        acts(&w, "bob", "alice", Action::Block).await;
        let (status, _, problem) = w.call(&event("PUT", "/v1/players/alice/friends/bob")).await;
        assert_eq!(status, StatusCode::CONFLICT, "{problem}");
        assert_eq!(problem["code"], "conflict");
        assert!(
            problem["detail"]
                .as_str()
                .unwrap()
                .starts_with("bob blocked alice"),
            "{problem}"
        );
        let (_, _, page) = w.call(&event("POST", "/v1/players/bob/friends:list")).await;
        assert_eq!(page["friends"][0]["state"], "blocked");
        assert!(friend_frames(&w, "alice").await.is_empty());
    }

    #[tokio::test]
    async fn given_friends_when_the_friendship_is_deleted_then_both_are_told_removed_and_again_is_no_error()
     {
        let w = world().await;
        w.call(&event("PUT", "/v1/players/alice/friends/bob")).await;
        let delete = event("DELETE", "/v1/players/bob/friends/alice");
        let (status, _, body) = w.call(&delete).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body, json!({"playerId": "alice", "state": null}));
        assert_eq!(
            friend_frames(&w, "alice").await,
            [told("bob", "friends"), told("bob", "removed")]
        );
        assert_eq!(
            friend_frames(&w, "bob").await,
            [told("alice", "friends"), told("alice", "removed")]
        );
        let (status, _, body) = w.call(&delete).await;
        assert_eq!((status, &body["state"]), (StatusCode::OK, &Value::Null));
        assert_eq!(friend_frames(&w, "bob").await.len(), 2);
    }

    #[tokio::test]
    async fn given_friends_and_an_invitation_when_listed_then_friends_carry_presence_and_state_filters()
     {
        let w = world().await;
        connected(&*w.w.tables.players, "carol", "c-carol", T0).await;
        w.call(&event("PUT", "/v1/players/alice/friends/bob")).await;
        acts(&w, "carol", "alice", Action::Add).await;
        let list = event("POST", "/v1/players/alice/friends:list");
        let (status, _, page) = w.call(&list).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let friends = page["friends"].as_array().unwrap();
        assert_eq!(friends.len(), 2, "{page}");
        assert_eq!(
            (
                &friends[0]["playerId"],
                &friends[0]["state"],
                &friends[0]["presence"]
            ),
            (&json!("bob"), &json!("friends"), &json!("online"))
        );
        assert_eq!(
            (&friends[1]["playerId"], &friends[1]["state"]),
            (&json!("carol"), &json!("invitation"))
        );
        assert!(friends[1].get("presence").is_none(), "{page}");
        assert_eq!(page["cursor"], Value::Null);
        let (_, _, page) = w
            .call(&with_body(list.clone(), &json!({"state": "invitation"})))
            .await;
        assert_eq!(page["friends"].as_array().unwrap().len(), 1);
        assert_eq!(page["friends"][0]["playerId"], "carol");
        let (_, _, page) = w
            .call(&with_body(list.clone(), &json!({"cursor": "bob"})))
            .await;
        assert_eq!(page["friends"][0]["playerId"], "carol");
        let (status, _, problem) = w.call(&with_body(list, &json!({"state": "pals"}))).await;
        assert_eq!(
            (status, &problem["field"]),
            (StatusCode::BAD_REQUEST, &json!("state"))
        );
    }

    #[tokio::test]
    async fn given_more_friends_than_a_page_when_listed_then_the_cursor_reaches_every_one_once() {
        let w = world().await;
        let total = shared::friends::FRIENDS_PAGE_SIZE as usize + 5;
        for i in 0..total {
            let name = format!("p{i:03}");
            connected(&*w.w.tables.players, &name, &format!("c-{name}"), T0).await;
            let (status, _, body) = w
                .call(&event("PUT", &format!("/v1/players/alice/friends/{name}")))
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
        let list = event("POST", "/v1/players/alice/friends:list");
        let (_, _, first) = w.call(&list).await;
        assert_eq!(
            first["friends"].as_array().unwrap().len(),
            shared::friends::FRIENDS_PAGE_SIZE as usize
        );
        let (_, _, second) = w
            .call(&with_body(list, &json!({"cursor": first["cursor"]})))
            .await;
        assert_eq!(second["friends"].as_array().unwrap().len(), 5);
        assert_eq!(second["cursor"], Value::Null);
    }
}
