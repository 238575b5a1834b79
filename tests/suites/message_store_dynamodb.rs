//! The inbox contract (`MessageStore` + `DeliveryHandover`) on the DynamoDB adapters,
//! against DynamoDB Local (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`).
//! Every scenario gets its own Players and Messages tables.

mod contract {
    use std::sync::Arc;

    use async_trait::async_trait;
    use aws_adapters::dynamodb::{DynamoDeliveryHandover, DynamoMessageStore, DynamoPlayerStore};
    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::types::AttributeValue;
    use contracts::message_store_contract::{Subject, TtlDeletion};
    use shared::domain::{EpochMillis, PlayerId};
    use tests::dynamodb::{Table, dynamodb_local};

    /// DynamoDB's TTL deletion, which DynamoDB Local does not run: the items whose
    /// `expireAt` (the table's TTL attribute) has passed, newest first.
    struct Ttl {
        client: Client,
        table: String,
    }

    #[async_trait]
    impl TtlDeletion for Ttl {
        async fn delete_expired(&self, recipient: &PlayerId, now: EpochMillis, at_most: usize) {
            let items = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("recipientId = :recipient")
                .expression_attribute_values(":recipient", AttributeValue::S(recipient.to_string()))
                .scan_index_forward(false)
                .consistent_read(true)
                .send()
                .await
                .unwrap()
                .items
                .unwrap_or_default();
            let expired = items.into_iter().filter(|item| {
                let expire_at: i64 = item["expireAt"].as_n().unwrap().parse().unwrap();
                expire_at * 1000 < now
            });
            for item in expired.take(at_most) {
                self.client
                    .delete_item()
                    .table_name(&self.table)
                    .key("recipientId", item["recipientId"].clone())
                    .key("seq", item["seq"].clone())
                    .send()
                    .await
                    .unwrap();
            }
        }
    }

    async fn subject() -> Subject {
        let client = dynamodb_local().await;
        let players = Table::Players.fresh(&client).await;
        let messages = Table::Messages.fresh(&client).await;
        Subject {
            ttl: Arc::new(Ttl {
                client: client.clone(),
                table: messages.clone(),
            }),
            handover: Arc::new(DynamoDeliveryHandover::new(
                client.clone(),
                players.clone(),
                messages.clone(),
            )),
            players: Arc::new(DynamoPlayerStore::new(client.clone(), players)),
            messages: Arc::new(DynamoMessageStore::new(client, messages)),
        }
    }

    contracts::message_store_contract_tests!(subject);
}

mod dynamodb_specific {

    use aws_adapters::dynamodb::message_item::message_to_item;
    use aws_adapters::dynamodb::{DynamoDeliveryHandover, DynamoMessageStore, DynamoPlayerStore};
    use aws_sdk_dynamodb::types::{AttributeValue, KeyType, ScalarAttributeType, StreamViewType};
    use contracts::fixtures::{T0, connection_of, new_connection, player};
    use contracts::message_store_contract::message;
    use contracts::ports::*;
    use shared::domain::{PlayerId, Seq};
    use shared::messaging::{Handover, HandoverOutcome, ReplayFrom};
    use shared::ports::StoreError;
    use shared::ports::{DeliveryHandover, MessageStore};
    use tests::dynamodb::calls;
    use tests::dynamodb::{Table, counted_client, dynamodb_local, key_pairs};

    fn bob() -> PlayerId {
        player("bob")
    }

    #[tokio::test]
    async fn the_messages_table_is_created_as_the_template_defines_it_and_idempotently() {
        let description = Table::Messages.created_twice().await;
        let keys = key_pairs(description.key_schema());
        assert_eq!(
            keys,
            vec![("recipientId", KeyType::Hash), ("seq", KeyType::Range)]
        );
        let seq_type = description
            .attribute_definitions()
            .iter()
            .find(|a| a.attribute_name() == "seq")
            .map(|a| a.attribute_type().clone());
        assert_eq!(seq_type, Some(ScalarAttributeType::N));
        assert!(
            description.global_secondary_indexes().is_empty(),
            "no index: a replay reads the table itself, strongly consistent"
        );
        let stream = description
            .stream_specification()
            .expect("a stream specification");
        assert!(stream.stream_enabled());
        assert_eq!(stream.stream_view_type(), Some(&StreamViewType::NewImage));
        assert!(description.latest_stream_arn().is_some());
    }

    #[tokio::test]
    async fn an_append_writes_the_item_the_design_describes_and_the_epoch_item() {
        let client = dynamodb_local().await;
        let table = Table::Messages.fresh(&client).await;
        let store = DynamoMessageStore::new(client.clone(), table.clone());
        let m = message("bob", 1);
        store.append(std::slice::from_ref(&m)).await.unwrap();
        let epoch = Seq::epoch_start(m.created_at);
        let get = |seq: u64| {
            client
                .get_item()
                .table_name(&table)
                .key("recipientId", AttributeValue::S("bob".into()))
                .key("seq", AttributeValue::N(seq.to_string()))
                .send()
        };
        let item = get(epoch.get()).await.unwrap().item.unwrap();
        assert_eq!(item, message_to_item(&m.clone().at(epoch, epoch)).unwrap());
        let epoch_item = get(0).await.unwrap().item.unwrap();
        assert_eq!(
            epoch_item.get("epoch"),
            Some(&AttributeValue::N(epoch.to_string()))
        );
        assert!(epoch_item.contains_key("expireAt"), "it expires too");
        assert!(!epoch_item.contains_key("payload"));
    }

