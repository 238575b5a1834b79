use super::*;
use contracts::events::{reply_frame, route_event};
use contracts::fixtures::{T0, assert_refused, connected, frames, inbox, player_record};
use contracts::ports::*;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryMessageStore, InMemoryPartyStore, InMemoryPlayerStore};
use serde_json::{Value, json};
use shared::domain::PlayerId;
use shared::messaging::MessageKind;
use shared::ports::ManualClock;

/// alice, bob, carol, dave and eve have connected; nobody is in a party.
struct World {
    players: Arc<InMemoryPlayerStore>,
    messages: Arc<InMemoryMessageStore>,
    parties: Arc<InMemoryPartyStore>,
    clock: ManualClock,
    wiring: TestWiring,
}

async fn world() -> World {
    world_with(|_| {}).await
}

async fn world_with(adjust: impl FnOnce(&mut Config)) -> World {
    let mut w = TestWiring::new();
    adjust(&mut w.config);
    for name in ["alice", "bob", "carol", "dave", "eve"] {
        connected(&*w.tables.players, name, &format!("c-{name}"), T0 - 1_000).await;
    }
    World {
        players: w.tables.players.clone(),
        messages: w.tables.messages.clone(),
        parties: w.tables.parties.clone(),
        clock: w.clock.clone(),
        wiring: w,
    }
}

impl World {
    fn handler(&self) -> PartyHandler {
        wire(&self.wiring.wiring())
    }

    async fn send(&self, from: &str, route: &str, body: Value) -> Value {
        let text = json!({"route": route, "requestId": "r1", "body": body}).to_string();
        let event = route_event(route, from, &format!("c-{from}"), T0, Some(&text));
        reply_frame(&self.handler().handle(event).await.unwrap())
    }

    /// Sends and asserts an ack.
    async fn ok(&self, from: &str, route: &str, body: Value) -> Value {
        let reply = self.send(from, route, body.clone()).await;
        assert_eq!(reply["type"], "ack", "{from} {route} {body}: {reply}");
        reply
    }

    /// Sends and asserts an error with `code`.
    async fn refused(&self, from: &str, route: &str, body: Value, code: &str) -> Value {
        let reply = self.send(from, route, body.clone()).await;
        assert_eq!(reply["type"], "error", "{from} {route} {body}: {reply}");
        assert_eq!(reply["code"], code, "{from} {route} {body}: {reply}");
        assert_eq!(reply["route"], route);
        assert_eq!(reply["requestId"], "r1");
        reply
    }

    /// alice creates a party and every one of `others` is invited and joins; its id.
    async fn party_of(&self, others: &[&str]) -> String {
        let created = self.ok("alice", CREATE, json!({})).await;
        let party_id = created["party"]["partyId"].as_str().unwrap().to_owned();
        for name in others {
            self.ok("alice", INVITE, json!({"playerId": name})).await;
            self.ok(name, JOIN, json!({"partyId": party_id})).await;
        }
        party_id
    }

    /// The party frames in `name`'s inbox, oldest first.
    async fn frames(&self, name: &str) -> Vec<Value> {
        frames(&*self.messages, name, MessageKind::Party, T0).await
    }

    async fn link(&self, name: &str) -> Option<String> {
        let record = player_record(&*self.players, name).await;
        record.party_id.map(|p| p.to_string())
    }
}

fn members(party: &Value) -> Vec<&str> {
    party["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["playerId"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn given_a_player_when_creating_a_party_then_they_lead_it_and_are_told_at_version_1() {
    let w = world().await;
    let ack = w.ok("alice", CREATE, json!({"maxSize": 3})).await;
    let party = &ack["party"];
    assert_eq!(party["leaderId"], "alice");
    assert_eq!(party["maxSize"], 3);
    assert_eq!(party["version"], 1);
    assert_eq!(members(party), ["alice"]);
    assert_eq!(party["members"][0]["presence"], "online");
    let frames = w.frames("alice").await;
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0]["type"], "party");
    assert_eq!(frames[0]["change"], "created");
    assert_eq!(frames[0]["party"], *party);
    assert!(frames[0]["seq"].is_u64());
    assert_eq!(
        w.link("alice").await,
        party["partyId"].as_str().map(str::to_owned)
    );
}

