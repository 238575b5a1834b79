//! Counts AWS SDK round trips per operation (every HTTP attempt, retries included), for
//! the round-trip benchmarks: attach it to a client's config as an interceptor.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef;
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;

#[derive(Clone, Debug, Default)]
pub struct CallCounter(Arc<Mutex<BTreeMap<String, u64>>>);

impl CallCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls per operation name (e.g. `UpdateItem`) since the last reset.
    pub fn take(&self) -> BTreeMap<String, u64> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Intercept for CallCounter {
    fn name(&self) -> &'static str {
        "CallCounter"
    }

    fn read_before_transmit(
        &self,
        _context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let operation = cfg
            .load::<Metadata>()
            .map_or_else(|| "unknown".to_owned(), |m| m.name().to_owned());
        *self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(operation)
            .or_default() += 1;
        Ok(())
    }
}
