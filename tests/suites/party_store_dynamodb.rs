//! The `PartyStore` contract suite on the DynamoDB adapter, against DynamoDB Local
//! (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`), and what only DynamoDB
//! can show: the round trips of a commit, and an inbox that moves under one. Every
//! scenario gets its own Parties, Players and Messages tables.

mod contract {
    use std::sync::Arc;

    use aws_adapters::dynamodb::{DynamoMessageStore, DynamoPartyStore, DynamoPlayerStore};
    use contracts::party_store_contract::PartyStores;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn stores() -> PartyStores {
        let client = dynamodb_local().await;
        let parties = Table::Parties.fresh(&client).await;
        let players = Table::Players.fresh(&client).await;
        let messages = Table::Messages.fresh(&client).await;
        PartyStores {
            parties: Arc::new(DynamoPartyStore::new(
                client.clone(),
                parties,
                players.clone(),
                messages.clone(),
                PartyStores::SHARDS,
            )),
            players: Arc::new(DynamoPlayerStore::new(client.clone(), players)),
            messages: Arc::new(DynamoMessageStore::new(client, messages)),
        }
    }

    contracts::party_store_contract_tests!(stores);
}

mod dynamodb_specific {
    use std::sync::Arc;

    use aws_adapters::dynamodb::{DynamoMessageStore, DynamoPartyStore, DynamoPlayerStore};
    use contracts::fixtures::{T0, new_connection, player};
    use contracts::ports::*;
    use shared::domain::MessageId;
    use shared::messaging::{MessageKind, NewMessage, ReplayFrom};
    use shared::party::Committed;
    use shared::party::{Parties, Party, PartyId};
    use shared::ports::{ManualClock, MessageStore};
    use tests::dynamodb::{Table, counted_client};

    #[tokio::test]
    async fn given_a_party_of_three_when_a_change_is_committed_then_it_is_three_inbox_queries_and_one_transaction()
     {
        let (client, counter) = counted_client().await;
        let (parties_table, players_table, messages_table) = (
            Table::Parties.fresh(&client).await,
            Table::Players.fresh(&client).await,
            Table::Messages.fresh(&client).await,
        );
        let players = DynamoPlayerStore::new(client.clone(), players_table.clone());
        for name in ["alice", "bob", "carol"] {
            players
                .connect(&new_connection(name, &format!("c-{name}"), T0))
                .await
                .unwrap();
        }
        let store = Arc::new(DynamoPartyStore::new(
            client.clone(),
            parties_table,
            players_table,
            messages_table,
            4,
        ));
        let service = Parties::new(
            store.clone(),
            store.clone(),
            Arc::new(ManualClock::at(T0)),
            86_400,
        );
        let created = Party::create(PartyId::parse("rt-1").unwrap(), &player("alice"), 4, T0);
        assert_eq!(
            store
                .commit(&service.commit_of(&created, T0))
                .await
                .unwrap(),
            Committed::Done
        );
        // bob and carol are made members directly: the scenario is one change of three.
        let mut state = created.after;
        for name in ["bob", "carol"] {
            let invitation = shared::party::Invitation {
                party_id: state.party_id.clone(),
                invitee: player(name),
                from: player("alice"),
                expires_at: T0 + 60_000,
            };
            let mut invite = shared::party::PartyCommit::on(
                state.party_id.clone(),
                shared::party::PartyCondition::AtVersion(state.version),
                T0,
            );
            invite.invitation = Some(shared::party::InvitationWrite::Put(invitation.clone()));
            assert_eq!(store.commit(&invite).await.unwrap(), Committed::Done);
            let joined = state.join(&player(name), Some(&invitation), T0).unwrap();
            assert_eq!(
                store.commit(&service.commit_of(&joined, T0)).await.unwrap(),
                Committed::Done
            );
            state = joined.after;
        }
        counter.take();
        let promoted = state.promote(&player("alice"), &player("carol")).unwrap();
        assert_eq!(
            store
                .commit(&service.commit_of(&promoted, T0))
                .await
                .unwrap(),
            Committed::Done
        );
        let calls = counter.take();
        assert_eq!(calls.get("Query"), Some(&3), "{calls:?}");
        assert_eq!(calls.get("TransactWriteItems"), Some(&1), "{calls:?}");
        assert_eq!(calls.len(), 2, "{calls:?}");
    }

    #[tokio::test]
    async fn given_an_inbox_that_moves_under_a_commit_then_it_is_read_again_and_both_messages_stay_in_order()
     {
        let (client, _) = counted_client().await;
        let (parties_table, players_table, messages_table) = (
            Table::Parties.fresh(&client).await,
            Table::Players.fresh(&client).await,
            Table::Messages.fresh(&client).await,
        );
        let players = DynamoPlayerStore::new(client.clone(), players_table.clone());
        players
            .connect(&new_connection("alice", "c-alice", T0))
            .await
            .unwrap();
        let messages = Arc::new(DynamoMessageStore::new(
            client.clone(),
            messages_table.clone(),
        ));
        let store = Arc::new(DynamoPartyStore::new(
            client.clone(),
            parties_table,
            players_table,
            messages_table,
            4,
        ));
        let service = Parties::new(
            store.clone(),
            store.clone(),
            Arc::new(ManualClock::at(T0)),
            86_400,
        );
        let chat = |n: u32| NewMessage {
            message_id: MessageId::generate(T0),
            recipient_id: player("alice"),
            sender_id: "bob".into(),
            kind: MessageKind::Chat,
            payload: format!(r#"{{"type":"message","n":{n}}}"#),
            created_at: T0,
            expire_at_secs: T0 / 1000 + 3_600,
        };
        messages.append(&[chat(0)]).await.unwrap();
        // Chat keeps arriving while the party is created: each commit that loses the
        // seq reads the head again.
        let created = Party::create(PartyId::parse("rt-2").unwrap(), &player("alice"), 4, T0);
        let commit = service.commit_of(&created, T0);
        let chatting = async {
            for n in 1..=5 {
                messages.append(&[chat(n)]).await.unwrap();
            }
        };
        let (committed, ()) = tokio::join!(store.commit(&commit), chatting);
        assert_eq!(committed.unwrap(), Committed::Done);
        let inbox = messages
            .read(&player("alice"), &ReplayFrom::EVERYTHING, T0)
            .await
            .unwrap();
        assert_eq!(inbox.messages.len(), 7);
        assert!(
            inbox
                .messages
                .windows(2)
                .all(|w| w[1].seq == w[0].seq.next())
        );
        assert_eq!(
            inbox
                .messages
                .iter()
                .filter(|m| m.kind == MessageKind::Party)
                .count(),
            1
        );
    }
}