#[tokio::test]
async fn given_a_player_in_a_party_when_creating_another_then_conflict_naming_it() {
    let w = world().await;
    let party_id = w.party_of(&[]).await;
    let reply = w.refused("alice", CREATE, json!({}), "conflict").await;
    assert!(
        reply["message"].as_str().unwrap().contains(&party_id),
        "{reply}"
    );
    assert_eq!(w.parties.all().len(), 1);
}

#[tokio::test]
async fn given_an_invitation_when_the_invitee_joins_then_everyone_is_told_at_version_2() {
    let w = world().await;
    let party_id = w.party_of(&[]).await;
    let invited = w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    assert_eq!(invited["partyId"], party_id.as_str());
    assert_eq!(invited["playerId"], "bob");
    assert_eq!(invited["expiresAt"], T0 + 300_000);
    let bob = w.frames("bob").await;
    assert_eq!(
        bob[0],
        json!({"type": "party_invite", "partyId": party_id, "from": "alice",
               "expiresAt": T0 + 300_000, "seq": bob[0]["seq"]})
    );

    let joined = w.ok("bob", JOIN, json!({"partyId": party_id})).await;
    assert_eq!(members(&joined["party"]), ["alice", "bob"]);
    assert_eq!(joined["party"]["version"], 2);
    for name in ["alice", "bob"] {
        let last = w.frames(name).await.pop().unwrap();
        assert_eq!(last["change"], "joined", "{name}");
        assert_eq!(last["playerId"], "bob", "{name}");
        assert_eq!(last["party"], joined["party"], "{name}");
    }
    // The invitation is used up.
    w.ok("bob", LEAVE, json!({})).await;
    w.refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
}

#[tokio::test]
async fn given_no_live_invitation_or_no_such_party_when_joining_then_not_found() {
    let w = world().await;
    let party_id = w.party_of(&[]).await;
    w.refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
    w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    w.clock.advance(300_000);
    let expired = w
        .refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
    assert_refused(&expired, "not_found", "no live invitation");
    w.refused(
        "bob",
        JOIN,
        json!({"partyId": "no-such-party"}),
        "not_found",
    )
    .await;
    assert_eq!(w.link("bob").await, None);
}

#[tokio::test]
async fn given_a_full_party_when_inviting_or_joining_then_conflict() {
    let w = world().await;
    let created = w.ok("alice", CREATE, json!({"maxSize": 2})).await;
    let party_id = created["party"]["partyId"].as_str().unwrap();
    w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    w.ok("alice", INVITE, json!({"playerId": "carol"})).await;
    w.ok("bob", JOIN, json!({"partyId": party_id})).await;
    let full = w
        .refused("carol", JOIN, json!({"partyId": party_id}), "conflict")
        .await;
    assert!(full["message"].as_str().unwrap().contains("full"), "{full}");
    w.refused("alice", INVITE, json!({"playerId": "dave"}), "conflict")
        .await;
}

#[tokio::test]
async fn given_an_id_nobody_has_when_inviting_then_not_found_and_nothing_is_stored() {
    let w = world().await;
    w.party_of(&[]).await;
    w.refused("alice", INVITE, json!({"playerId": "nobody"}), "not_found")
        .await;
    assert!(inbox(&*w.messages, "nobody", T0).await.is_empty());
}

#[tokio::test]
async fn given_invitations_for_leaders_only_when_a_member_invites_then_forbidden() {
    let w = world_with(|c| c.parties.invite_leader_only = true).await;
    w.party_of(&["bob"]).await;
    w.refused("bob", INVITE, json!({"playerId": "carol"}), "forbidden")
        .await;
    w.ok("alice", INVITE, json!({"playerId": "carol"})).await;
}

#[tokio::test]
async fn given_any_member_may_invite_when_a_member_invites_then_the_invitation_is_from_them() {
    let w = world().await;
    w.party_of(&["bob"]).await;
    w.ok("bob", INVITE, json!({"playerId": "carol"})).await;
    assert_eq!(w.frames("carol").await[0]["from"], "bob");
}

