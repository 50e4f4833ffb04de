//! Simulated customers and their HTTP requests: what they ask, how the
//! request travels (whole, or headers first and the body much later), and
//! what they remember from the answers.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::Request;
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::world::Answer;

/// What a customer asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// With `best`, the server picks that many adjacent seats instead.
    Hold {
        show: String,
        hold_id: Option<String>,
        seats: Vec<String>,
        floor: u32,
        best: Option<u32>,
    },
    Extend(String),
    Confirm(String),
    Release(String),
    Get(String),
    List,
    SeatMap(String),
    /// The box office blocks (or unblocks) seats; sent with the admin token.
    Block {
        show: String,
        seats: Vec<String>,
        block: bool,
    },
    /// Takes (or looks at) a place in a show's waiting room.
    Join(String),
}

/// One request of one customer; resent as is when retried.
#[derive(Debug, Clone)]
pub struct Spec {
    pub customer: usize,
    pub ask: Ask,
}

/// A request on its way; `None` once its connection dropped.
pub struct InFlight {
    pub spec: Spec,
    /// The server process it went to.
    pub process: usize,
    pub handle: JoinHandle<Option<Answer>>,
    /// A body still held back, and where to send it.
    pub slow_body: Option<(oneshot::Sender<Bytes>, Bytes)>,
}

/// A hold the server acknowledged to a customer (201, or 200 for a replay).
#[derive(Debug, Clone)]
pub struct Ack {
    pub show: String,
    pub seats: Vec<String>,
    pub confirmed: bool,
    /// The request that made it, when it named its seats and its id: the
    /// same request again must be answered as a replay (200), however long
    /// after, whatever became of the hold.
    pub asked: Option<Ask>,
}

/// Acknowledged holds in the order they were acknowledged (not by id: ids
/// the server makes are random, and choices must not depend on them).
#[derive(Debug, Default)]
pub struct Acked(Vec<(String, Ack)>);

impl Acked {
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(id, _)| id)
    }

    pub fn iter(&self) -> impl Iterator<Item = &(String, Ack)> {
        self.0.iter()
    }

    pub fn get(&self, id: &str) -> Option<&Ack> {
        self.0.iter().find(|(known, _)| known == id).map(|(_, ack)| ack)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Ack> {
        self.0.iter_mut().find(|(known, _)| known == id).map(|(_, ack)| ack)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.0.iter().any(|(known, _)| known == id)
    }

    pub fn remember(&mut self, id: String, ack: Ack) {
        if !self.contains(&id) {
            self.0.push((id, ack));
        }
    }
}

#[derive(Debug)]
pub struct Customer {
    pub token: String,
    pub holder_id: String,
    pub acked: Acked,
    /// Requests to send again (dropped, or answered 503).
    pub retries: Vec<Spec>,
    pub next_id: u32,
}

impl Spec {
    /// The HTTP request; with `slow`, the body is held back and returned.
    pub fn request(&self, token: &str, slow: bool) -> (Request<Body>, Option<(oneshot::Sender<Bytes>, Bytes)>) {
        let (method, path, body) = match &self.ask {
            Ask::Hold { show, hold_id, seats, floor, best } => {
                let mut body = match best {
                    Some(count) => json!({"best": {"count": count}}),
                    None => json!({"seats": seats}),
                };
                if *floor > 0 {
                    body["areas"] = json!({"floor": floor});
                }
                if let Some(id) = hold_id {
                    body["holdId"] = Value::from(id.as_str());
                }
                ("POST", format!("/api/shows/{show}/holds"), Some(body))
            }
            Ask::Extend(id) => ("POST", format!("/api/holds/{id}/extend"), None),
            Ask::Confirm(id) => ("POST", format!("/api/holds/{id}/confirm"), None),
            Ask::Release(id) => ("DELETE", format!("/api/holds/{id}"), None),
            Ask::Get(id) => ("GET", format!("/api/holds/{id}"), None),
            Ask::List => ("GET", "/api/holds".to_owned(), None),
            Ask::SeatMap(show) => ("GET", format!("/api/shows/{show}/seats"), None),
            Ask::Join(show) => ("POST", format!("/api/shows/{show}/queue"), None),
            Ask::Block { show, seats, block } => {
                let method = if *block { "POST" } else { "DELETE" };
                (method, format!("/api/admin/shows/{show}/blocked"), Some(json!({"seats": seats, "reason": "sim"})))
            }
        };
        let token = if matches!(self.ask, Ask::Block { .. }) { crate::world::ADMIN_TOKEN } else { token };
        let builder = Request::builder().method(method).uri(path).header("authorization", format!("Bearer {token}"));
        let Some(json) = body else { return (builder.body(Body::empty()).unwrap_or_default(), None) };
        let bytes = Bytes::from(json.to_string());
        let builder = builder.header("content-type", "application/json");
        if !slow {
            return (builder.body(Body::from(bytes)).unwrap_or_default(), None);
        }
        let (sender, receiver) = oneshot::channel::<Bytes>();
        let stream = futures_util::stream::once(async move {
            receiver.await.map_err(|_| std::io::Error::other("the client went away"))
        });
        (builder.body(Body::from_stream(stream)).unwrap_or_default(), Some((sender, bytes)))
    }

    /// The hold id the request is about, if any.
    pub fn hold_id(&self) -> Option<&str> {
        match &self.ask {
            Ask::Hold { hold_id, .. } => hold_id.as_deref(),
            Ask::Extend(id) | Ask::Confirm(id) | Ask::Release(id) | Ask::Get(id) => Some(id),
            Ask::List | Ask::SeatMap(_) | Ask::Block { .. } | Ask::Join(_) => None,
        }
    }
}

/// A connection that drops after the server has polled its request a given
/// number of times: between any two steps of the route, the writer's queue,
/// the commit and the answer, wherever the request happens to wait.
pub struct DropsAfterPolls<F> {
    request: Option<Pin<Box<F>>>,
    polls_left: Option<u32>,
}

impl<F: Future> DropsAfterPolls<F> {
    pub fn new(request: F, polls: Option<u32>) -> Self {
        Self { request: Some(Box::pin(request)), polls_left: polls }
    }
}

impl<F: Future> Future for DropsAfterPolls<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(left) = self.polls_left.as_mut() {
            if *left == 0 {
                self.request = None;
                return Poll::Ready(None);
            }
            *left -= 1;
        }
        let Some(request) = self.request.as_mut() else { return Poll::Ready(None) };
        request.as_mut().poll(context).map(Some)
    }
}
