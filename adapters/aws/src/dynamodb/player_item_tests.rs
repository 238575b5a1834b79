use serde_json::json;

use super::super::item::wire;
use super::*;
use contracts::fixtures::{pending, seat};

fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_owned())
}

fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn online_item() -> Item {
    wire::from_json(json!({
        "playerId": {"S": "alice"}, "connectionId": {"S": "c1"},
        "endpoint": {"S": "https://api.example/prod"}, "connectedAt": {"N": "10"},
        "lastSeen": {"N": "11"}, "status": {"S": "online"}, "sweepShard": {"N": "2"},
        "sweepAt": {"N": "100"}, "previousStatus": {"S": "disconnected"},
        "previousSweepAt": {"N": "40"}, "expireAt": {"N": "1000"}
    }))
}

fn corrupt(result: Result<impl std::fmt::Debug, StoreError>) -> String {
    match result {
        Err(StoreError::Corrupt { key, reason }) => {
            assert_eq!(key, "playerId=alice");
            reason
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn given_an_online_item_when_read_then_every_field_maps() {
    let record = required_record(&online_item()).unwrap();
    assert_eq!(
        record,
        PlayerRecord {
            player_id: PlayerId::parse("alice").unwrap(),
            connection_id: ConnectionId::parse("c1").unwrap(),
            endpoint: "https://api.example/prod".into(),
            connected_at: 10,
            last_seen: 11,
            status: PresenceStatus::Online,
            sweep_at: Some(100),
            previous_status: Some(PresenceStatus::Disconnected),
            previous_sweep_at: Some(40),
            previous_connection_id: None,
            previous_endpoint: None,
            previous_last_seen: None,
            live_connection_id: None,
            live_from: None,
            acked_seq: None,
            pending: None,
            last_request: None,
            game_session: None,
            ended_game_session: None,
            party_id: None,
            placement_latencies: Vec::new(),
            matchmaking_attributes: Default::default(),
            activity: None,
        }
    );
}

#[test]
fn given_game_state_values_when_written_then_they_are_the_ones_the_hand_written_mapping_wrote() {
    // Captured from the hand-written mapping these structs replaced.
    let value = |v: AttributeValue| wire::to_json(&Item::from([("v".to_owned(), v)]))["v"].clone();
    assert_eq!(
        value(game_session_value(&seat()).unwrap()),
        json!({"M": {"gameSessionArn": {"S": "arn:gs"}, "ipAddress": {"S": "10.0.0.1"},
            "dnsName": {"S": "host.example"}, "port": {"N": "7777"}, "region": {"S": "us-east-1"},
            "playerSessionId": {"S": "psess-1"}}})
    );
    let relayed = seat().with_connection(shared::domain::ConnectionDetails {
        endpoints: vec![shared::domain::ConnectionEndpoint {
            ip_address: "198.51.100.7".into(),
            port: 4100,
        }],
        player_gateway_token: Some("pgt-1".into()),
        expires_at: Some(1_800_000),
    });
    assert_eq!(
        value(game_session_value(&relayed).unwrap())["M"]["connection"],
        json!({"S": "{\"endpoints\":[{\"ipAddress\":\"198.51.100.7\",\"port\":4100}],\"playerGatewayToken\":\"pgt-1\",\"expiresAt\":1800000}"})
    );
    let unavailable = seat().with_connection_unavailable();
    assert_eq!(
        value(game_session_value(&unavailable).unwrap())["M"]["connectionUnavailable"],
        json!({"BOOL": true})
    );
    assert_eq!(
        value(pending_value(&pending("p-2")).unwrap()),
        json!({"SS": ["p-2"]})
    );
    assert_eq!(
        value(latencies_value(&[("eu-west-1".into(), 90), ("us-east-1".into(), 40)]).unwrap()),
        json!({"M": {"eu-west-1": {"N": "90"}, "us-east-1": {"N": "40"}}})
    );
    assert_eq!(
        wire::to_json(&key(&PlayerId::parse("alice").unwrap())),
        json!({"playerId": {"S": "alice"}})
    );
    assert_eq!(
        wire::to_json(&sweep_index_key(3, &PlayerId::parse("bob").unwrap()).unwrap()),
        json!({"playerId": {"S": "bob"}, "sweepShard": {"N": "3"}})
    );

    // And an item holding them reads back.
    for seat in [seat(), relayed, unavailable] {
        let mut item = online_item();
        item.insert("gameSession".into(), game_session_value(&seat).unwrap());
        item.insert(
            attr::PENDING_PLACEMENT_ID.into(),
            pending_value(&pending("p-2")).unwrap(),
        );
        item.insert("lastPlacementId".into(), s("p-2"));
        item.insert(attr::PARTY_ID.into(), s("party-1"));
        item.insert(
            "placementLatencies".into(),
            latencies_value(&[("us-east-1".into(), 40), ("eu-west-1".into(), 90)]).unwrap(),
        );
        let activity: Activity =
            serde_json::from_value(json!({"activity": "in lobby", "details": {"map": "dust"}}))
                .unwrap();
        item.insert(attr::ACTIVITY.into(), activity_value(&activity));
        let record = required_record(&item).unwrap();
        assert_eq!(record.activity, Some(activity));
        assert_eq!(record.game_session, Some(seat));
        assert_eq!(record.pending, Some(pending("p-2")));
        assert_eq!(record.last_request, Some(pending("p-2")));
        assert_eq!(record.party_id, Some(PartyId::parse("party-1").unwrap()));
        assert_eq!(
            record.placement_latencies,
            vec![("eu-west-1".into(), 90), ("us-east-1".into(), 40)]
        );
        assert_eq!(pending_of(&item).unwrap(), Some(pending("p-2")));
        assert_eq!(party_of(&item).unwrap(), record.party_id);
    }
}

#[test]
fn given_the_names_expressions_use_then_they_are_the_items_attributes() {
    let item = PlayerItem {
        player_id: "alice".into(),
        connection_id: Some(ConnectionId::parse("c1").unwrap()),
        endpoint: Some("e".into()),
        connected_at: Some(1),
        last_seen: Some(1),
        status: Some(PresenceStatus::Online),
        sweep_shard: Some(1),
        expire_at: Some(1),
        pending_placement_id: Some(PendingAttribute::One("p-1".into())),
        party_id: Some(PartyId::parse("party-1").unwrap()),
        activity: Some("{}".into()),
        ..PlayerItem::default()
    };
    let item = item::to_item(&item).unwrap();
    for name in [
        attr::PLAYER_ID,
        attr::CONNECTION_ID,
        attr::ENDPOINT,
        attr::CONNECTED_AT,
        attr::LAST_SEEN,
        attr::STATUS,
        attr::SWEEP_SHARD,
        attr::EXPIRE_AT,
        attr::PENDING_PLACEMENT_ID,
        attr::PARTY_ID,
        attr::ACTIVITY,
    ] {
        assert!(item.contains_key(name), "{name}");
    }
}

#[test]
fn given_a_pending_request_stored_as_a_string_when_read_then_it_is_the_request() {
    let mut item = online_item();
    item.insert(attr::PENDING_PLACEMENT_ID.into(), s("p-1"));
    assert_eq!(
        required_record(&item).unwrap().pending,
        Some(pending("p-1"))
    );
}

#[test]
fn given_a_stored_request_id_that_is_not_one_when_read_then_it_is_corrupt_naming_the_attribute() {
    for (name, value) in [
        (attr::PENDING_PLACEMENT_ID, s("p/1")),
        (
            attr::PENDING_PLACEMENT_ID,
            AttributeValue::Ss(vec!["x".repeat(49)]),
        ),
        ("lastPlacementId", s("")),
    ] {
        let mut item = online_item();
        item.insert(name.into(), value.clone());
        let reason = corrupt(record_from_item(&item));
        assert!(
            reason.starts_with(&format!("Players item: {name}: placement id")),
            "{reason}"
        );
    }
    let mut item = online_item();
    item.insert(attr::PENDING_PLACEMENT_ID.into(), s("p/1"));
    assert!(corrupt(pending_of(&item)).contains("'/' at position 1"));
    item.insert(attr::PENDING_PLACEMENT_ID.into(), n(1));
    corrupt(record_from_item(&item));
}

#[test]
fn given_the_no_previous_markers_when_read_then_they_map_to_none() {
    let mut item = online_item();
    item.insert("previousStatus".into(), s(NO_PREVIOUS_STATUS));
    item.insert("previousSweepAt".into(), n(NO_PREVIOUS_SWEEP_AT));
    item.remove("sweepAt");
    let record = required_record(&item).unwrap();
    assert_eq!(record.previous_status, None);
    assert_eq!(record.previous_sweep_at, None);
    assert_eq!(record.sweep_at, None);
}

#[test]
fn given_an_item_with_game_state_only_when_read_then_it_holds_no_connection() {
    let item =
        wire::from_json(json!({"playerId": {"S": "alice"}, "pendingPlacementId": {"S": "p-1"}}));
    assert_eq!(record_from_item(&item).unwrap(), None);
    assert!(corrupt(required_record(&item)).contains("connectionId and status are missing"));
}

#[test]
fn given_a_corrupt_item_when_read_then_the_error_names_the_table_key_and_attribute() {
    for (name, value) in [
        (attr::STATUS, s("sleeping")),
        (attr::CONNECTED_AT, s("yesterday")),
        (attr::LAST_SEEN, n("1e400")),
        (attr::CONNECTION_ID, s("a/b")),
        (attr::PARTY_ID, s("a b")),
    ] {
        let mut item = online_item();
        item.insert(name.into(), value);
        let reason = corrupt(record_from_item(&item));
        assert!(
            reason.starts_with(&format!("Players item: {name}: ")),
            "{reason}"
        );
    }
    let mut item = online_item();
    item.remove(attr::ENDPOINT);
    assert_eq!(
        corrupt(record_from_item(&item)),
        "Players item: endpoint: missing"
    );
    let mut item = online_item();
    let AttributeValue::M(mut seat) = game_session_value(&seat()).unwrap() else {
        unreachable!()
    };
    seat.insert("port".into(), n(70_000));
    item.insert("gameSession".into(), AttributeValue::M(seat));
    assert!(corrupt(record_from_item(&item)).starts_with("Players item: gameSession.port: "));
}

#[test]
fn given_an_index_key_or_a_tracked_item_when_the_sweeper_reads_it_then_only_an_online_one_names_its_socket()
 {
    let after = PlayerId::parse("bob").unwrap();
    let index_key = sweep_index_key(3, &after).unwrap();
    assert_eq!(player_of_key(&index_key).unwrap(), after);
    let deadline = sweep_deadline(&index_key).unwrap();
    assert_eq!((deadline.player_id, deadline.sweep_at), (after, None));
    assert!(deadline.online_connection.is_none());

    let mut item = online_item();
    let socket = sweep_deadline(&item).unwrap().online_connection.unwrap();
    assert_eq!(socket.connection_id.as_str(), "c1");
    assert_eq!(socket.endpoint, "https://api.example/prod");
    item.insert(attr::STATUS.to_owned(), s("disconnected"));
    assert_eq!(sweep_deadline(&item).unwrap().online_connection, None);
    item.insert(attr::STATUS.to_owned(), s("online"));
    item.remove(attr::ENDPOINT);
    assert!(
        sweep_deadline(&item).is_err(),
        "an online item without endpoint is corrupt"
    );
}
