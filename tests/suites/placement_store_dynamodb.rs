//! The `PlacementStore` / `PlacementOutcomes` contract suite on the DynamoDB adapters,
//! against DynamoDB Local (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`).
//! Every scenario gets its own Placements, Players and Messages tables.

mod contract {
    use std::sync::Arc;

    use aws_adapters::dynamodb::{
        DynamoMessageStore, DynamoPlacementOutcomes, DynamoPlacementStore, DynamoPlayerStore,
    };
    use contracts::placement_store_contract::PlacementStores;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn stores() -> PlacementStores {
        let client = dynamodb_local().await;
        let placements = Table::Placements.fresh(&client).await;
        let players = Table::Players.fresh(&client).await;
        let messages = Table::Messages.fresh(&client).await;
        PlacementStores {
            placements: Arc::new(DynamoPlacementStore::new(
                client.clone(),
                placements.clone(),
            )),
            outcomes: Arc::new(DynamoPlacementOutcomes::new(
                client.clone(),
                placements,
                players.clone(),
                messages.clone(),
            )),
            players: Arc::new(DynamoPlayerStore::new(client.clone(), players)),
            messages: Arc::new(DynamoMessageStore::new(client, messages)),
        }
    }

    contracts::placement_store_contract_tests!(stores);
}

mod dynamodb_specific {
    use std::collections::{BTreeMap, HashMap};

    use aws_adapters::call_counter::CallCounter;
    use aws_adapters::dynamodb::{
        DynamoPlacementOutcomes, DynamoPlacementStore, DynamoPlayerStore,
    };
    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::types::{AttributeValue, KeyType};
    use contracts::fixtures::{placement_id, settlement};
    use contracts::ports::*;
    use shared::domain::{ConnectionId, PlacementStatus, PlayerId};
    use shared::pending::{Pending, Reservation};
    use shared::placement::PlacementRecord;
    use shared::players::NewConnection;
    use shared::ports::PlacementOutcomes;
    use tests::dynamodb::calls;
    use tests::dynamodb::{Table, dynamodb_local, key_pairs};

    /// Far in the future, so DynamoDB Local's TTL sweeper leaves the items alone.
    const T0: i64 = 4_102_444_800_000;

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    struct Tables {
        placements: DynamoPlacementStore,
        outcomes: DynamoPlacementOutcomes,
        players: DynamoPlayerStore,
        players_table: String,
    }

    async fn tables(client: &Client) -> Tables {
        let placements = Table::Placements.fresh(client).await;
        let players = Table::Players.fresh(client).await;
        let messages = Table::Messages.fresh(client).await;
        Tables {
            placements: DynamoPlacementStore::new(client.clone(), placements.clone()),
            outcomes: DynamoPlacementOutcomes::new(
                client.clone(),
                placements,
                players.clone(),
                messages,
            ),
            players: DynamoPlayerStore::new(client.clone(), players.clone()),
            players_table: players,
        }
    }

    async fn connect(players: &DynamoPlayerStore, name: &str) {
        players
            .connect(&NewConnection {
                player_id: player(name),
                connection_id: ConnectionId::parse(format!("c-{name}")).unwrap(),
                endpoint: "https://api.example/prod".into(),
                connected_at: T0,
                now: T0,
                heartbeat_deadline: T0 + 90_000,
                sweep_shard: 0,
                expire_at_secs: T0 / 1000 + 86_400,
            })
            .await
            .unwrap();
    }

    impl Tables {
        /// Placement `id` pending for `names`, the first of them its requester.
        async fn pending(&self, id: &str, names: &[String]) {
            let mut record = PlacementRecord::pending(placement_id(id), player(&names[0]), "q", T0);
            record.player_ids = names.iter().map(|n| player(n)).collect();
            self.placements.create(&record).await.unwrap();
        }

        /// Settles placement `id` FULFILLED for `names` (as `on-placement-event` does); false
        /// when it was settled already.
        async fn settle(&self, id: &str, names: &[String]) -> bool {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let fulfilled = settlement(id, PlacementStatus::Fulfilled, &names, T0 + 1);
            self.outcomes.settle(&fulfilled).await.unwrap()
        }

        /// Settles as [`Tables::settle`] does: whether it wrote, and the calls it took.
        async fn settle_counted(
            &self,
            counter: &CallCounter,
            id: &str,
            names: &[String],
        ) -> (bool, BTreeMap<String, u64>) {
            counter.take();
            let wrote = self.settle(id, names).await;
            (wrote, counter.take())
        }

        /// `name`'s item in the Players table, as stored.
        async fn player_item(
            &self,
            client: &Client,
            name: &str,
        ) -> HashMap<String, AttributeValue> {
            client
                .get_item()
                .table_name(&self.players_table)
                .key("playerId", s(name))
                .send()
                .await
                .unwrap()
                .item
                .unwrap_or_else(|| panic!("{name} has no item"))
        }
    }

    /// Tables on a counted client where placement `id` is pending for 120 players (`p000`
    /// to `p119`), and their names.
    async fn pending_120(id: &str) -> (Tables, CallCounter, Vec<String>) {
        let (client, counter) = tests::dynamodb::counted_client().await;
        let t = tables(&client).await;
        let names: Vec<String> = (0..120).map(|i| format!("p{i:03}")).collect();
        t.pending(id, &names).await;
        (t, counter, names)
    }

    #[tokio::test]
    async fn the_placements_table_is_created_as_the_template_defines_it_and_idempotently() {
        let description = Table::Placements.created_twice().await;
        let keys = key_pairs(description.key_schema());
        assert_eq!(keys, vec![("placementId", KeyType::Hash)]);
        assert!(description.global_secondary_indexes().is_empty());
    }

