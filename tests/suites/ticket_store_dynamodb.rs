//! The `TicketStore` contract suite on the DynamoDB adapter, against DynamoDB Local
//! (`scripts/test.sh` starts it and sets `DYNAMODB_ENDPOINT`). Every scenario gets its
//! own Placements (where tickets live), Players and Messages tables.

mod contract {
    use std::sync::Arc;

    use aws_adapters::dynamodb::{DynamoMessageStore, DynamoPlayerStore, DynamoTicketStore};
    use contracts::ticket_store_contract::TicketStores;
    use tests::dynamodb::{Table, dynamodb_local};

    async fn stores() -> TicketStores {
        let client = dynamodb_local().await;
        let placements = Table::Placements.fresh(&client).await;
        let players = Table::Players.fresh(&client).await;
        let messages = Table::Messages.fresh(&client).await;
        TicketStores {
            tickets: Arc::new(DynamoTicketStore::new(
                client.clone(),
                placements,
                players.clone(),
                messages.clone(),
            )),
            players: Arc::new(DynamoPlayerStore::new(client.clone(), players)),
            messages: Arc::new(DynamoMessageStore::new(client, messages)),
        }
    }

    contracts::ticket_store_contract_tests!(stores);
}
