//! TLS for the front's clients, with rustls: `--tls-cert` and `--tls-key`, PEM files, and with
//! `--tls-client-ca` mutual TLS (every client must present a certificate that CA signed). The
//! files are read once, at the start; HTTP/2 is the one protocol offered (ALPN `h2`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::crypto::aws_lc_rs;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

/// The files of the front's TLS.
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// None: no client certificate is asked for.
    pub client_ca: Option<PathBuf>,
}

/// The acceptor of the front's TLS connections; the error says which file is wrong, and why.
pub fn acceptor(files: &TlsFiles) -> Result<TlsAcceptor, String> {
    let provider = Arc::new(aws_lc_rs::default_provider());
    let certs = certificates("tls-cert", &files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key)
        .map_err(|err| format!("--tls-key: {}: {err}", files.key.display()))?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("TLS: {err}"))?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let mut roots = RootCertStore::empty();
            for cert in certificates("tls-client-ca", path)? {
                roots
                    .add(cert)
                    .map_err(|err| format!("--tls-client-ca: {}: {err}", path.display()))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|err| format!("--tls-client-ca: {}: {err}", path.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|err| format!("--tls-cert and --tls-key: {err}"))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The certificates in a PEM file, at least one.
fn certificates(flag: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let wrong = |err: &dyn std::fmt::Display| format!("--{flag}: {}: {err}", path.display());
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|err| wrong(&err))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| wrong(&err))?;
    if certs.is_empty() {
        return Err(wrong(&"no certificate in it"));
    }
    Ok(certs)
}
