//! One customer: a headless Chromium with its own profile (so its own
//! session cookie) on a show's seat map, driven through the UI's stable
//! hooks (`data-seat-id`, `data-action`, `data-countdown`, `role=alert`).

use std::path::PathBuf;

use anyhow::Context;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::{Value, json};

use crate::{Browser, Server, required_path, screenshot_dir};

/// A customer's browser on one server.
pub struct Customer {
    pub browser: Browser,
    /// Names screenshots and failure messages: "alice", "bob".
    pub name: String,
    base_url: String,
}

/// A CSS selector for one seat.
fn seat(id: &str) -> String {
    format!("[data-seat-id=\"{id}\"]")
}

/// The list picker's checkbox for one seat (`data-list-seat`).
pub fn list_seat(id: &str) -> String {
    format!("input[data-list-seat=\"{id}\"]")
}

/// A JS string literal.
fn js(text: &str) -> String {
    Value::from(text).to_string()
}

impl Customer {
    /// Opens a fresh browser profile for `name` against `server`.
    pub async fn start(server: &Server, name: &str) -> anyhow::Result<Self> {
        let browser = Browser::start().await?;
        Ok(Self { browser, name: name.to_owned(), base_url: server.base_url.clone() })
    }

    /// Like [`Self::start`], with the device clock `skew_ms` wrong
    /// ([`crate::cdp::skew_clock`]) on every page it opens.
    pub async fn start_with_clock_skew(server: &Server, name: &str, skew_ms: i64) -> anyhow::Result<Self> {
        let customer = Self::start(server, name).await?;
        crate::cdp::skew_clock(&customer.browser.client, skew_ms).await?;
        Ok(customer)
    }

    /// Opens a show's page and waits until its map is drawn and live.
    pub async fn open(&self, show: &str) -> anyhow::Result<()> {
        self.browser.client.goto(&format!("{}/shows/{show}", self.base_url)).await?;
        self.until_ready().await
    }

    /// Opens a show's page without waiting for its map (a waiting room may
    /// stand in front of it); [`Self::until_ready`] waits for the map.
    pub async fn visit(&self, show: &str) -> anyhow::Result<()> {
        Ok(self.browser.client.goto(&format!("{}/shows/{show}", self.base_url)).await?)
    }

    /// Reloads the page without waiting for its map.
    pub async fn reload_page(&self) -> anyhow::Result<()> {
        Ok(self.browser.client.refresh().await?)
    }

    /// Reloads the page and waits until the map is drawn and live again.
    pub async fn reload(&self) -> anyhow::Result<()> {
        self.browser.client.refresh().await?;
        self.until_ready().await
    }

    /// Waits until the map is drawn and its stream live.
    pub async fn until_ready(&self) -> anyhow::Result<()> {
        self.wait_for("the seat map", "document.querySelectorAll('[data-seat-id]').length > 0").await?;
        self.wait_for("the live stream", "document.querySelector('.connection[data-connection=\"live\"]')").await
    }

    /// Polls a JS condition, naming this customer when it times out.
    pub async fn wait_for(&self, what: &str, script: &str) -> anyhow::Result<()> {
        self.browser.wait_for(&format!("{}: {what}", self.name), script).await
    }

    /// Evaluates a JS expression on this customer's page.
    pub async fn eval(&self, expression: &str) -> anyhow::Result<Value> {
        self.browser.eval(expression).await
    }

    /// Clicks a seat and waits until it shows as picked.
    pub async fn select(&self, id: &str) -> anyhow::Result<()> {
        self.browser.find(&seat(id)).await?.click().await?;
        self.wait_for(
            &format!("{id} picked"),
            &format!("document.querySelector('{}[aria-pressed=\"true\"]')", seat(id)),
        )
        .await
    }

    /// Presses a button `[data-action=ACTION]` once it is enabled.
    pub async fn press(&self, action: &str) -> anyhow::Result<()> {
        let button = format!("[data-action=\"{action}\"]:not([disabled])");
        self.wait_for(&format!("{action} enabled"), &format!("document.querySelector('{button}')")).await?;
        self.browser.find(&button).await?.click().await?;
        Ok(())
    }

    /// Presses Hold and waits for the hold's countdown.
    pub async fn hold(&self) -> anyhow::Result<()> {
        self.press("hold").await?;
        self.wait_for("the hold's countdown", "document.querySelector('[data-countdown]')").await
    }

    /// `free`, `held` or `sold`, as the map shows the seat now.
    pub async fn state_of(&self, id: &str) -> anyhow::Result<String> {
        let state = self.eval(&format!("document.querySelector('{}').dataset.state", seat(id))).await?;
        state.as_str().map(str::to_owned).with_context(|| format!("{}: no seat {id}", self.name))
    }

