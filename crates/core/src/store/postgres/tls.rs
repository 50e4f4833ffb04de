//! TLS to PostgreSQL, chosen by the URL's `sslmode` (one setting for the
//! pool and the `LISTEN` connection alike):
//!
//! - `disable`: plain text.
//! - `prefer` (the default when the URL names no `sslmode`): plain text too,
//!   even to a server that offers TLS. libpq's `prefer` tries TLS and falls
//!   back to plain text; tokio-postgres's tries TLS whenever it is given a
//!   TLS connector and then fails, rather than falls back, on a certificate
//!   it cannot verify. So `prefer` connects exactly as Seathold did before it
//!   had TLS.
//! - `require`: TLS or no connection, and the server's certificate must
//!   chain to a trusted root and be valid for the host the URL names (a DNS
//!   name or an IP address). That is libpq's `verify-full`, which is
//!   accepted as a synonym; libpq's own `require` checks neither. The trusted
//!   roots are the certificates of the PEM file `sslrootcert=PATH` if the URL
//!   has one (libpq's `sslrootcert=system` means the system's), otherwise the
//!   system's (`/etc/ssl/certs`, or `SSL_CERT_FILE` / `SSL_CERT_DIR`).
//! - `allow` and `verify-ca` are refused, naming what to use instead; so is
//!   `sslrootcert` without `require`, which would look like a check that
//!   never happens.
//!
//! rustls on the `ring` provider; TLS 1.2 and 1.3; ALPN `postgresql`, so
//! PostgreSQL 17's `sslnegotiation=direct` works too. No client
//! certificates.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// How this process's connections to PostgreSQL are made.
#[derive(Clone)]
pub enum Tls {
    /// Plain text (`sslmode=disable` or `prefer`).
    Off(SslMode),
    /// TLS, the server's certificate verified (`sslmode=require`).
    On { connector: MakeRustlsConnect, roots: Roots },
}

/// Where `sslmode=require` finds the certificates it trusts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    /// The system's (`rustls-native-certs`).
    System,
    /// A PEM file (`sslrootcert=PATH`).
    File(PathBuf),
}

impl fmt::Display for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Off(SslMode::Disable) => f.write_str("without TLS (sslmode=disable)"),
            Self::Off(_) => f.write_str("without TLS (sslmode=prefer; sslmode=require for TLS)"),
            Self::On { roots: Roots::System, .. } => {
                f.write_str("with TLS (sslmode=require), the server's certificate checked against the system's roots")
            }
            Self::On { roots: Roots::File(path), .. } => {
                write!(f, "with TLS (sslmode=require), the server's certificate checked against {}", path.display())
            }
        }
    }
}

/// Reads a `postgres://` URL: tokio-postgres's settings, and the TLS that
/// every connection to it uses.
pub fn from_url(url: &str) -> anyhow::Result<(tokio_postgres::Config, Tls)> {
    let (url, roots) = take_tls_options(url)?;
    let config: tokio_postgres::Config = url.parse().with_context(|| format!("parsing {url}"))?;
    let tls = match (config.get_ssl_mode(), roots) {
        (mode @ (SslMode::Disable | SslMode::Prefer), None) => Tls::Off(mode),
        (SslMode::Disable | SslMode::Prefer, Some(roots)) => bail!(
            "sslrootcert={} is only used with sslmode=require: add sslmode=require \
             (without it the connection is not encrypted)",
            match &roots {
                Roots::System => "system".into(),
                Roots::File(path) => path.display().to_string(),
            }
        ),
        (SslMode::Require, roots) => {
            let roots = roots.unwrap_or(Roots::System);
            Tls::On { connector: connector(&roots)?, roots }
        }
        (mode, _) => bail!("unsupported sslmode {mode:?}: expected disable, prefer or require"),
    };
    Ok((config, tls))
}

