//! The Friends table's contract suite on the DynamoDB adapter, against DynamoDB Local
//! (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`). Every scenario gets its
//! own table.

mod contract {
    use aws_adapters::dynamodb::DynamoFriendStore;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn store() -> DynamoFriendStore {
        let client = dynamodb_local().await;
        let (table, messages) = (
            Table::Friends.fresh(&client).await,
            Table::Messages.fresh(&client).await,
        );
        DynamoFriendStore::new(client, table, messages)
    }

    contracts::friend_store_contract_tests!(store);

    /// The same suite reading a player's friends 2 items per Query, so every listing
    /// pages (and some pages are filtered down to nothing).
    mod with_small_pages {
        use super::*;

        async fn store_paging_by_2() -> DynamoFriendStore {
            store().await.with_page_limit(2)
        }

        contracts::friend_store_contract_tests!(store_paging_by_2);
    }
}

mod dynamodb_specific {
    use std::collections::HashMap;

    use aws_adapters::call_counter::CallCounter;
    use aws_adapters::dynamodb::{DynamoFriendStore, DynamoMessageStore};
    use aws_sdk_dynamodb::types::{AttributeValue, KeyType};
    use contracts::fixtures::{T0, player};
    use contracts::friend_store_contract::{act, befriend};
    use contracts::ports::*;
    use shared::friends::{Action, FRIENDS_PAGE_SIZE, FriendCommitted, FriendState, RelationQuery};
    use shared::messaging::ReplayFrom;
    use tests::dynamodb::{Table, dynamodb_local, key_pairs};

    #[tokio::test]
    async fn the_friends_table_is_created_as_the_template_defines_it_and_idempotently() {
        let description = Table::Friends.created_twice().await;
        assert_eq!(
            key_pairs(description.key_schema()),
            vec![("playerId", KeyType::Hash), ("otherId", KeyType::Range)]
        );
        assert!(description.global_secondary_indexes().is_empty());
    }

