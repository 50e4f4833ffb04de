//! What a page moved on the wire, from Chrome's own network events
//! (ChromeDriver's performance log: start the browser with
//! [`crate::Browser::start_recording_network`]), and Chrome DevTools
//! commands through ChromeDriver (`goog/cdp/execute`). Resource Timing
//! leaves out a stream that is still open (an `EventSource`); the network
//! events count its bytes as they arrive.

use std::collections::BTreeMap;

use fantoccini::Client;
use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::{Value, json};

/// A ChromeDriver endpoint beyond the W3C commands, on the session.
#[derive(Debug)]
struct SessionPost {
    path: &'static str,
    body: Value,
}

impl WebDriverCompatibleCommand for SessionPost {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/{}", session.unwrap_or_default(), self.path))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// Runs a Chrome DevTools command (`Network.emulateNetworkConditions`, …).
pub async fn command(client: &Client, method: &str, params: Value) -> anyhow::Result<Value> {
    let body = json!({"cmd": method, "params": params});
    Ok(client.issue_cmd(SessionPost { path: "goog/cdp/execute", body }).await?)
}

/// One request as Chrome saw it.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    pub url: String,
    /// The status the page saw (a revalidated cache entry: its own 200).
    pub status: u16,
    /// The status that came over the network (`304` for a revalidation).
    pub wire_status: Option<u16>,
    /// Response headers, names lower-cased.
    pub headers: BTreeMap<String, String>,
    /// Bytes received for it: headers and body as they came (compressed).
    pub bytes: u64,
    /// Answered from the browser's cache, without the network.
    pub from_cache: bool,
    /// Still open when the log was read (a live stream).
    pub open: bool,
}

impl Exchange {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// Every request since the log was last read, in the order they started.
#[derive(Debug, Default)]
pub struct Traffic {
    pub exchanges: Vec<Exchange>,
}

impl Traffic {
    /// Takes the performance log (ChromeDriver empties it as it answers).
    pub async fn read(client: &Client) -> anyhow::Result<Self> {
        let log = client.issue_cmd(SessionPost { path: "se/log", body: json!({"type": "performance"}) }).await?;
        let entries = log.as_array().cloned().unwrap_or_default();
        let mut order: Vec<String> = Vec::new();
        let mut by_id: BTreeMap<String, Exchange> = BTreeMap::new();
        let mut streamed: BTreeMap<String, u64> = BTreeMap::new();
        for entry in entries {
            let Some(text) = entry["message"].as_str() else { continue };
            let message: Value = serde_json::from_str(text)?;
            let (method, params) = (&message["message"]["method"], &message["message"]["params"]);
            let Some(id) = params["requestId"].as_str().map(str::to_owned) else { continue };
            let exchange = by_id.entry(id.clone()).or_insert_with(|| {
                order.push(id.clone());
                Exchange { open: true, ..Exchange::default() }
            });
            match method.as_str().unwrap_or_default() {
                "Network.requestWillBeSent" => exchange.url = params["request"]["url"].as_str().unwrap_or("").into(),
                "Network.requestServedFromCache" => exchange.from_cache = true,
                "Network.responseReceived" => {
                    let response = &params["response"];
                    exchange.status = u16::try_from(response["status"].as_u64().unwrap_or(0)).unwrap_or(0);
                    exchange.from_cache |= response["fromDiskCache"].as_bool() == Some(true)
                        || response["fromPrefetchCache"].as_bool() == Some(true);
                    if let Some(headers) = response["headers"].as_object() {
                        exchange.headers = headers
                            .iter()
                            .map(|(name, value)| (name.to_ascii_lowercase(), value.as_str().unwrap_or("").to_owned()))
                            .collect();
                    }
                    // What had arrived with the headers (their own size, mostly).
                    *streamed.entry(id).or_default() += response["encodedDataLength"].as_u64().unwrap_or(0);
                }
                "Network.responseReceivedExtraInfo" => {
                    exchange.wire_status = params["statusCode"].as_u64().and_then(|code| u16::try_from(code).ok());
                }
                "Network.dataReceived" => {
                    *streamed.entry(id).or_default() += params["encodedDataLength"].as_u64().unwrap_or(0);
                }
                "Network.loadingFinished" => {
                    exchange.open = false;
                    exchange.bytes = params["encodedDataLength"].as_u64().unwrap_or(0);
                }
                "Network.loadingFailed" => exchange.open = false,
                _ => {}
            }
        }
        for (id, bytes) in streamed {
            if let Some(exchange) = by_id.get_mut(&id).filter(|exchange| exchange.open) {
                exchange.bytes = bytes;
            }
        }
        // The browser's own pages (chrome://) are not the network.
        let exchanges =
            order.into_iter().filter_map(|id| by_id.remove(&id)).filter(|e| e.url.starts_with("http")).collect();
        Ok(Self { exchanges })
    }

    /// Bytes received over the network, all requests together.
    pub fn bytes(&self) -> u64 {
        self.exchanges.iter().map(|exchange| exchange.bytes).sum()
    }

    /// The exchanges whose URL's path (without the query) is `path`.
    pub fn to_path(&self, path: &str) -> impl Iterator<Item = &Exchange> {
        let path = path.to_owned();
        self.exchanges.iter().filter(move |exchange| {
            let rest = exchange.url.split("://").nth(1).unwrap_or(&exchange.url);
            let at = rest.find('/').map_or("/", |at| &rest[at..]);
            at.split('?').next() == Some(path.as_str())
        })
    }

    /// One line per request: bytes, status, encoding, cache, URL.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for e in &self.exchanges {
            out.push_str(&format!(
                "{:>9} B  {} {:<4} {:<5} {:<40} {}{}{}\n",
                e.bytes,
                e.status,
                e.wire_status.map_or_else(String::new, |status| format!("({status})")),
                e.header("content-encoding").unwrap_or("-"),
                e.header("cache-control").unwrap_or("-"),
                e.url,
                if e.from_cache { "  (cache)" } else { "" },
                if e.open { "  (open)" } else { "" },
            ));
        }
        out
    }
}

/// Sets the page's device clock `skew_ms` wrong, for every document from
/// the next navigation on, before any of its scripts runs: `Date` (`now()`,
/// `new Date()`, `Date()`) and `performance.timeOrigin` (so the monotonic
/// `timeOrigin + now()` the UI reads) are shifted alike; `performance.now()`
/// counts from the origin, as on a real device whose clock is set wrong.
/// Chromium has no flag for it, a time zone moves no instant, and
/// `Emulation`'s virtual time would also stop or race the page's timers,
/// so the page's own clocks are replaced.
pub async fn skew_clock(client: &Client, skew_ms: i64) -> anyhow::Result<()> {
    let source = format!(
        "(() => {{
           const skew = {skew_ms}, RealDate = Date, now = () => RealDate.now() + skew;
           const SkewedDate = new Proxy(RealDate, {{
             construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
             apply: () => new RealDate(now()).toString(),
             get: (target, key, receiver) => key === 'now' ? now : Reflect.get(target, key, receiver),
           }});
           Object.defineProperty(globalThis, 'Date', {{value: SkewedDate, writable: true, configurable: true}});
           const origin = Object.getOwnPropertyDescriptor(Performance.prototype, 'timeOrigin');
           Object.defineProperty(Performance.prototype, 'timeOrigin',
             {{...origin, get() {{ return origin.get.call(this) + skew; }}}});
         }})();"
    );
    command(client, "Page.addScriptToEvaluateOnNewDocument", json!({"source": source})).await?;
    Ok(())
}