    /// Waits until the map shows every seat of `ids` in `state`.
    pub async fn wait_state(&self, ids: &[&str], state: &str) -> anyhow::Result<()> {
        let all = ids
            .iter()
            .map(|id| format!("document.querySelector('{}[data-state=\"{state}\"]')", seat(id)))
            .collect::<Vec<_>>()
            .join(" && ");
        self.wait_for(&format!("{ids:?} {state}"), &all).await
    }

    /// Whether the seat is picked for the next hold (`aria-pressed`).
    pub async fn is_selected(&self, id: &str) -> anyhow::Result<bool> {
        Ok(self.eval(&format!("document.querySelector('{}').getAttribute('aria-pressed')", seat(id))).await? == "true")
    }

    /// Whether the seat is held or sold to this customer (`data-mine`).
    pub async fn is_mine(&self, id: &str) -> anyhow::Result<bool> {
        Ok(self.eval(&format!("document.querySelector('{}').dataset.mine", seat(id))).await? == "true")
    }

    /// The seat's accessible name, e.g. "Row B, seat 7, available".
    pub async fn seat_name(&self, id: &str) -> anyhow::Result<String> {
        let name = self.eval(&format!("document.querySelector('{}').getAttribute('aria-label')", seat(id))).await?;
        Ok(name.as_str().unwrap_or_default().to_owned())
    }

    /// The countdown's text (`m:ss`), if one is shown.
    pub async fn countdown_text(&self) -> anyhow::Result<Option<String>> {
        let text = self.eval("document.querySelector('[data-countdown]')?.textContent ?? null").await?;
        Ok(text.as_str().map(str::to_owned))
    }

    /// The countdown's `data-remaining-ms`, if one is shown.
    pub async fn countdown_ms(&self) -> anyhow::Result<Option<i64>> {
        let text = self.eval("document.querySelector('[data-countdown]')?.dataset.remainingMs ?? null").await?;
        Ok(text.as_str().and_then(|ms| ms.parse().ok()))
    }

    /// Waits for the countdown's next tick and returns its fresh
    /// `data-remaining-ms` (the attribute changes only with the text, so
    /// between ticks it may be up to a second old).
    pub async fn next_tick(&self) -> anyhow::Result<i64> {
        let now = self.countdown_ms().await?.context("no countdown")?;
        let changed = format!("+document.querySelector('[data-countdown]')?.dataset.remainingMs !== {now}");
        self.wait_for("the countdown's next tick", &changed).await?;
        self.countdown_ms().await?.context("no countdown")
    }

    /// The countdown's `data-phase`: `normal`, `warning` or `expired`.
    pub async fn countdown_phase(&self) -> anyhow::Result<String> {
        let phase = self.eval("document.querySelector('[data-countdown]')?.dataset.phase ?? ''").await?;
        Ok(phase.as_str().unwrap_or_default().to_owned())
    }

    /// The text of an element, or "" when there is none.
    pub async fn text_of(&self, css: &str) -> anyhow::Result<String> {
        let text = self.eval(&format!("document.querySelector({})?.textContent ?? ''", js(css))).await?;
        Ok(text.as_str().unwrap_or_default().trim().to_owned())
    }

    /// The urgent sentence (`role=alert`), or "".
    pub async fn alert(&self) -> anyhow::Result<String> {
        self.text_of("[role=alert]").await
    }

    /// Fetches `path` with this customer's cookie, from the page.
    pub async fn fetch(&self, path: &str) -> anyhow::Result<Value> {
        let script = format!(
            "const done = arguments[arguments.length - 1];
             fetch({}).then(r => r.json()).then(done, e => done({{error: String(e)}}));",
            js(path)
        );
        Ok(self.browser.client.execute_async(&script, vec![]).await?)
    }

    /// This customer's holds as the server has them, newest first.
    pub async fn holds(&self) -> anyhow::Result<Vec<Value>> {
        let list = self.fetch("/api/holds").await?;
        list["holds"].as_array().cloned().with_context(|| format!("{}: no hold list: {list}", self.name))
    }

    /// Starts recording, in the page, the local instant (`Date.now()`)
    /// each time one of these seats changes state: exact to the
    /// millisecond, whatever WebDriver's own latency.
    pub async fn watch(&self, ids: &[&str]) -> anyhow::Result<()> {
        let script = format!(
            "window.seatLog = window.seatLog || {{}};
             for (const id of {}) {{
               const seat = document.querySelector(`[data-seat-id=\"${{id}}\"]`);
               const log = window.seatLog[id] = [{{state: seat.dataset.state, at: Date.now()}}];
               new MutationObserver(() => {{
                 if (log[log.length - 1].state !== seat.dataset.state) {{
                   log.push({{state: seat.dataset.state, at: Date.now()}});
                 }}
               }}).observe(seat, {{attributes: true, attributeFilter: ['data-state']}});
             }}
             return true;",
            json!(ids)
        );
        self.browser.client.execute(&script, vec![]).await?;
        Ok(())
    }

