//! The wss:// listener's certificate: self-signed, made at start-up for `localhost` and
//! `127.0.0.1` (and the bind address), written as PEM to a file a game server can trust
//! (`SSL_CERT_FILE` for Go; GetComputeCertificate answers its path).

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// The certificate, where it was written, and the acceptor that serves it.
pub struct Certificate {
    pub path: PathBuf,
    pub acceptor: TlsAcceptor,
}

/// Why no certificate could be made or written.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    #[error("cannot make the server SDK endpoint's certificate: {0}")]
    Generate(String),
    #[error("cannot write the server SDK endpoint's certificate to {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Makes a certificate for `localhost`, `127.0.0.1` and `bind`, writes its PEM under
/// `dir`, and builds the TLS acceptor (TLS 1.2 and 1.3: the C++ SDK asks for 1.2).
pub fn make(dir: &Path, bind: IpAddr) -> Result<Certificate, CertificateError> {
    let mut names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
    if !bind.is_unspecified() && !bind.is_loopback() {
        names.push(bind.to_string());
    }
    let generated = rcgen::generate_simple_self_signed(names)
        .map_err(|e| CertificateError::Generate(e.to_string()))?;
    // A fresh name per stack: tests run several at once.
    let path = dir.join(format!(
        "gamelift-sockets-sdk5-{}.pem",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&path, generated.cert.pem()).map_err(|source| CertificateError::Write {
        path: path.clone(),
        source,
    })?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        generated.signing_key.serialize_der(),
    ));
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|builder| {
            builder
                .with_no_client_auth()
                .with_single_cert(vec![generated.cert.der().clone()], key)
        })
        .map_err(|e| CertificateError::Generate(e.to_string()))?;
    Ok(Certificate {
        path,
        acceptor: TlsAcceptor::from(Arc::new(config)),
    })
}