#[tokio::test]
async fn given_a_declined_invitation_then_the_inviter_is_told_and_it_cannot_be_taken_up() {
    let w = world().await;
    let party_id = w.party_of(&[]).await;
    w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    let ack = w.ok("bob", DECLINE, json!({"partyId": party_id})).await;
    assert_eq!(ack["partyId"], party_id.as_str());
    let told = w.frames("alice").await.pop().unwrap();
    assert_eq!(told["type"], "party_invite_declined");
    assert_eq!(told["playerId"], "bob");
    assert_eq!(told["partyId"], party_id.as_str());
    w.refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
    w.refused("bob", DECLINE, json!({"partyId": party_id}), "not_found")
        .await;
}

#[tokio::test]
async fn given_a_member_who_is_not_the_leader_when_kicking_or_promoting_then_forbidden() {
    let w = world().await;
    w.party_of(&["bob", "carol"]).await;
    for route in [KICK, PROMOTE] {
        let reply = w
            .refused("bob", route, json!({"playerId": "carol"}), "forbidden")
            .await;
        assert!(
            reply["message"].as_str().unwrap().contains("alice"),
            "names the leader: {reply}"
        );
    }
    w.refused("alice", KICK, json!({"playerId": "dave"}), "not_found")
        .await;
    w.refused("alice", KICK, json!({"playerId": "alice"}), "bad_request")
        .await;
    w.refused("alice", PROMOTE, json!({"playerId": "alice"}), "conflict")
        .await;
    w.refused("dave", KICK, json!({"playerId": "bob"}), "not_found")
        .await;
}

#[tokio::test]
async fn given_the_leader_when_kicking_then_the_member_is_out_and_everyone_including_them_is_told()
{
    let w = world().await;
    let party_id = w.party_of(&["bob", "carol"]).await;
    let ack = w.ok("alice", KICK, json!({"playerId": "bob"})).await;
    assert_eq!(members(&ack["party"]), ["alice", "carol"]);
    assert_eq!(w.link("bob").await, None);
    for name in ["alice", "bob", "carol"] {
        let last = w.frames(name).await.pop().unwrap();
        assert_eq!(last["change"], "kicked", "{name}");
        assert_eq!(last["playerId"], "bob", "{name}");
    }
    w.refused("bob", LEAVE, json!({}), "not_found").await;
    // Kicked is out: back only with a new invitation.
    w.refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
}

#[tokio::test]
async fn given_the_leader_when_promoting_then_the_member_leads_and_everyone_is_told() {
    let w = world().await;
    w.party_of(&["bob"]).await;
    let ack = w.ok("alice", PROMOTE, json!({"playerId": "bob"})).await;
    assert_eq!(ack["party"]["leaderId"], "bob");
    let last = w.frames("alice").await.pop().unwrap();
    assert_eq!(last["change"], "promoted");
    assert_eq!(last["party"]["leaderId"], "bob");
    w.refused("alice", KICK, json!({"playerId": "bob"}), "forbidden")
        .await;
}

#[tokio::test]
async fn given_the_leader_leaves_then_the_longest_standing_member_leads_and_the_last_one_disbands()
{
    let w = world().await;
    let party_id = w.party_of(&["bob", "carol"]).await;
    let ack = w.ok("alice", LEAVE, json!({})).await;
    assert_eq!(ack["partyId"], party_id.as_str());
    let after = w.frames("carol").await.pop().unwrap();
    assert_eq!(after["change"], "left");
    assert_eq!(after["playerId"], "alice");
    assert_eq!(after["party"]["leaderId"], "bob");
    assert_eq!(w.frames("alice").await.pop().unwrap()["change"], "left");

    w.ok("bob", LEAVE, json!({})).await;
    w.ok("carol", LEAVE, json!({})).await;
    let last = w.frames("carol").await.pop().unwrap();
    assert_eq!(last["change"], "disbanded");
    assert_eq!(last["party"]["members"], json!([]));
    assert!(w.parties.all().is_empty());
    w.ok("carol", CREATE, json!({})).await;
}

#[tokio::test]
async fn given_a_player_in_no_party_when_acting_on_one_then_not_found() {
    let w = world().await;
    for (route, body) in [
        (LEAVE, json!({})),
        (INVITE, json!({"playerId": "bob"})),
        (KICK, json!({"playerId": "bob"})),
        (PROMOTE, json!({"playerId": "bob"})),
    ] {
        let reply = w.refused("dave", route, body, "not_found").await;
        assert_eq!(reply["message"], "you are not in a party", "{route}");
    }
}

