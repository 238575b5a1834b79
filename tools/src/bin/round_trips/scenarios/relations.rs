//! Friend rows: each friend route, a `listFriends` page of 100 friends with their
//! presence, and the presence fan-out to a player's 200 online friends.

use aws_adapters::dynamodb::DynamoFriendStore;
use contracts::events::route_event;
use contracts::friend_store_contract::befriend;
use edge::websocket::RouteHandler;
use serde_json::json;
use shared::requests::Route;

use super::{Error, World};
use crate::{Bench, client_event, now};

/// The friend routes' rows, as (route, from, to, id, label, target).
const CHANGES: &[(Route, &str, &str, &str, &str, &str)] = &[
    (
        Route::AddFriend,
        "amy",
        "ben",
        "add_friend",
        "addFriend (an invitation)",
        "1 rate-limit write ‖ 1 BatchGetItem (the invitee on Players, both sides on Friends), then 2 queries (inbox heads) + 1 transaction",
    ),
    (
        Route::AddFriend,
        "ben",
        "amy",
        "add_friend_accept",
        "addFriend accepting an invitation",
        "1 rate-limit write ‖ 1 BatchGetItem, then 2 queries + 1 transaction (sides, counts, 2 pushes)",
    ),
    (
        Route::BlockPlayer,
        "amy",
        "ben",
        "block_player",
        "blockPlayer ending a friendship",
        "1 BatchGetItem (Players and Friends), then 2 queries + 1 transaction",
    ),
    (
        Route::UnblockPlayer,
        "amy",
        "ben",
        "unblock_player",
        "unblockPlayer",
        "1 BatchGetItem + 1 transaction",
    ),
    (
        Route::AddFriend,
        "amy",
        "ben",
        "add_friend_again",
        "addFriend (an invitation, inboxes not new)",
        "1 rate-limit write ‖ 1 BatchGetItem, then 2 queries + 1 transaction",
    ),
    (
        Route::RemoveFriend,
        "amy",
        "ben",
        "remove_friend",
        "removeFriend withdrawing an invitation",
        "1 BatchGetItem, then 2 queries + 1 transaction",
    ),
];

impl World {
    pub(super) async fn friends(&self, bench: &mut Bench) -> Result<(), Error> {
        for name in ["amy", "ben"] {
            self.live(bench, name, &format!("fr-{name}")).await?;
        }
        for (route, from, to, id, label, target) in CHANGES {
            bench.reset();
            bench
                .route(self.friends.handle(client_event(
                    *route,
                    from,
                    &format!("fr-{from}"),
                    json!({"playerId": to}),
                )))
                .await?;
            bench.row(id, label, target);
        }
        // "star2" has 200 friends, all connected (set up through the store).
        let store = DynamoFriendStore::new(
            self.client.clone(),
            self.config.friends_table.clone(),
            self.config.messages_table.clone(),
        );
        for i in 0..200 {
            let name = format!("pal{i:03}");
            bench
                .route(
                    self.connect
                        .handle(route_event("$connect", &name, &name, now(), None)),
                )
                .await?;
            befriend(&store, "star2", &name).await;
        }
        self.live(bench, "star2", "fr-star2").await?;
        bench.reset();
        bench
            .route(self.friends.handle(client_event(
                Route::ListFriends,
                "star2",
                "fr-star2",
                json!({}),
            )))
            .await?;
        bench.row(
            "list_friends_100",
            "listFriends, a page of 100 friends with their presence",
            "1 query + 1 BatchGetItem (their presence)",
        );
        let row = (
            "presence_event_200_friends",
            "presence event, 200 online friends (nobody subscribed)",
            "1 query (watchers) ‖ 1 query (friends), 2 BatchGetItem (their presence), 200 appends",
        );
        self.presence_event(bench, "star2", row).await
    }
}
