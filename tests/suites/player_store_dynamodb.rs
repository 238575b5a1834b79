//! The `PlayerStore` contract suite on the DynamoDB adapter, against DynamoDB Local
//! (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`). Every scenario gets its
//! own table.

mod contract {
    use aws_adapters::dynamodb::DynamoPlayerStore;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn store() -> DynamoPlayerStore {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        DynamoPlayerStore::new(client, table)
    }

    contracts::player_store_contract_tests!(store);
    contracts::rate_limiter_contract_tests!(store);

    /// The Players table, and heartbeats as the deployed route records them (its
    /// mapping template on DynamoDB Local).
    async fn with_heartbeats() -> contracts::player_store_contract::HeartbeatStores {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        contracts::player_store_contract::HeartbeatStores {
            players: std::sync::Arc::new(DynamoPlayerStore::new(client.clone(), table.clone())),
            heartbeats: std::sync::Arc::new(tests::heartbeats::TemplateHeartbeats::new(
                client, table,
            )),
        }
    }

    contracts::heartbeat_contract_tests!(with_heartbeats);
}

mod rate_limit {

    use aws_adapters::dynamodb::DynamoPlayerStore;
    use aws_sdk_dynamodb::types::AttributeValue;
    use contracts::fixtures::{T0, new_connection, player};
    use contracts::ports::*;
    use shared::ports::RateLimiter;
    use shared::rate_limits::{Bucket, Quota, Spent, WINDOW_MS};
    use tests::dynamodb::calls;
    use tests::dynamodb::{Table, counted_client};

    const QUOTA: Quota = Quota {
        calls: 2,
        units: 300,
    };

    #[tokio::test]
    async fn a_spend_is_one_write_a_refusal_too_and_a_new_window_one_more() {
        let (client, counter) = counted_client().await;
        let table = Table::Players.fresh(&client).await;
        let store = DynamoPlayerStore::new(client.clone(), table.clone());
        store
            .connect(&new_connection("alice", "c-alice", T0 - 1_000))
            .await
            .unwrap();
        let alice = player("alice");
        let spend = |units, at| store.spend(&alice, Bucket::SendMessage, QUOTA, units, at);
        counter.take();

        // The window's first call: the counting write fails (no window yet), the
        // restart writes.
        assert_eq!(spend(100, T0).await.unwrap(), Spent::Allowed);
        assert_eq!(counter.take(), calls(&[("UpdateItem", 2)]));
        // Within the window: one write.
        assert_eq!(spend(100, T0 + 1).await.unwrap(), Spent::Allowed);
        assert_eq!(counter.take(), calls(&[("UpdateItem", 1)]));
        // Refused: one (failed) write, its old item says why.
        assert!(matches!(
            spend(1, T0 + 2).await.unwrap(),
            Spent::Limited { .. }
        ));
        assert_eq!(counter.take(), calls(&[("UpdateItem", 1)]));
        // More units than a whole window holds: refused with no call at all.
        assert!(matches!(
            spend(301, T0 + 3).await.unwrap(),
            Spent::Limited { .. }
        ));
        assert_eq!(counter.take(), calls(&[]));
        // With the quota off: nothing.
        let off = Quota { calls: 0, units: 0 };
        store
            .spend(&alice, Bucket::SendMessage, off, 100, T0 + 4)
            .await
            .unwrap();
        assert_eq!(counter.take(), calls(&[]));
        // The next window: two writes again.
        assert_eq!(spend(1, T0 + WINDOW_MS).await.unwrap(), Spent::Allowed);
        assert_eq!(counter.take(), calls(&[("UpdateItem", 2)]));

        // The window is three numbers on alice's item.
        let item = client
            .get_item()
            .table_name(&table)
            .key("playerId", AttributeValue::S("alice".into()))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        let number = |name: &str| item[name].as_n().unwrap().clone();
        assert_eq!(number("sendMessageWindow"), (T0 + WINDOW_MS).to_string());
        assert_eq!(number("sendMessageCalls"), "1");
        assert_eq!(number("sendMessageUnits"), "1");
    }
}

mod dynamodb_specific {
    use std::collections::HashMap;

    use aws_adapters::dynamodb::{DynamoPlayerStore, SWEEP_INDEX};
    use aws_sdk_dynamodb::config::retry::RetryConfig;
    use aws_sdk_dynamodb::types::{AttributeValue, IndexStatus, KeyType, ProjectionType};
    use contracts::ports::*;
    use shared::domain::{ConnectionId, PlayerId, PresenceStatus};
    use shared::players::{ConnectOutcome, NewConnection};
    use shared::ports::StoreError;
    use tests::dynamodb::{Table, dynamodb_local, key_pairs};

    const T0: i64 = 4_102_444_800_000; // 2100: DynamoDB Local's TTL sweeper deletes items whose expireAt is past

    fn alice() -> PlayerId {
        PlayerId::parse("alice").unwrap()
    }