#[tokio::test]
async fn given_bad_input_on_each_route_then_bad_request_names_the_field_and_nothing_changes() {
    let w = world().await;
    w.party_of(&["bob"]).await;
    let before = w.parties.all();
    for (route, body, field) in [
        (CREATE, json!({"maxSize": 1}), "maxSize"),
        (CREATE, json!({"maxSize": 11}), "maxSize"),
        (CREATE, json!({"maxSize": "two"}), "maxSize"),
        (INVITE, json!({}), "playerId"),
        (INVITE, json!({"playerId": 5}), "playerId"),
        (INVITE, json!({"playerId": "x/y"}), "playerId"),
        (INVITE, json!({"playerId": "alice"}), "yourself"),
        (JOIN, json!({}), "partyId"),
        (JOIN, json!({"partyId": true}), "partyId"),
        (JOIN, json!({"partyId": "a b"}), "partyId"),
        (DECLINE, json!({"partyId": ""}), "partyId"),
        (KICK, json!({}), "playerId"),
        (PROMOTE, json!({"playerId": "é"}), "playerId"),
    ] {
        let reply = w.refused("alice", route, body.clone(), "bad_request").await;
        let message = reply["message"].as_str().unwrap();
        assert!(message.contains(field), "{route} {body}: {message}");
    }
    assert_eq!(w.parties.all(), before, "nothing changed");
}

#[tokio::test]
async fn given_a_size_above_the_stacks_party_max_size_when_creating_then_forbidden_not_malformed() {
    // Given a stack whose parties hold at most 4 (PARTY_MAX_SIZE)
    let w = world_with(|config| config.parties.max_size = 4).await;
    let before = w.parties.all();
    // When alice asks for 5, a size the protocol allows (2–10)
    let reply = w
        .refused("alice", CREATE, json!({"maxSize": 5}), "forbidden")
        .await;
    // Then this stack refuses it, saying its limit, and makes no party
    assert_eq!(
        reply["message"],
        "`maxSize` is 5; parties here hold at most 4 players"
    );
    assert_eq!(w.parties.all(), before, "nothing changed");
    // And the limit itself is fine
    w.ok("alice", CREATE, json!({"maxSize": 4})).await;
}

#[tokio::test]
async fn given_invitations_over_the_rate_limit_then_rate_limited_and_nobody_is_invited() {
    let w = world_with(|c| c.rate_limits.party_invites_per_minute = 2).await;
    w.party_of(&[]).await;
    w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    w.ok("alice", INVITE, json!({"playerId": "carol"})).await;
    let limited = w
        .refused("alice", INVITE, json!({"playerId": "dave"}), "rate_limited")
        .await;
    assert!(limited["retryAfterMs"].as_i64().unwrap() > 0);
    assert!(w.frames("dave").await.is_empty());
}

#[tokio::test]
async fn given_the_store_down_when_acting_then_unavailable_and_the_socket_stays_usable() {
    let mut w = world().await.wiring;
    let down = Arc::new(contracts::unavailable::Unavailable);
    w.replace::<dyn PlayerReader>(down.clone())
        .replace::<dyn RateLimiter>(down.clone())
        .replace::<dyn PartyReader>(down.clone())
        .replace::<dyn PartyCommits>(down);
    let handler = wire(&w.wiring());
    for (route, body) in [
        (CREATE, json!({})),
        (INVITE, json!({"playerId": "bob"})),
        (JOIN, json!({"partyId": "p1"})),
        (DECLINE, json!({"partyId": "p1"})),
        (LEAVE, json!({})),
        (KICK, json!({"playerId": "bob"})),
        (PROMOTE, json!({"playerId": "bob"})),
    ] {
        let text = json!({"route": route, "requestId": "r9", "body": body}).to_string();
        let event = route_event(route, "alice", "c-alice", T0, Some(&text));
        let reply = reply_frame(&handler.handle(event).await.unwrap());
        assert_eq!(reply["code"], "unavailable", "{route}: {reply}");
        assert_eq!(reply["requestId"], "r9", "{route}");
    }
}

#[tokio::test]
async fn given_a_route_this_function_does_not_serve_then_a_wiring_fault() {
    let w = world().await;
    let text = json!({"route": "heartbeat"}).to_string();
    let event = route_event("heartbeat", "alice", "c-alice", T0, Some(&text));
    assert!(w.handler().handle(event).await.is_err());
}

