//! The Players ports on the DynamoDB Players table: every operation is exactly one round
//! trip, and every race is settled by a condition expression
//! (contracts/src/lib.rs).

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use super::batch::{BATCH_GET_LIMIT, Projection, get_batch};
use super::error::{Failure, applied, classify, store_error};
use super::item::{n, s};
use super::player_item::{
    NO_PREVIOUS_STATUS, NO_PREVIOUS_SWEEP_AT, activity_value, attr, key, player_of_key,
    record_from_item, required_record, sweep_deadline, sweep_index_key,
};
use crate::calls::{AwsCall, Calls};
use shared::activity::Activity;
use shared::domain::{ConnectionId, EpochMillis, PlayerId, PresenceStatus};
use shared::players::{ConnectOutcome, ExpiredPage, ExpiredPlayer, NewConnection, PlayerRecord};
use shared::ports::{
    Activities, Connections, PlayerLookup, PlayerReader, PresenceSweep, StoreError,
};

mod sweep;

/// The sparse index of the players the sweeper tracks (online or disconnected), by
/// shard (KEYS_ONLY). `sweepAt` is deliberately not in it: a heartbeat moves `sweepAt`,
/// and moving an index key costs two index writes on every heartbeat; reading every
/// tracked player's item once a sweep costs far less (docs/cost.md).
pub const SWEEP_INDEX: &str = "BySweepShard";

/// `$connect`: overwrite the connection unless a later connection already holds the
/// record, copying the replaced status and `sweepAt` in the same write (the right-hand
/// sides are evaluated against the item as it was before the update).
const CONNECT_UPDATE: &str = "SET connectionId = :connectionId, #endpoint = :endpoint, \
     connectedAt = :connectedAt, lastSeen = :now, #status = :online, \
     sweepShard = :sweepShard, sweepAt = :sweepAt, expireAt = :expireAt, \
     previousStatus = if_not_exists(#status, :none), \
     previousSweepAt = if_not_exists(sweepAt, :zero), \
     previousConnectionId = if_not_exists(connectionId, :none), \
     previousEndpoint = if_not_exists(#endpoint, :none), \
     previousLastSeen = if_not_exists(lastSeen, :zero)";
/// `connectedAt` rather than `playerId`: an item other writers created with game state
/// only (no connection yet) must not make every `$connect` look superseded.
const CONNECT_CONDITION: &str = "attribute_not_exists(connectedAt) OR connectedAt <= :connectedAt";

/// Only the player's current, online connection may disconnect (as a heartbeat, the
/// heartbeat route's mapping template).
const CURRENT_ONLINE_CONDITION: &str = "connectionId = :connectionId AND #status = :online";
const DISCONNECT_UPDATE: &str = "SET #status = :disconnected, lastSeen = :now, sweepAt = :sweepAt";

/// The sweeper: only if `sweepAt` is still before `now` (a missing `sweepAt` fails it).
/// Going offline ends the player's activity in the same write.
const MARK_OFFLINE_UPDATE: &str = "SET #status = :offline REMOVE sweepShard, sweepAt, activity";

/// `setActivity`, on the player's current online connection: a new activity, or none.
const SET_ACTIVITY_UPDATE: &str = "SET activity = :activity";
const CLEAR_ACTIVITY_UPDATE: &str = "REMOVE activity";
const MARK_OFFLINE_CONDITION: &str = "sweepAt < :now";

const TRACKED_KEY_CONDITION: &str = "sweepShard = :shard";
/// What the sweeper reads of a tracked player's item. The read costs the same whatever
/// it projects (the whole item is metered).
const SWEEP_PROJECTION: Projection = Projection {
    expression: "playerId, sweepAt, #status, connectionId, endpoint",
    names: &[("#status", attr::STATUS)],
};

table_store! {
    /// The Players table in DynamoDB.
    DynamoPlayerStore
}

