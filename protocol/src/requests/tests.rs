use serde_json::{Value, json};

use super::*;

#[test]
fn given_a_ping_when_written_then_it_is_the_route_alone_with_no_request_id() {
    let ping = ClientRequest::Ping;
    assert_eq!(ping.route(), Route::Ping);
    assert_eq!(ping.request_id(), None);
    assert_eq!(ping.to_json(), r#"{"route":"ping"}"#);
}

#[test]
fn given_a_ping_when_a_request_id_is_set_then_it_stays_without_one() {
    // Never answered: an id would promise a reply that cannot come.
    let ping = ClientRequest::Ping.with_request_id("7");
    assert_eq!(ping, ClientRequest::Ping);
    assert_eq!(ping.request_id(), None);
    assert_eq!(ping.to_json(), r#"{"route":"ping"}"#);
}

#[test]
fn given_a_ping_carrying_a_request_id_and_body_when_read_then_both_are_ignored() {
    let read: ClientRequest =
        serde_json::from_value(json!({"route":"ping","requestId":"r1","body":{"cursor":5}}))
            .unwrap();
    assert_eq!(read, ClientRequest::Ping);
}

#[test]
fn given_a_heartbeat_when_a_request_id_is_set_then_it_is_read_back_and_written() {
    let heartbeat = ClientRequest::Heartbeat {
        request_id: None,
        body: CursorBody { cursor: None },
    };
    assert_eq!(heartbeat.request_id(), None);
    let heartbeat = heartbeat.with_request_id("r2");
    assert_eq!(heartbeat.request_id(), Some("r2"));
    assert_eq!(
        serde_json::to_value(&heartbeat).unwrap(),
        json!({"route":"heartbeat","requestId":"r2","body":{}})
    );
}

/// The smallest body `route` accepts, so that every variant is built.
pub(super) fn smallest_body(route: &str) -> Value {
    match route {
        "sendMessage" => json!({"playerIds":["bob"],"message":1}),
        "subscribePresence" | "unsubscribePresence" => json!({"playerIds":["bob"]}),
        "setPlacementLatencies" => json!({"latencies":{}}),
        "inviteToParty" | "kickFromParty" | "promotePartyLeader" | "addFriend" | "removeFriend"
        | "blockPlayer" | "unblockPlayer" | "joinFriendGame" => {
            json!({"playerId":"bob"})
        }
        "joinParty" | "declinePartyInvite" => json!({"partyId":"p1"}),
        "acceptMatch" => json!({"ticketId":"t1","accept":true}),
        "setMatchmakingAttributes" => json!({"attributes":{}}),
        "setActivity" => json!({"activity":""}),
        _ => json!({}),
    }
}

#[test]
fn every_route_but_ping_takes_a_request_id() {
    for route in Route::ALL.iter().map(|route| route.as_str()) {
        let body = smallest_body(route);
        let request: ClientRequest = serde_json::from_value(json!({"route": route, "body": body}))
            .unwrap_or_else(|e| panic!("{route}: {e}"));
        assert_eq!(request.route().as_str(), route);
        let expected = (route != "ping").then_some("x");
        assert_eq!(
            request.with_request_id("x").request_id(),
            expected,
            "{route}"
        );
    }
}
