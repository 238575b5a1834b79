//! The `MessageStore` contract suite on the DynamoDB adapter, against DynamoDB Local
//! (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`). Every scenario gets its
//! own table.

use shared::adapters::dynamodb::DynamoMessageStore;
use shared::testing::message_store_contract;
use tests::dynamodb::{dynamodb_local, fresh_messages_table};

#[tokio::test]
async fn dynamodb_message_store_passes_the_contract_suite() {
    let client = dynamodb_local().await;
    message_store_contract::run_all(|| async {
        DynamoMessageStore::new(client.clone(), fresh_messages_table(&client).await)
    })
    .await;
}

mod dynamodb_specific {
    use aws_sdk_dynamodb::types::{
        AttributeValue, IndexStatus, KeyType, ProjectionType, StreamViewType,
    };
    use shared::adapters::dynamodb::message_item::message_to_item;
    use shared::adapters::dynamodb::{DynamoMessageStore, RECIPIENT_INDEX, create_messages_table};
    use shared::domain::{MessageId, PlayerId};
    use shared::ports::message_store::{MessageKind, MessageStore, StoredMessage};
    use shared::ports::player_store::StoreError;
    use tests::dynamodb::{
        describe_template_table, dynamodb_local, fresh_messages_table, key_pairs,
    };

    const T0: i64 = 4_102_444_800_000; // 2100: DynamoDB Local's TTL sweeper deletes items whose expireAt is past

    fn bob() -> PlayerId {
        PlayerId::parse("bob").unwrap()
    }

    fn message(n: i64) -> StoredMessage {
        StoredMessage {
            message_id: MessageId::generate(T0 + n),
            recipient_id: bob(),
            sender_id: "alice".into(),
            kind: MessageKind::Placement,
            payload: format!(r#"{{"type":"placement","n":{n}}}"#),
            created_at: T0 + n,
            expire_at_secs: T0 / 1000 + 86_400,
        }
    }

    #[tokio::test]
    async fn the_messages_table_is_created_as_the_template_defines_it_and_idempotently() {
        let client = dynamodb_local().await;
        let table = fresh_messages_table(&client).await;
        create_messages_table(&client, &table)
            .await
            .expect("creating an existing table is not an error");

        let description = describe_template_table(&client, &table).await;
        let keys = key_pairs(description.key_schema());
        assert_eq!(keys, vec![("messageId", KeyType::Hash)]);

        let stream = description
            .stream_specification()
            .expect("a stream specification");
        assert!(stream.stream_enabled());
        assert_eq!(stream.stream_view_type(), Some(&StreamViewType::NewImage));
        assert!(
            description.latest_stream_arn().is_some(),
            "the stream exists: {description:?}"
        );

        let [index] = description.global_secondary_indexes() else {
            panic!("one GSI: {description:?}");
        };
        assert_eq!(index.index_name(), Some(RECIPIENT_INDEX));
        assert_eq!(RECIPIENT_INDEX, "ByRecipient");
        let keys = key_pairs(index.key_schema());
        assert_eq!(
            keys,
            vec![
                ("recipientId", KeyType::Hash),
                ("messageId", KeyType::Range)
            ]
        );
        assert_eq!(
            index.projection().and_then(|p| p.projection_type()),
            Some(&ProjectionType::All)
        );
        assert_eq!(index.index_status(), Some(&IndexStatus::Active));
    }

    #[tokio::test]
    async fn put_all_writes_the_item_the_design_describes() {
        let client = dynamodb_local().await;
        let table = fresh_messages_table(&client).await;
        let store = DynamoMessageStore::new(client.clone(), table.clone());
        let m = message(1);
        store.put_all(std::slice::from_ref(&m)).await.unwrap();
        let item = client
            .get_item()
            .table_name(&table)
            .key("messageId", AttributeValue::S(m.message_id.to_string()))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        assert_eq!(item, message_to_item(&m));
        assert_eq!(item["kind"], AttributeValue::S("placement".into()));
        assert_eq!(
            item["expireAt"],
            AttributeValue::N((T0 / 1000 + 86_400).to_string())
        );
    }

    /// `resume` deletes what it delivered before it reads the next page: a page must
    /// continue after an id that is no longer in the table.
    #[tokio::test]
    async fn a_page_continues_after_an_id_that_was_deleted_meanwhile() {
        let client = dynamodb_local().await;
        let store = DynamoMessageStore::new(client.clone(), fresh_messages_table(&client).await);
        let written: Vec<_> = (0..5).map(message).collect();
        store.put_all(&written).await.unwrap();

        let first = store.pending(&bob(), None, 2).await.unwrap();
        assert_eq!(first.messages, written[..2]);
        let ids: Vec<_> = first
            .messages
            .iter()
            .map(|m| m.message_id.clone())
            .collect();
        store.delete_all(&ids).await.unwrap();

        let rest = store
            .pending(&bob(), first.next.as_ref(), 10)
            .await
            .unwrap();
        assert_eq!(rest.messages, written[2..]);
        assert_eq!(rest.next, None);
    }

    /// 100 recipients (the `sendMessage` maximum) in one `put_all`.
    #[tokio::test]
    async fn a_hundred_recipients_are_written_and_each_reads_their_own() {
        let client = dynamodb_local().await;
        let store = DynamoMessageStore::new(client.clone(), fresh_messages_table(&client).await);
        let messages: Vec<_> = (0..100)
            .map(|n| StoredMessage {
                recipient_id: PlayerId::parse(format!("player-{n}")).unwrap(),
                ..message(n)
            })
            .collect();
        store.put_all(&messages).await.unwrap();
        for m in [&messages[0], &messages[57], &messages[99]] {
            let page = store.pending(&m.recipient_id, None, 10).await.unwrap();
            assert_eq!(page.messages, vec![m.clone()]);
        }
    }

    #[tokio::test]
    async fn a_corrupt_item_is_reported_with_its_key_and_attribute() {
        let client = dynamodb_local().await;
        let table = fresh_messages_table(&client).await;
        let mut item = message_to_item(&message(1));
        item.insert("kind".into(), AttributeValue::S("shout".into()));
        client
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
        let store = DynamoMessageStore::new(client, table);
        match store.pending(&bob(), None, 10).await {
            Err(StoreError::Corrupt { key, reason }) => {
                assert!(key.starts_with("messageId="), "{key}");
                assert!(reason.contains("kind"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_missing_table_is_a_fault() {
        let client = dynamodb_local().await;
        let store = DynamoMessageStore::new(client, "no-such-table");
        assert!(matches!(
            store.pending(&bob(), None, 10).await,
            Err(StoreError::Other(_))
        ));
        assert!(matches!(
            store.put_all(&[message(1)]).await,
            Err(StoreError::Other(_))
        ));
    }
}