/// Takes `sslrootcert` (which tokio-postgres does not know) out of the
/// URL's query, turns `sslmode=verify-full` into the `require` it means here,
/// and refuses the modes this client does not have.
fn take_tls_options(url: &str) -> anyhow::Result<(String, Option<Roots>)> {
    let Some((base, query)) = url.split_once('?') else { return Ok((url.to_owned(), None)) };
    let mut kept = Vec::new();
    let mut roots = None;
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value =
            percent_encoding::percent_decode_str(value).decode_utf8().context("a URL option that is not UTF-8")?;
        match (key, value.as_ref()) {
            ("sslrootcert", "") => bail!("sslrootcert names no file"),
            ("sslrootcert", "system") => roots = Some(Roots::System),
            ("sslrootcert", path) => roots = Some(Roots::File(PathBuf::from(path))),
            ("sslmode", "verify-full") => kept.push("sslmode=require"),
            ("sslmode", "verify-ca") => bail!(
                "sslmode=verify-ca is not supported: use sslmode=require, which also checks that the \
                 certificate names the host (libpq's verify-full)"
            ),
            ("sslmode", "allow") => {
                bail!("sslmode=allow is not supported: use sslmode=disable (plain text) or require (TLS)")
            }
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    Ok((url, roots))
}

/// A TLS connector trusting `roots`, on rustls's `ring` provider.
fn connector(roots: &Roots) -> anyhow::Result<MakeRustlsConnect> {
    let store = match roots {
        Roots::File(path) => file_roots(path)?,
        Roots::System => system_roots()?,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_root_certificates(store)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(MakeRustlsConnect::new(config))
}

fn file_roots(path: &Path) -> anyhow::Result<RootCertStore> {
    let read = || -> anyhow::Result<RootCertStore> {
        let mut store = RootCertStore::empty();
        for certificate in CertificateDer::pem_file_iter(path)? {
            store.add(certificate?)?;
        }
        if store.is_empty() {
            bail!("no PEM certificate in it");
        }
        Ok(store)
    };
    read().with_context(|| format!("reading sslrootcert={}", path.display()))
}

fn system_roots() -> anyhow::Result<RootCertStore> {
    let found = rustls_native_certs::load_native_certs();
    let mut store = RootCertStore::empty();
    store.add_parsable_certificates(found.certs);
    if store.is_empty() {
        let errors: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
        bail!(
            "sslmode=require found no system root certificates to check the server's against{}: \
             install them (Debian: ca-certificates) or name the CA with sslrootcert=PATH",
            if errors.is_empty() { String::new() } else { format!(" ({})", errors.join("; ")) }
        );
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn options(url: &str) -> (String, Option<Roots>) {
        take_tls_options(url).unwrap()
    }

    #[test]
    fn a_url_without_tls_options_is_left_alone() {
        let url = "postgres://u@h:5/db?application_name=x&options=-c%20a%3Db";
        assert_eq!(options(url), (url.to_owned(), None));
        assert_eq!(options("postgres://u@h/db"), ("postgres://u@h/db".to_owned(), None));
    }

    #[test]
    fn sslrootcert_is_taken_out_and_decoded() {
        assert_eq!(
            options("postgres://u@h/db?sslmode=require&sslrootcert=/a%20b/ca.pem&application_name=x"),
            (
                "postgres://u@h/db?sslmode=require&application_name=x".to_owned(),
                Some(Roots::File(PathBuf::from("/a b/ca.pem")))
            )
        );
        assert_eq!(
            options("postgres://u@h/db?sslrootcert=system&sslmode=verify-full"),
            ("postgres://u@h/db?sslmode=require".to_owned(), Some(Roots::System))
        );
    }

    #[test]
    fn the_modes_read_as_documented() {
        let (_, tls) = from_url("postgres://u@h/db").unwrap();
        assert!(matches!(tls, Tls::Off(SslMode::Prefer)));
        let (_, tls) = from_url("postgres://u@h/db?sslmode=disable").unwrap();
        assert!(matches!(tls, Tls::Off(SslMode::Disable)));
        for refused in ["allow", "verify-ca", "bogus"] {
            let error = from_url(&format!("postgres://u@h/db?sslmode={refused}")).err().unwrap();
            assert!(format!("{error:#}").contains("sslmode"), "{error:#}");
        }
    }

    #[test]
    fn sslrootcert_without_require_is_refused() {
        for roots in ["/ca.pem", "system"] {
            let error = from_url(&format!("postgres://u@h/db?sslmode=prefer&sslrootcert={roots}")).err().unwrap();
            assert!(format!("{error:#}").contains("add sslmode=require"), "{error:#}");
        }
    }

    #[test]
    fn an_unreadable_or_empty_root_file_is_refused_at_start() {
        let error = from_url("postgres://u@h/db?sslmode=require&sslrootcert=/nonexistent/ca.pem").err().unwrap();
        assert!(format!("{error:#}").contains("reading sslrootcert=/nonexistent/ca.pem"), "{error:#}");
        let empty = std::env::temp_dir().join(format!("seathold-empty-ca-{}.pem", std::process::id()));
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let error = from_url(&format!("postgres://u@h/db?sslmode=require&sslrootcert={}", empty.display())).err();
        std::fs::remove_file(&empty).unwrap();
        assert!(format!("{:#}", error.unwrap()).contains("no PEM certificate"));
    }
}
