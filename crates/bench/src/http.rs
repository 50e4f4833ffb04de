//! The storm's HTTP client: one kept-alive HTTP/1.1 connection per worker,
//! requests built from parts made once, as wrk does. The load generator
//! shares the machine's cores with the server it measures, so every
//! microsecond it spends per request is one the server does not get:
//! reqwest's per-request work (its pool, redirects, header maps) cost about
//! as much CPU as a whole `GET /api/time` costs the server.

use anyhow::Context;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;

/// One connection to one server.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
}

/// A session token as a ready `Authorization` value.
pub fn bearer(token: &str) -> anyhow::Result<HeaderValue> {
    Ok(HeaderValue::from_str(&format!("Bearer {token}"))?)
}

impl Connection {
    /// Connects to `base` (`http://HOST:PORT`).
    pub async fn open(base: &str) -> anyhow::Result<Self> {
        let authority = base.strip_prefix("http://").with_context(|| format!("{base} is not http://HOST:PORT"))?;
        let stream = tokio::net::TcpStream::connect(authority).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            // Ends when the sender is dropped or the server closes.
            drop(connection.await);
        });
        Ok(Self { sender, host: HeaderValue::from_str(authority)? })
    }

    /// Sends one request and reads the whole answer: its status and body.
    pub async fn send(
        &mut self,
        method: Method,
        path: &str,
        auth: Option<&HeaderValue>,
        json: Option<Bytes>,
    ) -> anyhow::Result<(u16, Bytes)> {
        let mut request = Request::builder().method(method).uri(path).header(HOST, self.host.clone());
        if let Some(auth) = auth {
            request = request.header(AUTHORIZATION, auth.clone());
        }
        if json.is_some() {
            request = request.header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let request = request.body(Full::new(json.unwrap_or_default()))?;
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await?.to_bytes();
        Ok((status, body))
    }
}