impl DynamoPlayerStore {
    /// The items of `keys` (at most 100) in one BatchGetItem ([`get_batch`]).
    async fn batch_get(
        &self,
        keys: Vec<HashMap<String, AttributeValue>>,
        consistent: bool,
        projection: Option<&Projection>,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        get_batch(&self.client, &self.table, keys, consistent, projection).await
    }

    /// An UpdateItem on the player's item, to be given its expressions.
    pub(super) fn update_player(&self, player: &PlayerId) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(player)))
    }

    /// A conditional UpdateItem on the player's item; `Ok(false)` when `condition` fails.
    pub(super) async fn update_if(
        &self,
        player: &PlayerId,
        update: &str,
        condition: &str,
        names: &[(&str, &str)],
        values: impl IntoIterator<Item = (&str, AttributeValue)>,
    ) -> Result<bool, StoreError> {
        let names = names
            .iter()
            .map(|(name, attribute)| ((*name).to_owned(), (*attribute).to_owned()))
            .collect::<HashMap<_, _>>();
        let values = values
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect::<HashMap<_, _>>();
        let result = self
            .update_player(player)
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .set_expression_attribute_values((!values.is_empty()).then_some(values))
            .send()
            .await;
        applied(result)
    }

    /// A conditional write on the player's current online connection; `Ok(false)` when
    /// the condition fails.
    async fn update_current_online(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        update: &str,
        values: impl IntoIterator<Item = (&str, AttributeValue)>,
    ) -> Result<bool, StoreError> {
        let current = [
            (":connectionId", s(connection.as_str())),
            (":online", s(PresenceStatus::Online.as_str())),
        ];
        let names = [("#status", attr::STATUS)];
        let values = values.into_iter().chain(current);
        self.update_if(player, update, CURRENT_ONLINE_CONDITION, &names, values)
            .await
    }
}

#[async_trait]
impl PlayerReader for DynamoPlayerStore {
    async fn get(&self, player: &PlayerId) -> Result<Option<PlayerRecord>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(player)))
            .consistent_read(true)
            .send()
            .await
            .map_err(store_error)?;
        match output.item() {
            Some(item) => record_from_item(item),
            None => Ok(None),
        }
    }
}

impl Calls<dyn PlayerReader> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["GetItem"])
    }
}

#[async_trait]
impl PlayerLookup for DynamoPlayerStore {
    async fn get_many(&self, players: &[PlayerId]) -> Result<Vec<PlayerRecord>, StoreError> {
        let mut seen = HashSet::new();
        let unique: Vec<&PlayerId> = players.iter().filter(|p| seen.insert(*p)).collect();
        let mut records = Vec::with_capacity(unique.len());
        for chunk in unique.chunks(BATCH_GET_LIMIT) {
            let keys = chunk.iter().map(|p| key(p)).collect();
            for item in self.batch_get(keys, true, None).await? {
                records.extend(record_from_item(&item)?);
            }
        }
        Ok(records)
    }
}

impl Calls<dyn PlayerLookup> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["BatchGetItem"])
    }
}

#[async_trait]
impl Connections for DynamoPlayerStore {
    async fn connect(&self, new: &NewConnection) -> Result<ConnectOutcome, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(&new.player_id)))
            .update_expression(CONNECT_UPDATE)
            .condition_expression(CONNECT_CONDITION)
            .expression_attribute_names("#status", attr::STATUS)
            .expression_attribute_names("#endpoint", attr::ENDPOINT)
            .expression_attribute_values(":connectionId", s(new.connection_id.as_str()))
            .expression_attribute_values(":endpoint", s(&new.endpoint))
            .expression_attribute_values(":connectedAt", n(new.connected_at))
            .expression_attribute_values(":now", n(new.now))
            .expression_attribute_values(":online", s(PresenceStatus::Online.as_str()))
            .expression_attribute_values(":sweepShard", n(new.sweep_shard))
            .expression_attribute_values(":sweepAt", n(new.heartbeat_deadline))
            .expression_attribute_values(":expireAt", n(new.expire_at_secs))
            // Also what `previousConnectionId`/`previousEndpoint` get when there were none.
            .expression_attribute_values(":none", s(NO_PREVIOUS_STATUS))
            .expression_attribute_values(":zero", n(NO_PREVIOUS_SWEEP_AT))
            .return_values(ReturnValue::AllOld)
            .send()
            .await;
        let output = match result {
            Ok(output) => output,
            Err(err) => {
                return match classify(err) {
                    Failure::ConditionFailed => Ok(ConnectOutcome::Superseded),
                    Failure::Store(err) => Err(err),
                };
            }
        };
        let previous = match output.attributes() {
            Some(old) if !old.is_empty() => record_from_item(old)?,
            _ => None,
        };
        Ok(ConnectOutcome::decide(previous.as_ref(), new))
    }

    async fn disconnect(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        now: EpochMillis,
        grace_until: EpochMillis,
    ) -> Result<bool, StoreError> {
        self.update_current_online(
            player,
            connection,
            DISCONNECT_UPDATE,
            [
                (":disconnected", s(PresenceStatus::Disconnected.as_str())),
                (":now", n(now)),
                (":sweepAt", n(grace_until)),
            ],
        )
        .await
    }
}

