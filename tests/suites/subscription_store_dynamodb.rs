//! The `SubscriptionStore` contract suite on the DynamoDB adapter, against DynamoDB
//! Local (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`). Every scenario gets
//! its own table.

mod contract {
    use aws_adapters::dynamodb::DynamoSubscriptionStore;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn store() -> DynamoSubscriptionStore {
        let client = dynamodb_local().await;
        let table = Table::Subscriptions.fresh(&client).await;
        DynamoSubscriptionStore::new(client, table)
    }

    contracts::subscription_store_contract_tests!(store);

    /// The same suite reading watchers 4 items per Query, so every listing pages (and
    /// some pages are filtered down to nothing).
    mod with_small_pages {
        use super::*;

        async fn store_paging_by_4() -> DynamoSubscriptionStore {
            store().await.with_page_limit(4)
        }

        contracts::subscription_store_contract_tests!(store_paging_by_4);
    }
}

mod dynamodb_specific {
    use std::collections::HashMap;

    use aws_adapters::call_counter::CallCounter;
    use aws_adapters::dynamodb::DynamoSubscriptionStore;
    use aws_sdk_dynamodb::types::{AttributeValue, KeyType};
    use contracts::ports::*;
    use shared::domain::PlayerId;
    use tests::dynamodb::{Table, dynamodb_local, key_pairs};

    fn p(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    #[tokio::test]
    async fn the_subscriptions_table_is_created_as_the_template_defines_it_and_idempotently() {
        let description = Table::Subscriptions.created_twice().await;
        let keys = key_pairs(description.key_schema());
        assert_eq!(
            keys,
            vec![("targetId", KeyType::Hash), ("watcherId", KeyType::Range)]
        );
        assert!(description.global_secondary_indexes().is_empty());
    }

    #[tokio::test]
    async fn subscribe_writes_the_item_the_design_describes() {
        let client = dynamodb_local().await;
        let table = Table::Subscriptions.fresh(&client).await;
        let store = DynamoSubscriptionStore::new(client.clone(), table.clone());
        store
            .subscribe(&p("bob"), &[p("alice")], 1_795_330_800)
            .await
            .unwrap();
        let item = client
            .get_item()
            .table_name(&table)
            .key("targetId", AttributeValue::S("alice".into()))
            .key("watcherId", AttributeValue::S("bob".into()))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        let expected: HashMap<String, AttributeValue> = [
            ("targetId", AttributeValue::S("alice".into())),
            ("watcherId", AttributeValue::S("bob".into())),
            ("expireAt", AttributeValue::N("1795330800".into())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(item, expected);
    }

    /// Round trips: 100 targets are 4 BatchWriteItem calls each way; the watchers of a
    /// target are one Query.
    #[tokio::test]
    async fn a_subscription_to_100_players_is_4_batch_writes_and_a_lookup_is_one_query() {
        let client = dynamodb_local().await;
        let table = Table::Subscriptions.fresh(&client).await;
        let counter = CallCounter::new();
        let counted = counter.counting(&client);
        let store = DynamoSubscriptionStore::new(counted, table);
        let targets: Vec<PlayerId> = (0..100).map(|i| p(&format!("p{i:03}"))).collect();
        store
            .subscribe(&p("bob"), &targets, 1_795_330_800)
            .await
            .unwrap();
        assert_eq!(
            counter.take(),
            [("BatchWriteItem".to_owned(), 4)].into_iter().collect()
        );
        assert_eq!(
            store.watchers(&p("p042"), 1_795_323_600_000).await.unwrap(),
            vec![p("bob")]
        );
        assert_eq!(
            counter.take(),
            [("Query".to_owned(), 1)].into_iter().collect()
        );
        store.unsubscribe(&p("bob"), &targets).await.unwrap();
        assert_eq!(
            counter.take(),
            [("BatchWriteItem".to_owned(), 4)].into_iter().collect()
        );
    }
}
