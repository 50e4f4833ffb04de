//! The storm's HTTP client: one kept-alive HTTP/1.1 connection per worker,
//! requests built from parts made once, as wrk does. The load generator
//! shares the machine's cores with the server it measures, so every
//! microsecond it spends per request is one the server does not get:
//! reqwest's per-request work (its pool, redirects, header maps) cost about
//! as much CPU as a whole `GET /api/time` costs the server.

use std::io::Read;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context as TaskContext, Poll};

use anyhow::Context;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_ENCODING, CONTENT_TYPE, HOST, HeaderName, HeaderValue};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// One connection to one server.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    base: String,
    host: HeaderValue,
    /// Every byte the server sent on this connection: headers, framing, bodies.
    received: Arc<AtomicU64>,
}

/// A session token as a ready `Authorization` value.
pub fn bearer(token: &str) -> anyhow::Result<HeaderValue> {
    Ok(HeaderValue::from_str(&format!("Bearer {token}"))?)
}

/// `HOST:PORT` of `http://HOST:PORT`.
pub fn authority(base: &str) -> anyhow::Result<&str> {
    base.strip_prefix("http://").with_context(|| format!("{base} is not http://HOST:PORT"))
}

impl Connection {
    /// Connects to `base` (`http://HOST:PORT`).
    pub async fn open(base: &str) -> anyhow::Result<Self> {
        let authority = authority(base)?;
        let stream = TcpStream::connect(authority).await?;
        stream.set_nodelay(true)?;
        let received = Arc::new(AtomicU64::new(0));
        let counted = Counted { stream, received: Arc::clone(&received) };
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(counted)).await?;
        tokio::spawn(async move {
            // Ends when the sender is dropped or the server closes.
            drop(connection.await);
        });
        Ok(Self { sender, base: base.to_owned(), host: HeaderValue::from_str(authority)?, received })
    }

    /// Connects again when the server has closed this connection (it closes
    /// kept-alive connections idle longer than its header timeout, and a
    /// browser then opens another); whether it did.
    pub async fn reopen_if_closed(&mut self) -> anyhow::Result<bool> {
        if self.is_open() {
            return Ok(false);
        }
        let received = self.received();
        *self = Self::open(&self.base).await?;
        // The byte count goes on across connections.
        self.received.fetch_add(received, Ordering::Relaxed);
        Ok(true)
    }

    /// Bytes received on this connection so far.
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }

    /// Whether the server may still answer on it (not closed).
    pub fn is_open(&self) -> bool {
        !self.sender.is_closed()
    }

    /// Sends one request and reads the whole answer: its status and body.
    pub async fn send(
        &mut self,
        method: Method,
        path: &str,
        auth: Option<&HeaderValue>,
        json: Option<Bytes>,
    ) -> anyhow::Result<(u16, Bytes)> {
        let auth = auth.map(|auth| (AUTHORIZATION, auth.clone()));
        let answer = self.send_with(method, path, auth.as_slice(), json).await?;
        Ok((answer.status, answer.body))
    }

    /// [`Connection::send`] with any extra headers (`Accept-Encoding`, …).
    pub async fn send_with(
        &mut self,
        method: Method,
        path: &str,
        headers: &[(HeaderName, HeaderValue)],
        json: Option<Bytes>,
    ) -> anyhow::Result<Answer> {
        let mut request = Request::builder().method(method).uri(path).header(HOST, self.host.clone());
        for (name, value) in headers {
            request = request.header(name, value.clone());
        }
        if json.is_some() {
            request = request.header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        let request = request.body(Full::new(json.unwrap_or_default()))?;
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status().as_u16();
        let encoding = response.headers().get(CONTENT_ENCODING).cloned();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Answer { status, body, encoding })
    }
}

/// A whole answer, its body as sent (compressed when the server chose to).
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
    pub encoding: Option<HeaderValue>,
}

impl Answer {
    /// The body decompressed (`br`, `gzip` or none: all the storm accepts).
    pub fn decoded(&self) -> anyhow::Result<Vec<u8>> {
        let mut out = Vec::new();
        match self.encoding.as_ref().map(HeaderValue::as_bytes) {
            None | Some(b"identity") => out.extend_from_slice(&self.body),
            Some(b"gzip") => drop(flate2::read::GzDecoder::new(&self.body[..]).read_to_end(&mut out)?),
            Some(b"br") => drop(brotli_decompressor::Decompressor::new(&self.body[..], 4096).read_to_end(&mut out)?),
            Some(other) => anyhow::bail!("Content-Encoding {} was not asked for", String::from_utf8_lossy(other)),
        }
        Ok(out)
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> serde_json::Value {
        self.decoded().ok().and_then(|body| serde_json::from_slice(&body).ok()).unwrap_or_default()
    }
}

/// A TCP stream that counts what it reads: the bytes on the wire.
struct Counted {
    stream: TcpStream,
    received: Arc<AtomicU64>,
}

impl AsyncRead for Counted {
    fn poll_read(self: Pin<&mut Self>, cx: &mut TaskContext<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        this.received.fetch_add((buf.filled().len() - before) as u64, Ordering::Relaxed);
        poll
    }
}

impl AsyncWrite for Counted {
    fn poll_write(self: Pin<&mut Self>, cx: &mut TaskContext<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buffers: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
