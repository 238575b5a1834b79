//! The TLS client for `wss://`: the platform's trust roots (rustls-native-certs, which
//! reads `SSL_CERT_FILE`/`SSL_CERT_DIR` instead when set, as Go's crypto/x509 does) plus
//! an optional PEM file, so a local stack's self-signed certificate can be trusted.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::error::GameLiftError;

/// A client configuration trusting the platform's roots and `extra_ca`'s certificates.
pub(crate) fn client_config(
    extra_ca: Option<&Path>,
) -> Result<Arc<rustls::ClientConfig>, GameLiftError> {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for error in &native.errors {
        tracing::debug!(%error, "a platform certificate could not be read");
    }
    roots.add_parsable_certificates(native.certs);
    if let Some(path) = extra_ca {
        let bad = |reason: String| {
            GameLiftError::Config(format!("ca_certificate_file {}: {reason}", path.display()))
        };
        let certificates = CertificateDer::pem_file_iter(path)
            .map_err(|e| bad(e.to_string()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(e.to_string()))?;
        if certificates.is_empty() {
            return Err(bad("no PEM certificate in it".to_owned()));
        }
        for certificate in certificates {
            roots.add(certificate).map_err(|e| bad(e.to_string()))?;
        }
    }
    // aws-lc-rs named here, not left to the process default, so a build that also links
    // ring (another crate's feature) still has one provider to use.
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| GameLiftError::Config(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}
