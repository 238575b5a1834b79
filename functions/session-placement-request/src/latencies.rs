//! `setPlacementLatencies {"latencies": {"<region>": ms}}`: the caller's latencies for
//! the placements their party's leader asks for (the leader's own come with the
//! request). One write on the caller's item; `{}` clears them. The ack echoes what was
//! stored (rounded, in region order).

use edge::websocket::{Request, RouteError};
use shared::acks::LatenciesAck;
use shared::frames::ErrorCode;
use shared::requests::LatenciesBody;

use crate::SessionPlacementRequestHandler;

impl SessionPlacementRequestHandler {
    pub(crate) async fn set_latencies(
        &self,
        request: &Request,
        body: &LatenciesBody,
    ) -> Result<LatenciesAck, RouteError> {
        let latencies = body.latencies.rounded();
        let stored = self
            .ports
            .profiles
            .set_placement_latencies(&request.caller.player_id, &latencies)
            .await
            .map_err(|e| RouteError::from_store(e, "nothing was saved; retry"))?;
        if !stored {
            return Err(RouteError::new(
                ErrorCode::NotFound,
                "you have no player record yet: connect and send resume first",
            ));
        }
        Ok(LatenciesAck {
            latencies: latencies.into_iter().collect(),
        })
    }
}
