//! Why the local stack could not start.

use std::net::SocketAddr;

use shared::ports::StoreError;

use crate::settings::SettingsError;
use crate::stream::StreamError;

/// Why [`crate::LocalStack::build`] or [`crate::LocalStack::start`] failed.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Settings(#[from] SettingsError),

    #[error("cannot build the authorizer: {0}")]
    Authorizer(String),
    #[error("cannot read the heartbeat route's integration from template.yaml: {0}")]
    Template(String),
    #[error("cannot open the store")]
    Storage(#[from] StoreError),
    #[error("cannot consume the Messages stream")]
    Stream(#[from] StreamError),
    #[error(transparent)]
    Certificate(#[from] crate::gamelift_sdk::tls::CertificateError),
    #[error("cannot listen on {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}
