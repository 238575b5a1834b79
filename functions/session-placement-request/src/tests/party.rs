//! A party's placement, and `setPlacementLatencies`.

use std::sync::Arc;

use contracts::events::{reply_frame, route_event};
use contracts::fake_gamelift::FakeGameLift;
use contracts::fixtures::{T0, connected, player, player_record};
use contracts::ports::*;
use edge::websocket::RouteHandler;
use memory_adapters::test_wiring::TestWiring;
use memory_adapters::{InMemoryPlacementStore, InMemoryPlayerStore};
use serde_json::{Value, json};
use shared::domain::PlacementId;
use shared::party::PartyId;
use shared::pending::{Pending, Reservation};
use shared::placement::PlacementPlayer;
use shared::ports::GameLiftError;

use crate::SessionPlacementRequestHandler;

/// alice leads a party of alice, bob and carol; dave is on his own.
struct World {
    players: Arc<InMemoryPlayerStore>,
    placements: Arc<InMemoryPlacementStore>,
    gamelift: Arc<FakeGameLift>,
    handler: SessionPlacementRequestHandler,
}

async fn world() -> World {
    let mut w = TestWiring::new();
    w.config.rate_limits.placements_per_minute = 0;
    let players = w.tables.players.clone();
    for name in ["alice", "bob", "carol", "dave"] {
        connected(&*players, name, &format!("c-{name}"), T0 - 1_000).await;
    }
    w.party_of(&["alice", "bob", "carol"], 8, T0).await;
    World {
        handler: crate::wire(&w.wiring()),
        players,
        placements: w.tables.placements.clone(),
        gamelift: w.gamelift.clone(),
    }
}

impl World {
    async fn send(&self, from: &str, route: &str, body: Value) -> Value {
        let text = json!({"route": route, "requestId": "q1", "body": body}).to_string();
        let event = route_event(route, from, &format!("c-{from}"), T0, Some(&text));
        reply_frame(&self.handler.handle(event).await.unwrap())
    }

    async fn pending(&self, name: &str) -> Option<Pending> {
        player_record(&*self.players, name).await.pending
    }
}

#[tokio::test]
async fn given_the_leader_when_placing_then_one_placement_seats_every_member_with_their_own_latencies()
 {
    let w = world().await;
    let set = w
        .send(
            "bob",
            "setPlacementLatencies",
            json!({"latencies": {"eu-west-1": 30.4, "us-east-1": 95}}),
        )
        .await;
    assert_eq!(set["type"], "ack", "{set}");
    assert_eq!(set["latencies"], json!({"eu-west-1": 30, "us-east-1": 95}));

    let ack = w
        .send(
            "alice",
            "sessionPlacementRequest",
            json!({"latencies": {"eu-west-1": 12}}),
        )
        .await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let placement_id = PlacementId::parse(ack["placementId"].as_str().unwrap()).unwrap();
    for name in ["alice", "bob", "carol"] {
        assert_eq!(
            w.pending(name).await,
            Some(Pending::Placement(placement_id.clone())),
            "{name}"
        );
    }
    let [started] = w.gamelift.started().try_into().unwrap();
    assert_eq!(started.player_id, player("alice"));
    assert_eq!(started.latencies, vec![("eu-west-1".into(), 12)]);
    assert_eq!(
        started.party,
        vec![
            PlacementPlayer {
                player_id: player("bob"),
                latencies: vec![("eu-west-1".into(), 30), ("us-east-1".into(), 95)],
            },
            PlacementPlayer {
                player_id: player("carol"),
                latencies: Vec::new(),
            },
        ]
    );
    let [record] = w.placements.all().try_into().unwrap();
    assert_eq!(record.requester_id, player("alice"));
    assert_eq!(
        record.player_ids,
        vec![player("alice"), player("bob"), player("carol")]
    );
}

#[tokio::test]
async fn given_a_member_who_is_not_the_leader_when_placing_then_forbidden_and_nothing_placed() {
    let w = world().await;
    let reply = w.send("bob", "sessionPlacementRequest", json!({})).await;
    assert_eq!(reply["code"], "forbidden", "{reply}");
    assert!(
        reply["message"].as_str().unwrap().contains("alice"),
        "{reply}"
    );
    assert!(w.gamelift.started().is_empty());
    assert!(w.placements.all().is_empty());
    for name in ["alice", "bob", "carol"] {
        assert_eq!(w.pending(name).await, None, "{name}");
    }
}

#[tokio::test]
async fn given_the_partys_placement_pending_when_the_leader_places_again_then_conflict_names_the_member_and_it()
 {
    let w = world().await;
    let first = w.send("alice", "sessionPlacementRequest", json!({})).await;
    let pending = first["placementId"].as_str().unwrap().to_owned();
    // The party's placement is still going: asking again names the first member it is
    // pending for.
    let second = w.send("alice", "sessionPlacementRequest", json!({})).await;
    assert_eq!(second["code"], "conflict", "{second}");
    assert_eq!(second["placementId"], pending.as_str());
    assert_eq!(second["playerId"], "alice");
    assert_eq!(w.gamelift.started().len(), 1);
}

#[tokio::test]
async fn given_gamelift_refuses_a_party_placement_then_no_member_is_left_pending() {
    let w = world().await;
    w.gamelift.fail_next_start(GameLiftError::InvalidRequest {
        message: "no capacity here".into(),
    });
    let reply = w.send("alice", "sessionPlacementRequest", json!({})).await;
    assert_eq!(reply["code"], "bad_request", "{reply}");
    for name in ["alice", "bob", "carol"] {
        assert_eq!(w.pending(name).await, None, "{name}");
    }
    let ack = w.send("alice", "sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
}

#[tokio::test]
async fn given_a_player_on_their_own_then_placing_is_as_before_and_the_party_is_not_involved() {
    let w = world().await;
    assert_eq!(
        w.players
            .reserve(&player("bob"), &contracts::fixtures::pending("p-x"))
            .await
            .unwrap(),
        Reservation::InParty(PartyId::parse("party-1").unwrap())
    );
    let ack = w.send("dave", "sessionPlacementRequest", json!({})).await;
    assert_eq!(ack["status"], "PENDING", "{ack}");
    let [started] = w.gamelift.started().try_into().unwrap();
    assert_eq!(started.player_id, player("dave"));
    assert!(started.party.is_empty());
}

#[tokio::test]
async fn given_bad_latencies_then_set_placement_latencies_is_refused_naming_the_field() {
    let w = world().await;
    for body in [
        json!({}),
        json!({"latencies": null}),
        json!({"latencies": [1]}),
        json!({"latencies": {"us-east-1": -1}}),
        json!({"latencies": {"US EAST": 10}}),
    ] {
        let reply = w.send("bob", "setPlacementLatencies", body.clone()).await;
        assert_eq!(reply["code"], "bad_request", "{body}: {reply}");
        assert!(
            reply["message"].as_str().unwrap().contains("latencies"),
            "{body}: {reply}"
        );
    }
    let cleared = w
        .send("bob", "setPlacementLatencies", json!({"latencies": {}}))
        .await;
    assert_eq!(cleared["latencies"], json!({}));
    let record = player_record(&*w.players, "bob").await;
    assert!(record.placement_latencies.is_empty());
}

#[tokio::test]
async fn given_a_player_with_no_item_when_setting_latencies_then_not_found() {
    let w = world().await;
    let reply = w
        .send("nobody", "setPlacementLatencies", json!({"latencies": {}}))
        .await;
    assert_eq!(reply["code"], "not_found", "{reply}");
}