impl Calls<dyn Connections> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["UpdateItem"])
    }
}

#[async_trait]
impl Activities for DynamoPlayerStore {
    async fn set_activity(
        &self,
        player: &PlayerId,
        connection: &ConnectionId,
        activity: Option<&Activity>,
    ) -> Result<bool, StoreError> {
        match activity {
            Some(activity) => {
                let values = [(":activity", activity_value(activity))];
                self.update_current_online(player, connection, SET_ACTIVITY_UPDATE, values)
                    .await
            }
            None => {
                self.update_current_online(player, connection, CLEAR_ACTIVITY_UPDATE, [])
                    .await
            }
        }
    }
}

impl Calls<dyn Activities> for DynamoPlayerStore {
    fn calls(&self) -> Vec<AwsCall> {
        AwsCall::on_table(&self.table, &["UpdateItem"])
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use aws_sdk_dynamodb::Client;
    use aws_sdk_dynamodb::config::retry::RetryConfig;
    use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
    use aws_sdk_dynamodb::types::KeysAndAttributes;
    use aws_smithy_mocks::{Rule, RuleMode, mock, mock_client};

    use super::*;

    const TABLE: &str = "Players";

    /// A store whose client answers with `rules` (SDK retries off: one HTTP attempt per
    /// call, so every call the adapter makes is one the rule sees).
    fn store(rules: &[&Rule]) -> DynamoPlayerStore {
        let client = mock_client!(aws_sdk_dynamodb, RuleMode::MatchAny, rules, |config| {
            config.retry_config(RetryConfig::disabled())
        });
        DynamoPlayerStore::new(client, TABLE)
    }

    fn player(name: &str) -> PlayerId {
        PlayerId::parse(name).unwrap()
    }

    fn online_item(name: &str) -> HashMap<String, AttributeValue> {
        HashMap::from([
            (attr::PLAYER_ID.to_owned(), s(name)),
            (attr::CONNECTION_ID.to_owned(), s(format!("conn-{name}"))),
            (attr::ENDPOINT.to_owned(), s("https://api.example/prod")),
            (attr::CONNECTED_AT.to_owned(), n(10)),
            (attr::LAST_SEEN.to_owned(), n(11)),
            (attr::STATUS.to_owned(), s("online")),
        ])
    }

    fn name_of(key: &HashMap<String, AttributeValue>) -> String {
        key[attr::PLAYER_ID].as_s().unwrap().clone()
    }

    /// The player names each BatchGetItem call asked for, in call order.
    type Asked = Arc<Mutex<Vec<Vec<String>>>>;

    /// A BatchGetItem rule that records every call and answers with the items of the
    /// keys `process(call, name)` accepts, leaving the rest unprocessed.
    fn batch_get(
        asked: &Asked,
        process: impl Fn(usize, &str) -> bool + Send + Sync + 'static,
    ) -> Rule {
        let asked = asked.clone();
        mock!(Client::batch_get_item).then_compute_output(move |req| {
            let request = &req.request_items().unwrap()[TABLE];
            assert_eq!(request.consistent_read(), Some(true));
            let names: Vec<String> = request.keys().iter().map(name_of).collect();
            let call = {
                let mut asked = asked.lock().unwrap();
                asked.push(names.clone());
                asked.len() - 1
            };
            let (done, left): (Vec<String>, Vec<String>) =
                names.into_iter().partition(|name| process(call, name));
            let mut output = BatchGetItemOutput::builder()
                .responses(TABLE, done.iter().map(|name| online_item(name)).collect());
            if !left.is_empty() {
                let keys = left.iter().map(|name| key(&player(name))).collect();
                output = output.unprocessed_keys(
                    TABLE,
                    KeysAndAttributes::builder()
                        .set_keys(Some(keys))
                        .consistent_read(true)
                        .build()
                        .unwrap(),
                );
            }
            output.build()
        })
    }

    fn sorted_names(records: &[PlayerRecord]) -> Vec<String> {
        let mut names: Vec<String> = records.iter().map(|r| r.player_id.to_string()).collect();
        names.sort();
        names
    }

    #[tokio::test(start_paused = true)]
    async fn given_unprocessed_keys_when_reading_many_then_only_those_are_asked_again_and_every_record_returns()
     {
        // Given DynamoDB processes only alice the first time, the rest the second time.
        let asked = Asked::default();
        let rule = batch_get(&asked, |call, name| call > 0 || name == "alice");
        let started = tokio::time::Instant::now();

        // When reading three players (one named twice)
        let records = store(&[&rule])
            .get_many(&[
                player("alice"),
                player("bob"),
                player("carol"),
                player("bob"),
            ])
            .await
            .unwrap();

        // Then all three come back from two calls, the second one after a backoff and
        // for the unprocessed keys alone.
        assert_eq!(sorted_names(&records), vec!["alice", "bob", "carol"]);
        assert_eq!(rule.num_calls(), 2);
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked[0], vec!["alice", "bob", "carol"]);
        assert_eq!(asked[1], vec!["bob", "carol"]);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_micros(12_500) && waited <= Duration::from_millis(25),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn given_keys_never_processed_when_reading_many_then_unavailable_with_a_count_after_five_calls()
     {
        // Given DynamoDB never processes bob's key
        let asked = Asked::default();
        let rule = batch_get(&asked, |_, name| name != "bob");
        let started = tokio::time::Instant::now();

        // When reading alice and bob
        let err = store(&[&rule])
            .get_many(&[player("alice"), player("bob")])
            .await
            .unwrap_err();

        // Then the read fails as transient (not a partial answer that would make bob
        // look offline), naming what was left, after 1 + 4 calls and bounded waits.
        let StoreError::Unavailable(source) = &err else {
            panic!("{err:?}");
        };
        let left = source
            .downcast_ref::<super::super::batch::UnprocessedReads>()
            .expect("the count is the source");
        assert_eq!((left.unprocessed, left.requested, left.attempts), (1, 2, 5));
        assert_eq!(
            source.to_string(),
            "1 of 2 keys still unprocessed after 5 BatchGetItem attempts"
        );
        assert_eq!(rule.num_calls(), 5);
        assert!(
            asked.lock().unwrap()[1..]
                .iter()
                .all(|names| names == &["bob"])
        );
        // 25 + 50 + 100 + 200 ms, each jittered into its upper half.
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_micros(187_500) && waited <= Duration::from_millis(375),
            "{waited:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn given_150_players_when_reading_many_then_two_calls_of_at_most_100_keys() {
        let asked = Asked::default();
        let rule = batch_get(&asked, |_, _| true);
        let players: Vec<PlayerId> = (0..150).map(|i| player(&format!("p{i:03}"))).collect();

        let records = store(&[&rule]).get_many(&players).await.unwrap();

        assert_eq!(records.len(), 150);
        let sizes: Vec<usize> = asked.lock().unwrap().iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![100, 50]);
    }
}
