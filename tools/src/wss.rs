//! `wss://` for the tools that open raw sockets (`loadgen`, `smoke`).

use std::sync::Arc;

use tokio_tungstenite::Connector;

/// rustls on aws-lc-rs (the TLS stack the AWS SDK already builds) with the system roots.
pub fn tls_connector() -> Result<Connector, String> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err(format!(
            "no system root certificates found for wss:// ({:?})",
            native.errors
        ));
    }
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Connector::Rustls(Arc::new(config)))
}
