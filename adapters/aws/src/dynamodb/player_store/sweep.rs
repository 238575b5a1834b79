//! The sweeper's port on the Players table: a shard's tracked players page by page
//! (with how many the page read and how many were online, for the sweeper's metrics),
//! and marking an expired player offline.

use super::*;

#[async_trait]
impl PresenceSweep for DynamoPlayerStore {
    async fn expired(
        &self,
        shard: u32,
        now: EpochMillis,
        limit: u32,
        after: Option<&PlayerId>,
    ) -> Result<ExpiredPage, StoreError> {
        let limit = limit.clamp(1, BATCH_GET_LIMIT as u32);
        let output = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(SWEEP_INDEX)
            .key_condition_expression(TRACKED_KEY_CONDITION)
            .expression_attribute_values(":shard", n(shard))
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .set_exclusive_start_key(
                after
                    .map(|after| sweep_index_key(shard, after))
                    .transpose()?,
            )
            .send()
            .await
            .map_err(store_error)?;
        let keys: Vec<HashMap<String, AttributeValue>> = output
            .items()
            .iter()
            .map(|index_key| player_of_key(index_key).map(|player| key(&player)))
            .collect::<Result<_, _>>()?;
        let next = match output.last_evaluated_key() {
            Some(last) if !last.is_empty() => Some(player_of_key(last)?),
            _ => None,
        };
        // Eventually consistent: a stale `sweepAt` only makes a player look due, and
        // `mark_offline` checks the item itself before it acts.
        let (mut players, mut examined, mut online) = (Vec::new(), 0, 0);
        if !keys.is_empty() {
            for item in self.batch_get(keys, false, Some(&SWEEP_PROJECTION)).await? {
                let deadline = sweep_deadline(&item)?;
                examined += 1;
                online += usize::from(deadline.online_connection.is_some());
                if let Some(sweep_at) = deadline.sweep_at.filter(|at| *at < now) {
                    players.push(ExpiredPlayer {
                        player_id: deadline.player_id,
                        sweep_at,
                        online_connection: deadline.online_connection,
                    });
                }
            }
        }
        players.sort_by_key(|p| p.sweep_at);
        Ok(ExpiredPage {
            players,
            next,
            examined,
            online,
        })
    }

    async fn mark_offline(
        &self,
        player: &PlayerId,
        now: EpochMillis,
    ) -> Result<Option<PlayerRecord>, StoreError> {
        let result = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(player)))
            .update_expression(MARK_OFFLINE_UPDATE)
            .condition_expression(MARK_OFFLINE_CONDITION)
            .expression_attribute_names("#status", attr::STATUS)
            .expression_attribute_values(":offline", s(PresenceStatus::Offline.as_str()))
            .expression_attribute_values(":now", n(now))
            .return_values(ReturnValue::AllOld)
            .send()
            .await;
        match result {
            Ok(output) => match output.attributes() {
                Some(old) => required_record(old).map(Some),
                // The condition held, so the item existed; an empty image is a fault.
                None => Err(StoreError::Corrupt {
                    key: format!("{}={player}", attr::PLAYER_ID),
                    reason: "UpdateItem returned no ALL_OLD image".into(),
                }),
            },
            Err(err) => match classify(err) {
                Failure::ConditionFailed => Ok(None),
                Failure::Store(err) => Err(err),
            },
        }
    }
}

impl Calls<dyn PresenceSweep> for DynamoPlayerStore {
    /// The index page, the tracked players' `sweepAt` in batches, the write.
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = vec![AwsCall::on_index(&self.table, SWEEP_INDEX, "Query")];
        calls.extend(AwsCall::on_table(
            &self.table,
            &["BatchGetItem", "UpdateItem"],
        ));
        calls
    }
}
