//! A party's pending request reserved for every member at once, and the parties'
//! offline index (the sweeper's): the party store's other two ports.

use super::*;

#[async_trait]
impl PartySlots for DynamoPartyStore {
    async fn reserve_party(
        &self,
        party: &Party,
        pending: &Pending,
    ) -> Result<PartyReservation, StoreError> {
        let check = ConditionCheck::builder()
            .table_name(&self.table)
            .set_key(Some(party_key(&party.party_id)))
            .condition_expression(SAME_LEADER)
            .expression_attribute_names("#version", attr::VERSION)
            .expression_attribute_names("#leader", attr::LEADER_ID)
            .expression_attribute_values(":version", n(party.version))
            .expression_attribute_values(":leader", s(party.leader_id.as_str()))
            .build()
            .map_err(build_error)?;
        for attempt in 1..=APPEND_ATTEMPTS {
            let mut items = vec![
                TransactWriteItem::builder()
                    .condition_check(check.clone())
                    .build(),
            ];
            for member in party.member_ids() {
                let values = HashMap::from([
                    (":pending".to_owned(), pending_value(pending)?),
                    (":placementId".to_owned(), s(pending.stored())),
                ]);
                items.push(self.player_update(
                    member,
                    BEGIN_PLACEMENT_UPDATE,
                    NONE_PENDING,
                    values,
                )?);
            }
            let reasons = match transact(&self.client, items).await? {
                Transacted::Committed => return Ok(PartyReservation::Reserved),
                Transacted::ConditionFailed(reasons) => reasons,
                Transacted::Conflict => {
                    tokio::time::sleep(inbox::backoff(attempt)).await;
                    continue;
                }
            };
            if reasons.first().is_some_and(Option::is_some) {
                return Ok(PartyReservation::PartyMoved);
            }
            for (member, reason) in party.member_ids().zip(reasons.iter().skip(1)) {
                let taken = reason
                    .as_ref()
                    .and_then(|r| r.item.as_ref())
                    .map(pending_of)
                    .transpose()?
                    .flatten();
                if let Some(taken) = taken {
                    return Ok(PartyReservation::Taken {
                        player: member.clone(),
                        pending: taken,
                    });
                }
            }
            // A pending placement that ended before it could be named: try again.
            tokio::time::sleep(inbox::backoff(attempt)).await;
        }
        Err(StoreError::Unavailable(
            format!(
                "beginning a placement for party {}: still contended",
                party.party_id
            )
            .into(),
        ))
    }
}

impl Calls<dyn PartySlots> for DynamoPartyStore {
    /// One transaction: the party checked unchanged, every member's slot set.
    fn calls(&self) -> Vec<AwsCall> {
        let mut calls = AwsCall::on_table(&self.table, &["ConditionCheckItem"]);
        calls.extend(AwsCall::on_table(&self.players_table, &["UpdateItem"]));
        calls
    }
}

#[async_trait]
impl OfflineParties for DynamoPartyStore {
    async fn offline(
        &self,
        shard: u32,
        before: EpochMillis,
        limit: u32,
        after: Option<&shared::party::OfflineParty>,
    ) -> Result<OfflinePage, StoreError> {
        let output = self
            .client
            .query()
            .table_name(&self.table)
            .index_name(OFFLINE_INDEX)
            .key_condition_expression("#shard = :shard AND #since <= :before")
            .expression_attribute_names("#shard", attr::SWEEP_SHARD)
            .expression_attribute_names("#since", attr::OFFLINE_SINCE)
            .expression_attribute_values(":shard", n(shard))
            .expression_attribute_values(":before", n(before))
            .limit(super::super::item::query_limit(limit))
            .set_exclusive_start_key(after.map(|a| offline_index_key(shard, a)).transpose()?)
            .send()
            .await
            .map_err(store_error)?;
        let parties = output
            .items()
            .iter()
            .map(offline_from_key)
            .collect::<Result<Vec<_>, _>>()?;
        let next = match output.last_evaluated_key() {
            Some(key) if !key.is_empty() => Some(offline_from_key(key)?),
            _ => None,
        };
        Ok(OfflinePage { parties, next })
    }
}

impl Calls<dyn OfflineParties> for DynamoPartyStore {
    fn calls(&self) -> Vec<AwsCall> {
        vec![AwsCall::on_index(&self.table, OFFLINE_INDEX, "Query")]
    }
}