    /// Waits until a watched seat turns `state`; the local instant
    /// (Unix ms) it first did so after [`Customer::watch`].
    pub async fn turned(&self, id: &str, state: &str) -> anyhow::Result<i64> {
        let entry = format!("(window.seatLog[{}] || []).slice(1).find(e => e.state === {})", js(id), js(state));
        self.wait_for(&format!("{id} turning {state}"), &entry).await?;
        let at = self.eval(&format!("{entry}.at")).await?;
        at.as_i64().with_context(|| format!("no instant for {id}"))
    }

    /// Presses and releases keys on whatever has focus, as a keyboard would.
    pub async fn keys(&self, keys: &[Key]) -> anyhow::Result<()> {
        let mut actions = KeyActions::new("keyboard".to_owned());
        for key in keys {
            let value = char::from(*key);
            actions = actions.then(KeyAction::Down { value }).then(KeyAction::Up { value });
        }
        self.browser.client.perform_actions(actions).await?;
        Ok(())
    }

    /// Whether the focused element matches `css`.
    pub async fn focus_is(&self, css: &str) -> anyhow::Result<bool> {
        let script = format!("!!document.activeElement && document.activeElement.matches({})", js(css));
        Ok(self.eval(&script).await? == true)
    }

    /// Presses Tab until the focused element matches `css` (at most `max` times).
    pub async fn tab_to(&self, css: &str, max: usize) -> anyhow::Result<()> {
        for _ in 0..max {
            if self.focus_is(css).await? {
                return Ok(());
            }
            self.keys(&[Key::Tab]).await?;
        }
        anyhow::ensure!(self.focus_is(css).await?, "{}: {max} Tabs did not reach {css}", self.name);
        Ok(())
    }

    /// Saves a screenshot `target/e2e/customers-NAME.png` and returns its path.
    pub async fn screenshot(&self, name: &str) -> anyhow::Result<PathBuf> {
        let path = self.browser.screenshot(&screenshot_dir().join(format!("customers-{name}.png"))).await?;
        println!("screenshot: {}", path.display());
        Ok(path)
    }

    /// Runs axe-core (`SEATHOLD_AXE`) on the page: every violation found.
    /// Fails if axe-core checked nothing.
    pub async fn audit(&self) -> anyhow::Result<Vec<Violation>> {
        let source = std::fs::read_to_string(required_path("SEATHOLD_AXE")?)?;
        let loaded = self
            .browser
            .client
            // Run as WebDriver's own script, not an injected <script>: the
            // page's Content-Security-Policy (rightly) refuses inline ones.
            .execute(&format!("if (!window.axe) {{\n{source}\n}}\nreturn typeof window.axe;"), Vec::new())
            .await?;
        anyhow::ensure!(loaded == "object", "axe-core did not load: {loaded}");
        let script = "const done = arguments[arguments.length - 1];
            axe.run(document, {resultTypes: ['violations']})
              .then(r => done({passes: r.passes.length, violations: r.violations.map(v => ({
                  impact: v.impact, id: v.id, help: v.help,
                  nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))}),
                    e => done({error: String(e)}));";
        let result = self.browser.client.execute_async(script, vec![]).await?;
        anyhow::ensure!(result["passes"].as_u64().is_some_and(|n| n > 0), "axe-core checked nothing: {result}");
        let found = result["violations"].as_array().cloned().unwrap_or_default();
        Ok(found
            .iter()
            .map(|v| Violation {
                impact: v["impact"].as_str().unwrap_or("unknown").to_owned(),
                rule: v["id"].as_str().unwrap_or_default().to_owned(),
                help: v["help"].as_str().unwrap_or_default().to_owned(),
                nodes: v["nodes"].to_string(),
            })
            .collect())
    }

    /// Ends the browser session.
    pub async fn close(self) -> anyhow::Result<()> {
        self.browser.close().await
    }
}

/// One axe-core finding.
#[derive(Debug, Clone)]
pub struct Violation {
    /// `minor`, `moderate`, `serious` or `critical`.
    pub impact: String,
    pub rule: String,
    pub help: String,
    /// The first few offending elements' selectors.
    pub nodes: String,
}

impl Violation {
    /// Serious or critical: a barrier, not a blemish.
    pub fn is_barrier(&self) -> bool {
        matches!(self.impact.as_str(), "serious" | "critical")
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}: {} at {}", self.impact, self.rule, self.help, self.nodes)
    }
}