    fn connection(c: &str, at: i64) -> NewConnection {
        NewConnection {
            player_id: alice(),
            connection_id: ConnectionId::parse(c).unwrap(),
            endpoint: "https://api.example/prod".into(),
            connected_at: at,
            now: at,
            heartbeat_deadline: at + 90_000,
            sweep_shard: alice().sweep_shard(4),
            expire_at_secs: at / 1000 + 86_400,
        }
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    async fn put(client: &aws_sdk_dynamodb::Client, table: &str, item: &[(&str, AttributeValue)]) {
        let item: HashMap<String, AttributeValue> = item
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item))
            .send()
            .await
            .expect("put_item");
    }

    #[tokio::test]
    async fn the_players_table_is_created_as_the_template_defines_it_and_idempotently() {
        let description = Table::Players.created_twice().await;
        let keys = key_pairs(description.key_schema());
        assert_eq!(keys, vec![("playerId", KeyType::Hash)]);
        let [index] = description.global_secondary_indexes() else {
            panic!("one GSI: {description:?}");
        };
        assert_eq!(index.index_name(), Some(SWEEP_INDEX));
        let keys = key_pairs(index.key_schema());
        assert_eq!(keys, vec![("sweepShard", KeyType::Hash)]);
        assert_eq!(
            index.projection().and_then(|p| p.projection_type()),
            Some(&ProjectionType::KeysOnly)
        );
        assert_eq!(index.index_status(), Some(&IndexStatus::Active));
    }

    #[tokio::test]
    async fn connect_writes_the_item_the_design_describes() {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        let store = DynamoPlayerStore::new(client.clone(), table.clone());
        store.connect(&connection("c1", T0)).await.unwrap();
        let item = client
            .get_item()
            .table_name(&table)
            .key("playerId", s("alice"))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        let n = |v: i64| AttributeValue::N(v.to_string());
        let expected: HashMap<String, AttributeValue> = [
            ("playerId", s("alice")),
            ("connectionId", s("c1")),
            ("endpoint", s("https://api.example/prod")),
            ("connectedAt", n(T0)),
            ("lastSeen", n(T0)),
            ("status", s("online")),
            ("sweepShard", n(i64::from(alice().sweep_shard(4)))),
            ("sweepAt", n(T0 + 90_000)),
            ("expireAt", n(T0 / 1000 + 86_400)),
            ("previousStatus", s("none")),
            ("previousSweepAt", n(0)),
            ("previousConnectionId", s("none")),
            ("previousEndpoint", s("none")),
            ("previousLastSeen", n(0)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(item, expected);
    }

    /// Other writers may create the item with game state only (e.g. `gameSession` after
    /// a placement): that is "no connection yet", so the next `$connect` is a new session
    /// and keeps the game state.
    #[tokio::test]
    async fn an_item_with_game_state_only_is_a_new_session_and_keeps_its_state() {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        put(
            &client,
            &table,
            &[("playerId", s("alice")), ("pendingPlacementId", s("p-1"))],
        )
        .await;
        let store = DynamoPlayerStore::new(client.clone(), table.clone());
        assert_eq!(store.get(&alice()).await.unwrap(), None);
        assert_eq!(
            store.connect(&connection("c1", T0)).await.unwrap(),
            ConnectOutcome::New
        );
        let record = store.get(&alice()).await.unwrap().expect("record");
        assert_eq!(record.status, PresenceStatus::Online);
        assert!(!record.resumed());
        let item = client
            .get_item()
            .table_name(&table)
            .key("playerId", s("alice"))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        assert_eq!(item.get("pendingPlacementId"), Some(&s("p-1")));
    }

    #[tokio::test]
    async fn a_corrupt_item_is_reported_with_its_key_and_reason() {
        let client = dynamodb_local().await;
        let table = Table::Players.fresh(&client).await;
        put(
            &client,
            &table,
            &[
                ("playerId", s("alice")),
                ("connectionId", s("c1")),
                ("endpoint", s("https://api.example/prod")),
                ("connectedAt", AttributeValue::N(T0.to_string())),
                ("lastSeen", AttributeValue::N(T0.to_string())),
                ("status", s("sleeping")),
            ],
        )
        .await;
        let store = DynamoPlayerStore::new(client, table);
        match store.get(&alice()).await {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "playerId=alice");
                assert!(reason.contains("status"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_missing_table_is_a_fault_and_an_unreachable_endpoint_is_unavailable() {
        let client = dynamodb_local().await;
        let store = DynamoPlayerStore::new(client.clone(), "no-such-table");
        assert!(
            matches!(store.get(&alice()).await, Err(StoreError::Other(_))),
            "ResourceNotFoundException is a fault"
        );

        // Nothing listens on port 9 of the loopback; one attempt, no retries.
        let unreachable = aws_sdk_dynamodb::Client::from_conf(
            client
                .config()
                .to_builder()
                .endpoint_url("http://127.0.0.1:9")
                .retry_config(RetryConfig::disabled())
                .build(),
        );
        let store = DynamoPlayerStore::new(unreachable, "players");
        assert!(matches!(
            store.get(&alice()).await,
            Err(StoreError::Unavailable(_))
        ));
    }
}
