//! Headless Chromium through ChromeDriver, with DOM polling helpers.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

use crate::PATIENCE;

/// ChromeDriver plus one browser session; both end on drop.
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Browser {
    /// Starts ChromeDriver on a free port and opens a fresh headless profile.
    pub async fn start() -> anyhow::Result<Self> {
        Self::start_as(None, false).await
    }

    /// Like [`Browser::start`], keeping Chrome's network events for
    /// [`crate::cdp::Traffic::read`] (ChromeDriver's performance log).
    pub async fn start_recording_network() -> anyhow::Result<Self> {
        Self::start_as(None, true).await
    }

    /// Like [`Browser::start`], as a phone: ChromeDriver's mobile emulation
    /// at 390×844 CSS pixels (device pixel ratio 3) with touch.
    pub async fn start_phone() -> anyhow::Result<Self> {
        let phone = json!({
            "deviceMetrics": { "width": 390, "height": 844, "pixelRatio": 3.0, "touch": true },
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                          Chrome/120.0 Mobile Safari/537.36"
        });
        Self::start_as(Some(phone), false).await
    }

    async fn start_as(mobile_emulation: Option<serde_json::Value>, network_log: bool) -> anyhow::Result<Self> {
        let port = free_port()?;
        let driver_path = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
        let profile = tempfile::tempdir()?;
        // Chromium's own temporary folders go inside the profile's: drop
        // kills the browser before it can remove them, and the profile's
        // folder goes with everything in it.
        let scratch = profile.path().join("tmp");
        std::fs::create_dir(&scratch)?;
        // Its own process group, so that drop can kill the Chromium it starts too.
        let driver = Command::new(&driver_path)
            .arg(format!("--port={port}"))
            .env("TMPDIR", &scratch)
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {driver_path}"))?;
        let client = match Self::connect(port, profile.path(), mobile_emulation, network_log).await {
            Ok(client) => client,
            Err(error) => {
                kill_group(&driver);
                return Err(error);
            }
        };
        Ok(Self { client, driver, _profile: profile })
    }

    async fn connect(
        port: u16,
        profile: &Path,
        mobile_emulation: Option<serde_json::Value>,
        network_log: bool,
    ) -> anyhow::Result<Client> {
        let mut capabilities = json!({
            "goog:chromeOptions": {
                "binary": std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".to_owned()),
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-quic",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        });
        if let Some(phone) = mobile_emulation {
            capabilities["goog:chromeOptions"]["mobileEmulation"] = phone;
        }
        if network_log {
            capabilities["goog:loggingPrefs"] = json!({"performance": "ALL"});
            capabilities["goog:chromeOptions"]["perfLoggingPrefs"] =
                json!({"enableNetwork": true, "enablePage": false});
        }
        let capabilities = match capabilities {
            serde_json::Value::Object(map) => map,
            _ => unreachable!("a JSON object literal"),
        };
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + PATIENCE;
        loop {
            let attempt = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                .capabilities(capabilities.clone())
                .connect(&url)
                .await;
            match attempt {
                Ok(client) => return Ok(client),
                // ChromeDriver takes a moment to listen; this waits for a condition, not a flaky result.
                Err(_) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(error) => return Err(error).context("ChromeDriver did not accept a session"),
            }
        }
    }

    /// Polls `script` (a JS expression) until it returns `true`.
    pub async fn wait_for(&self, what: &str, script: &str) -> anyhow::Result<()> {
        let deadline = Instant::now() + PATIENCE;
        let wrapped = format!("return !!({script});");
        loop {
            match self.client.execute(&wrapped, vec![]).await {
                Ok(answer) if answer.as_bool() == Some(true) => return Ok(()),
                Ok(_) => {}
                // The page was too busy to run the check within WebDriver's
                // script timeout (seen with two browsers on a loaded machine):
                // not yet, as long as the deadline allows.
                Err(error) if error.is_script_timeout() => eprintln!("waiting for {what}: the page was busy ({error})"),
                Err(error) => return Err(error.into()),
            }
            anyhow::ensure!(Instant::now() < deadline, "timed out waiting for {what} ({script})");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Evaluates a JS expression and returns its JSON value.
    pub async fn eval(&self, expression: &str) -> anyhow::Result<serde_json::Value> {
        Ok(self.client.execute(&format!("return ({expression});"), vec![]).await?)
    }

    /// Saves a PNG screenshot and returns its path.
    pub async fn screenshot(&self, path: &Path) -> anyhow::Result<PathBuf> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, self.client.screenshot().await?)?;
        Ok(path.to_owned())
    }

    /// Ends the browser session (drop then stops ChromeDriver).
    pub async fn close(&self) -> anyhow::Result<()> {
        Ok(self.client.clone().close().await?)
    }

    /// Finds one element by CSS selector.
    pub async fn find(&self, css: &str) -> anyhow::Result<fantoccini::elements::Element> {
        Ok(self.client.find(Locator::Css(css)).await?)
    }
}

/// Kills ChromeDriver and every Chromium process it started.
fn kill_group(driver: &Child) {
    let group = format!("-{}", driver.id());
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
}

impl Drop for Browser {
    fn drop(&mut self) {
        kill_group(&self.driver);
        let _ = self.driver.wait();
    }
}
