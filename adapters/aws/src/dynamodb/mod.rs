//! DynamoDB adapters of the store ports (the tables: docs/architecture.md#the-data-model-at-a-glance), and the
//! table set-up the local stack and the tests use with DynamoDB Local.

/// A store on DynamoDB: its client and the names of the tables it works on, which `new`
/// takes in the order declared. `table_store! { Name }` is a store on one table and
/// nothing else, with its `table()`; `table_store! { Name { a_table, b_table; setting:
/// Type = default } }` declares the tables and, after `;`, any further settings, which
/// `new` sets to their defaults (a builder method of the store changes them).
macro_rules! table_store {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            pub(super) client: aws_sdk_dynamodb::Client,
            table: String,
        }

        impl $name {
            pub fn new(client: aws_sdk_dynamodb::Client, table: impl Into<String>) -> Self {
                Self {
                    client,
                    table: table.into(),
                }
            }

            pub fn table(&self) -> &str {
                &self.table
            }
        }
    };
    (
        $(#[$doc:meta])* $name:ident {
            $($(#[$table_doc:meta])* $table:ident),+
            $(; $($(#[$setting_doc:meta])* $setting:ident: $type:ty = $default:expr),+)? $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            client: aws_sdk_dynamodb::Client,
            $($(#[$table_doc])* $table: String,)+
            $($($(#[$setting_doc])* $setting: $type,)+)?
        }

        impl $name {
            pub fn new(client: aws_sdk_dynamodb::Client, $($table: impl Into<String>),+) -> Self {
                Self {
                    client,
                    $($table: $table.into(),)+
                    $($($setting: $default,)+)?
                }
            }
        }
    };
}

mod batch;
mod error;
mod friend_item;
mod friend_store;
mod inbox;
mod item;
pub mod message_item;
mod message_store;
pub mod message_stream;
mod party_item;
mod party_store;
mod placement_item;
mod placement_store;
mod player_game_state;
mod player_item;
mod player_store;
mod rate_limit;
mod recipient_check;
mod subscription_item;
mod subscription_store;
mod tables;
mod ticket_item;
mod ticket_store;

pub use friend_store::DynamoFriendStore;
pub use message_store::{DynamoDeliveryHandover, DynamoMessageStore};
pub use party_store::{DynamoPartyStore, OFFLINE_INDEX};
pub use placement_store::{DynamoPlacementOutcomes, DynamoPlacementStore, PLAYERS_PER_TRANSACTION};
pub use player_store::{DynamoPlayerStore, SWEEP_INDEX};
pub use recipient_check::DynamoRecipientCheck;
pub use subscription_store::DynamoSubscriptionStore;
pub use tables::create_friends_table;
pub use tables::create_messages_table;
pub use tables::create_parties_table;
pub use tables::create_placements_table;
pub use tables::create_subscriptions_table;
pub use tables::{client_for_endpoint, create_players_table};
pub use ticket_store::DynamoTicketStore;