#[tokio::test]
async fn given_two_members_acting_at_once_then_both_changes_land_one_after_the_other() {
    let w = world().await;
    w.party_of(&["bob", "carol", "dave"]).await;
    let handler = w.handler();
    let event = |from: &str, route: &str, body: Value| {
        let text = json!({"route": route, "body": body}).to_string();
        route_event(route, from, &format!("c-{from}"), T0, Some(&text))
    };
    let (left, promoted) = tokio::join!(
        handler.handle(event("carol", LEAVE, json!({}))),
        handler.handle(event("alice", PROMOTE, json!({"playerId": "bob"}))),
    );
    assert_eq!(reply_frame(&left.unwrap())["type"], "ack");
    assert_eq!(reply_frame(&promoted.unwrap())["type"], "ack");
    let [party] = w.parties.all().try_into().unwrap();
    assert_eq!(party.leader_id, PlayerId::parse("bob").unwrap());
    assert_eq!(party.members.len(), 3);
    let versions: Vec<u64> = w
        .frames("dave")
        .await
        .iter()
        .filter_map(|f| f["party"]["version"].as_u64())
        .collect();
    assert!(
        versions.windows(2).all(|v| v[1] == v[0] + 1),
        "{versions:?}"
    );
}

/// Runs a sample event from events/ through the handler and returns its reply frame.
async fn run_sample(w: &World, raw: &str) -> Value {
    let raw: Value = serde_json::from_str(raw).unwrap();
    reply_frame(
        &w.handler()
            .handle(contracts::events::parse_event(raw))
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn the_sample_party_events_run_through_the_handler() {
    // Given alice, bob and the others connected; the samples name a party id nobody made.
    let w = world().await;

    // When alice creates a party and invites bob (samples), then both are acked.
    let created = run_sample(&w, include_str!("../../../events/party-create.json")).await;
    assert_eq!(created["type"], "ack", "{created}");
    assert_eq!(created["requestId"], "createParty-1");
    let invited = run_sample(&w, include_str!("../../../events/party-invite.json")).await;
    assert_eq!(invited["type"], "ack", "{invited}");

    // Then joining or declining the samples' party id is not_found (nobody made it), and
    // promoting or kicking bob, who has not joined, is refused with a typed error.
    for raw in [
        include_str!("../../../events/party-join.json"),
        include_str!("../../../events/party-decline.json"),
    ] {
        let refused = run_sample(&w, raw).await;
        assert_eq!(refused["code"], "not_found", "{refused}");
    }
    for raw in [
        include_str!("../../../events/party-promote.json"),
        include_str!("../../../events/party-kick.json"),
    ] {
        let refused = run_sample(&w, raw).await;
        assert_eq!(refused["type"], "error", "{refused}");
        assert!(refused["requestId"].is_string(), "{refused}");
    }

    // And alice leaving (sample) is acked: the last member leaving disbands the party.
    let left = run_sample(&w, include_str!("../../../events/party-leave.json")).await;
    assert_eq!(left["type"], "ack", "{left}");
    assert_eq!(w.link("alice").await, None);
}

#[tokio::test]
async fn given_an_invitee_who_blocked_the_inviter_when_invited_then_acked_alike_and_nothing_reaches_them()
 {
    use contracts::friend_store_contract::act;
    use shared::friends::{Action, FriendCommitted};

    let w = world().await;
    let party_id = w.party_of(&[]).await;
    let friends = &*w.wiring.tables.friends;
    assert_eq!(
        act(friends, "bob", "alice", Action::Block, T0).await,
        FriendCommitted::Done
    );
    let blocked = w.ok("alice", INVITE, json!({"playerId": "bob"})).await;
    let open = w.ok("alice", INVITE, json!({"playerId": "carol"})).await;
    // The same answer as an invitation that went through.
    assert_eq!(blocked["partyId"], open["partyId"]);
    assert_eq!(blocked["expiresAt"], open["expiresAt"]);
    assert_eq!(blocked["playerId"], "bob");
    assert!(w.frames("bob").await.is_empty());
    assert_eq!(w.frames("carol").await.len(), 1);
    w.refused("bob", JOIN, json!({"partyId": party_id}), "not_found")
        .await;
}