    /// BENCHMARK: an append is one Query (the inbox head) and one conditional PutItem;
    /// the first message of an inbox one Query and one TransactWriteItems (the epoch
    /// item with it); a replay with nothing after the cursor one Query.
    #[tokio::test]
    async fn appends_and_reads_cost_the_round_trips_the_design_says() {
        let (client, counter) = counted_client().await;
        let store = DynamoMessageStore::new(client.clone(), Table::Messages.fresh(&client).await);
        counter.take();
        store.append(&[message("bob", 1)]).await.unwrap();
        assert_eq!(
            counter.take(),
            calls(&[("Query", 1), ("TransactWriteItems", 1)])
        );
        store.append(&[message("bob", 2)]).await.unwrap();
        assert_eq!(counter.take(), calls(&[("Query", 1), ("PutItem", 1)]));
        store
            .append(&[message("bob", 3), message("bob", 4)])
            .await
            .unwrap();
        assert_eq!(
            counter.take(),
            calls(&[("Query", 1), ("PutItem", 2)]),
            "one read for a recipient's run of messages"
        );
        let read = store
            .read(&bob(), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        assert_eq!(counter.take(), calls(&[("Query", 1)]));
        store
            .read(&bob(), &ReplayFrom::after(read.head.unwrap()), T0)
            .await
            .unwrap();
        assert_eq!(counter.take(), calls(&[("Query", 1)]));
    }

    #[tokio::test]
    async fn an_inbox_whose_messages_were_all_deleted_starts_a_new_epoch_above_every_old_seq() {
        // Given bob's inbox had two messages, then TTL deleted both
        let client = dynamodb_local().await;
        let table = Table::Messages.fresh(&client).await;
        let store = DynamoMessageStore::new(client.clone(), table.clone());
        store
            .append(&[message("bob", 1), message("bob", 2)])
            .await
            .unwrap();
        let old = store
            .read(&bob(), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        for m in &old.messages {
            client
                .delete_item()
                .table_name(&table)
                .key("recipientId", AttributeValue::S("bob".into()))
                .key("seq", AttributeValue::N(m.seq.to_string()))
                .send()
                .await
                .unwrap();
        }

        // When a message arrives a day later
        let mut later = message("bob", 3);
        later.created_at += 86_400_000;
        store.append(&[later]).await.unwrap();

        // Then it starts a new epoch, above every seq the old one gave out
        let new = store
            .read(&bob(), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        assert_eq!(new.messages.len(), 1);
        let seq = new.messages[0].seq;
        assert!(seq > old.head.unwrap());
        assert_eq!(new.epoch, Some(seq));
    }

    #[tokio::test]
    async fn a_hand_over_fails_when_an_empty_inbox_started_a_new_epoch_meanwhile() {
        // Given bob's inbox had a message that expired and was deleted (the epoch item
        // stays), and bob's resume read it empty
        let client = dynamodb_local().await;
        let (players, messages) = (
            Table::Players.fresh(&client).await,
            Table::Messages.fresh(&client).await,
        );
        let store = DynamoMessageStore::new(client.clone(), messages.clone());
        let player_store = DynamoPlayerStore::new(client.clone(), players.clone());
        let handover = DynamoDeliveryHandover::new(client.clone(), players, messages.clone());
        player_store
            .connect(&new_connection("bob", "c-bob", T0))
            .await
            .unwrap();
        store.append(&[message("bob", 1)]).await.unwrap();
        let first = Seq::epoch_start(T0 + 1);
        client
            .delete_item()
            .table_name(&messages)
            .key("recipientId", AttributeValue::S("bob".into()))
            .key("seq", AttributeValue::N(first.to_string()))
            .send()
            .await
            .unwrap();
        let read = store
            .read(&bob(), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        assert_eq!(read.head, None);
        assert_eq!(read.epoch, Some(first), "the epoch item says where it was");

        // When a message starts a new epoch before the hand-over
        let mut later = message("bob", 2);
        later.created_at += 60_000;
        store.append(&[later]).await.unwrap();
        let outcome = handover
            .go_live(&Handover {
                player: bob(),
                connection: connection_of("bob"),
                head: read.head,
                epoch: read.epoch,
                acked: None,
            })
            .await
            .unwrap();

        // Then the hand-over is refused: the new message would fall between
        assert_eq!(outcome, HandoverOutcome::InboxMoved);
    }

    #[tokio::test]
    async fn a_corrupt_item_is_reported_with_its_key_and_attribute() {
        let client = dynamodb_local().await;
        let table = Table::Messages.fresh(&client).await;
        let mut item =
            message_to_item(&message("bob", 1).at(Seq::new(5).unwrap(), Seq::new(5).unwrap()))
                .unwrap();
        item.insert("kind".into(), AttributeValue::S("shout".into()));
        client
            .put_item()
            .table_name(&table)
            .set_item(Some(item))
            .send()
            .await
            .unwrap();
        let store = DynamoMessageStore::new(client, table);
        match store.read(&bob(), &ReplayFrom::EVERYTHING, T0).await {
            Err(StoreError::Corrupt { key, reason }) => {
                assert_eq!(key, "recipientId=bob seq=5");
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
            store.read(&bob(), &ReplayFrom::EVERYTHING, T0).await,
            Err(StoreError::Other(_))
        ));
        assert!(matches!(
            store.append(&[message("bob", 1)]).await,
            Err(StoreError::Other(_))
        ));
    }
}