    #[tokio::test]
    async fn a_friendship_writes_both_sides_each_count_and_both_pushes_as_designed() {
        let client = dynamodb_local().await;
        let table = Table::Friends.fresh(&client).await;
        let messages = Table::Messages.fresh(&client).await;
        let store = DynamoFriendStore::new(client.clone(), table.clone(), messages.clone());
        befriend(&store, "alice", "bob").await;
        // Each change's frames are in the inboxes: invited/invitation, then friends.
        let inbox = DynamoMessageStore::new(client.clone(), &messages);
        for (who, expected) in [
            ("alice", ["invited", "friends"]),
            ("bob", ["invitation", "friends"]),
        ] {
            let read = inbox
                .read(&player(who), &ReplayFrom::EVERYTHING, T0 + 10)
                .await
                .unwrap();
            let states: Vec<String> = read
                .messages
                .iter()
                .map(|m| {
                    let frame: serde_json::Value = serde_json::from_str(&m.payload).unwrap();
                    frame["state"].as_str().unwrap().to_owned()
                })
                .collect();
            assert_eq!(states, expected, "{who}");
        }
        let item = |player: &str, other: &str| {
            let (client, table) = (client.clone(), table.clone());
            let (player, other) = (player.to_owned(), other.to_owned());
            async move {
                client
                    .get_item()
                    .table_name(&table)
                    .key("playerId", AttributeValue::S(player))
                    .key("otherId", AttributeValue::S(other))
                    .send()
                    .await
                    .unwrap()
                    .item
                    .unwrap()
            }
        };
        let expected: HashMap<String, AttributeValue> = [
            ("playerId", AttributeValue::S("alice".into())),
            ("otherId", AttributeValue::S("bob".into())),
            ("state", AttributeValue::S("friends".into())),
            ("since", AttributeValue::N((T0 + 1).to_string())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(item("alice", "bob").await, expected);
        for player in ["alice", "bob"] {
            assert_eq!(
                item(player, "#count").await.get("friends"),
                Some(&AttributeValue::N("1".into())),
                "{player}"
            );
        }
        assert_eq!(
            act(&store, "bob", "alice", Action::Remove, T0 + 2).await,
            FriendCommitted::Done
        );
        assert_eq!(
            item("alice", "#count").await.get("friends"),
            Some(&AttributeValue::N("0".into()))
        );
    }

    /// Round trips: a relation is one GetItem, both sides one BatchGetItem, a change one
    /// Query per push (at once) and one transaction, a `listFriends` page one Query, the blockers of 100 recipients one
    /// BatchGetItem, a player's friends one Query.
    #[tokio::test]
    async fn each_read_and_change_is_one_round_trip() {
        let client = dynamodb_local().await;
        let table = Table::Friends.fresh(&client).await;
        let counter = CallCounter::new();
        let messages = Table::Messages.fresh(&client).await;
        let store = DynamoFriendStore::new(counter.counting(&client), table, messages);
        let count = |name: &str, calls: u64| [(name.to_owned(), calls)].into_iter().collect();

        assert_eq!(
            act(&store, "alice", "bob", Action::Add, T0).await,
            FriendCommitted::Done
        );
        assert_eq!(
            counter.take(),
            // Both sides read at once, both inbox heads read at once, one transaction.
            [
                ("BatchGetItem".to_owned(), 1),
                ("Query".to_owned(), 2),
                ("TransactWriteItems".to_owned(), 1)
            ]
            .into_iter()
            .collect()
        );
        store
            .relation(&player("alice"), &player("bob"))
            .await
            .unwrap();
        assert_eq!(counter.take(), count("GetItem", 1));
        let page = store
            .page(RelationQuery {
                player: &player("alice"),
                state: Some(FriendState::Invited),
                after: None,
                limit: FRIENDS_PAGE_SIZE,
            })
            .await
            .unwrap();
        assert_eq!(page.relations.len(), 1);
        assert_eq!(counter.take(), count("Query", 1));
        let recipients: Vec<_> = (0..100).map(|i| player(&format!("p{i:03}"))).collect();
        store.blockers(&player("alice"), &recipients).await.unwrap();
        assert_eq!(counter.take(), count("BatchGetItem", 1));
        store.friends(&player("alice")).await.unwrap();
        assert_eq!(counter.take(), count("Query", 1));
    }

    #[tokio::test]
    async fn given_players_and_blocks_when_checking_recipients_then_one_call_per_50_answering_as_the_two_reads()
     {
        use std::sync::Arc;

        use aws_adapters::dynamodb::{DynamoPlayerStore, DynamoRecipientCheck};
        use contracts::fixtures::new_connection;
        use shared::ports::{CheckedRecipients, RecipientCheck, SeparateReads};

        // Given bob, carol and dave are players, bob and dave blocked mallory, and carol
        // is mallory's friend
        let client = dynamodb_local().await;
        let (friends, messages, players) = (
            Table::Friends.fresh(&client).await,
            Table::Messages.fresh(&client).await,
            Table::Players.fresh(&client).await,
        );
        let friend_store = DynamoFriendStore::new(client.clone(), &friends, &messages);
        let player_store = DynamoPlayerStore::new(client.clone(), &players);
        for name in ["bob", "carol", "dave"] {
            player_store
                .connect(&new_connection(name, &format!("c-{name}"), T0))
                .await
                .unwrap();
        }
        for blocker in ["bob", "dave"] {
            assert_eq!(
                act(&friend_store, blocker, "mallory", Action::Block, T0).await,
                FriendCommitted::Done
            );
        }
        befriend(&friend_store, "carol", "mallory").await;
        let counter = CallCounter::new();
        let check =
            DynamoRecipientCheck::new(counter.counting(&client), players.as_str(), &friends);
        let sorted = |mut checked: CheckedRecipients| {
            checked.known.sort();
            checked.blockers.sort();
            checked
        };

        // When mallory's message names them (bob twice) and nobody
        let few = [
            player("bob"),
            player("carol"),
            player("bob"),
            player("dave"),
            player("nobody"),
        ];
        let checked = sorted(check.check(&player("mallory"), &few).await.unwrap());

        // Then one BatchGetItem finds the players and the blockers, each once, as the
        // two separate reads do
        assert_eq!(counter.take(), [("BatchGetItem".to_owned(), 1)].into());
        assert_eq!(
            checked.known,
            vec![player("bob"), player("carol"), player("dave")]
        );
        assert_eq!(checked.blockers, vec![player("bob"), player("dave")]);
        let friend_store = Arc::new(friend_store);
        let separate = SeparateReads {
            players: Arc::new(player_store),
            blocks: friend_store.clone(),
            relations: friend_store,
        };
        assert_eq!(
            sorted(separate.check(&player("mallory"), &few).await.unwrap()),
            checked
        );

        // And 120 recipients are three calls of at most 50 (100 keys each)
        let mut many = few.to_vec();
        many.extend((0..115).map(|i| player(&format!("p{i:03}"))));
        let checked = sorted(check.check(&player("mallory"), &many).await.unwrap());
        assert_eq!(counter.take(), [("BatchGetItem".to_owned(), 3)].into());
        assert_eq!(checked.blockers, vec![player("bob"), player("dave")]);
        assert_eq!(checked.known.len(), 3);
    }

    #[tokio::test]
    async fn given_a_relation_when_a_change_checks_the_pair_and_its_players_then_one_call_answers_as_the_separate_reads()
     {
        use std::sync::Arc;

        use aws_adapters::dynamodb::{DynamoPlayerStore, DynamoRecipientCheck};
        use contracts::fixtures::new_connection;
        use shared::ports::{CheckedPair, RecipientCheck, SeparateReads};

        // Given alice and bob are players and alice invited bob
        let client = dynamodb_local().await;
        let (friends, messages, players) = (
            Table::Friends.fresh(&client).await,
            Table::Messages.fresh(&client).await,
            Table::Players.fresh(&client).await,
        );
        let friend_store = Arc::new(DynamoFriendStore::new(client.clone(), &friends, &messages));
        let player_store = DynamoPlayerStore::new(client.clone(), &players);
        for name in ["alice", "bob"] {
            player_store
                .connect(&new_connection(name, &format!("c-{name}"), T0))
                .await
                .unwrap();
        }
        assert_eq!(
            act(friend_store.as_ref(), "alice", "bob", Action::Add, T0).await,
            FriendCommitted::Done
        );
        let counter = CallCounter::new();
        let check =
            DynamoRecipientCheck::new(counter.counting(&client), players.as_str(), &friends);
        let separate = SeparateReads {
            players: Arc::new(player_store),
            blocks: friend_store.clone(),
            relations: friend_store,
        };
        let sorted = |mut checked: CheckedPair| {
            checked.known.sort();
            checked
        };
        let (alice, bob, nobody) = (player("alice"), player("bob"), player("nobody"));
        for (asked, me, them) in [
            (vec![bob.clone()], &bob, &alice),
            (vec![alice.clone(), nobody.clone()], &alice, &nobody),
            (vec![], &alice, &bob),
        ] {
            // When a change reads the pair and the players it names
            let checked = sorted(check.check_pair(&asked, me, them).await.unwrap());

            // Then one BatchGetItem answers as the separate reads do
            assert_eq!(counter.take(), [("BatchGetItem".to_owned(), 1)].into());
            assert_eq!(
                sorted(separate.check_pair(&asked, me, them).await.unwrap()),
                checked
            );
        }
        let checked = check
            .check_pair(std::slice::from_ref(&bob), &bob, &alice)
            .await
            .unwrap();
        assert_eq!(checked.known, vec![bob.clone()]);
        assert_eq!(
            (checked.pair.mine, checked.pair.theirs),
            (Some(FriendState::Invitation), Some(FriendState::Invited))
        );
    }
}