    /// BENCHMARK: a placement request costs 2 writes (no read), a conflict 1.
    #[tokio::test]
    async fn a_placement_request_is_two_writes_and_a_conflict_one_naming_the_pending_placement() {
        let (client, counter) = tests::dynamodb::counted_client().await;
        let t = tables(&client).await;
        connect(&t.players, "alice").await;
        counter.take();

        assert_eq!(
            t.players
                .reserve(&player("alice"), &Pending::Placement(placement_id("p-1")))
                .await
                .unwrap(),
            Reservation::Reserved
        );
        t.pending("p-1", &["alice".into()]).await;
        assert_eq!(counter.take(), calls(&[("PutItem", 1), ("UpdateItem", 1)]));

        assert_eq!(
            t.players
                .reserve(&player("alice"), &Pending::Placement(placement_id("p-2")))
                .await
                .unwrap(),
            Reservation::Taken(Pending::Placement(placement_id("p-1")))
        );
        assert_eq!(
            counter.take(),
            calls(&[("UpdateItem", 1)]),
            "the pending id comes back with the failed condition (ALL_OLD)"
        );
    }

    /// A group placement may seat a player this system has never seen connect: their
    /// item is created with the seat, and with the players' retention, so it expires.
    #[tokio::test]
    async fn a_settlement_creates_a_missing_player_with_its_seat_and_an_expiry_and_keeps_an_existing_expiry()
     {
        let client = dynamodb_local().await;
        let t = tables(&client).await;
        connect(&t.players, "alice").await;
        let names: Vec<String> = ["alice", "newcomer"].map(String::from).to_vec();
        t.pending("p-group", &names).await;
        assert!(t.settle("p-group", &names).await);

        let expiry_of = async |name: &str| {
            let item = t.player_item(&client, name).await;
            assert!(item.contains_key("gameSession"), "{name}: {item:?}");
            item["expireAt"].as_n().unwrap().parse::<i64>().unwrap()
        };
        assert_eq!(
            expiry_of("newcomer").await,
            (T0 + 1) / 1000 + shared::domain::PLAYER_RETENTION_SECONDS
        );
        assert_eq!(
            expiry_of("alice").await,
            T0 / 1000 + 86_400,
            "the connection's own expiry stays"
        );
    }

    /// BENCHMARK: settling a placement of P players is one TransactWriteItems (for
    /// P ≤ 33) after one Query per player (the head of their inbox, where their
    /// `placement` message goes); a duplicate is one cancelled transaction that writes
    /// nothing.
    #[tokio::test]
    async fn a_settlement_is_one_transaction_and_a_duplicate_one_cancelled_transaction() {
        let (client, counter) = tests::dynamodb::counted_client().await;
        let t = tables(&client).await;
        let names: Vec<String> = ["alice", "bob"].map(String::from).to_vec();
        for name in &names {
            connect(&t.players, name).await;
        }
        t.players
            .reserve(&player("alice"), &Pending::Placement(placement_id("p-1")))
            .await
            .unwrap();
        t.pending("p-1", &names[..1]).await;

        let cost = calls(&[("Query", 2), ("TransactWriteItems", 1)]);
        assert_eq!(
            t.settle_counted(&counter, "p-1", &names).await,
            (true, cost.clone())
        );
        assert_eq!(
            t.settle_counted(&counter, "p-1", &names).await,
            (false, cost)
        );

        // The player item as the design describes it.
        let item = t.player_item(&client, "alice").await;
        assert_eq!(item.get("pendingPlacementId"), None);
        assert_eq!(item.get("lastPlacementId"), Some(&s("p-1")));
        let expected: HashMap<String, AttributeValue> = [
            (
                "gameSessionArn",
                s("arn:aws:gamelift:eu-west-1::gamesession/fleet-1/gs-1"),
            ),
            ("ipAddress", s("10.0.0.1")),
            ("dnsName", s("ec2-10-0-0-1.eu-west-1.compute.amazonaws.com")),
            ("port", AttributeValue::N("7777".into())),
            ("region", s("eu-west-1")),
            ("playerSessionId", s("psess-alice")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(item.get("gameSession"), Some(&AttributeValue::M(expected)));
    }

    /// BENCHMARK: 120 players take ceil(120 / 33) = 4 transactions; a duplicate stops
    /// after the first, cancelled one (its ALL_OLD image shows every chunk written).
    #[tokio::test]
    async fn a_settlement_of_more_than_33_players_is_one_transaction_per_33() {
        let (t, counter, names) = pending_120("p-big").await;
        assert_eq!(
            t.settle_counted(&counter, "p-big", &names).await,
            (true, calls(&[("Query", 120), ("TransactWriteItems", 4)]))
        );
        assert_eq!(
            t.settle_counted(&counter, "p-big", &names).await,
            (false, calls(&[("Query", 33), ("TransactWriteItems", 1)]))
        );
    }

    /// A retry after a partial settlement (here: the second of three chunks was never
    /// written) resumes where it stopped and writes each chunk once.
    #[tokio::test]
    async fn a_partly_settled_placement_resumes_at_the_first_missing_chunk() {
        let (t, counter, names) = pending_120("p-partial").await;
        // Only the first chunk went through before the failure.
        assert_eq!(
            t.settle_counted(&counter, "p-partial", &names[..33]).await,
            (true, calls(&[("Query", 33), ("TransactWriteItems", 1)])),
            "setup"
        );
        assert_eq!(
            t.settle_counted(&counter, "p-partial", &names).await,
            (true, calls(&[("Query", 120), ("TransactWriteItems", 4)])),
            "chunk 1 refused (already written), chunks 2 to 4 written"
        );
        let stored = t.placements.get(&placement_id("p-partial")).await.unwrap();
        assert_eq!(stored.map(|p| p.status), Some(PlacementStatus::Fulfilled));
    }
}
