//! The browser's `fetch`, called through web-sys. Not reqwest: its URL
//! parser, HTTP types and header copying were a third of the web stack's
//! size floor, and every URL here is the page's own origin. As reqwest did,
//! it sends same-origin credentials and aborts a request whose future is
//! dropped before its body was read.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, RequestCredentials, RequestInit, Response};

/// A request to send: method, absolute URL, headers and a text body.
pub(crate) struct Call {
    init: RequestInit,
    headers: js_sys::Object,
    url: String,
}

impl Call {
    pub fn new(method: &str, url: String) -> Self {
        let init = RequestInit::new();
        init.set_method(method);
        init.set_credentials(RequestCredentials::SameOrigin);
        Self { init, headers: js_sys::Object::new(), url }
    }

    /// Adds a header (the names and values here are ASCII).
    pub fn header(self, name: &str, value: &str) -> Self {
        // Setting a property of a plain object does not fail.
        let _ = js_sys::Reflect::set(&self.headers, &name.into(), &value.into());
        self
    }

    pub fn body(self, text: &str) -> Self {
        self.init.set_body(&JsValue::from_str(text));
        self
    }

    /// Sends it and waits for the answer's head.
    pub async fn send(self) -> Result<Answer, &'static str> {
        let abort = Abort(AbortController::new().map_err(|_| "no AbortController")?);
        self.init.set_headers(&self.headers);
        self.init.set_signal(Some(&abort.0.signal()));
        let window = web_sys::window().ok_or("no window")?;
        let promise = window.fetch_with_str_and_init(&self.url, &self.init);
        let response = JsFuture::from(promise).await.map_err(|_| "network error")?;
        Ok(Answer { response: response.unchecked_into(), _abort: abort })
    }
}

/// Aborts the request when dropped: after the body was read, that does nothing.
struct Abort(AbortController);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An answer whose body has not been read yet.
pub(crate) struct Answer {
    response: Response,
    _abort: Abort,
}

impl Answer {
    pub fn status(&self) -> u16 {
        self.response.status()
    }

    /// `Retry-After` in seconds (API.md's form; an HTTP date is ignored), as ms.
    pub fn retry_after_millis(&self) -> Option<i64> {
        let value = self.response.headers().get("retry-after").ok()??;
        let seconds: i64 = value.trim().parse().ok()?;
        Some(seconds.saturating_mul(1000))
    }

    /// The body as text.
    pub async fn text(self) -> Result<String, &'static str> {
        let promise = self.response.text().map_err(|_| "body already read")?;
        let text = JsFuture::from(promise).await.map_err(|_| "unreadable body")?;
        text.as_string().ok_or("unreadable body")
    }
}
