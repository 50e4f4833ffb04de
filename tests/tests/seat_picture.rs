//! A show page's HTML carries the server's picture of its seat map
//! (crates/server/src/prerender.rs): every seat drawn once, in its state,
//! the same picture for every viewer, with nothing a test hook or a screen
//! reader would take for a live seat; the app then replaces it with the
//! live map and marks the customer's own seats.

use std::collections::HashSet;

use anyhow::Context;
use seathold_system_tests::api::Api;
use seathold_system_tests::{Browser, Server};
use serde_json::{Value, json};

const SHOW: &str = "demo-theatre";
const HELD: &str = "C4";

/// A number as the server writes it into a path: one decimal, rounded.
fn dec(value: f64) -> String {
    let tenths = (value * 10.0).round() as i64;
    let (sign, whole, tenth) = (if tenths < 0 { "-" } else { "" }, tenths.abs() / 10, tenths.abs() % 10);
    if tenth == 0 { format!("{sign}{whole}") } else { format!("{sign}{whole}.{tenth}") }
}

/// The picture's `<path>`s: `(class, d)`.
fn picture_paths(html: &str) -> anyhow::Result<Vec<(String, String)>> {
    let picture = html.split(r#"<div id="prepaint" data-version=""#).nth(1).context("a picture in the page")?;
    let picture = picture.split("</svg>").next().context("the picture's end")?;
    for hook in ["data-seat-id", "data-state", "data-mine", "aria-pressed", "tabindex", "role="] {
        anyhow::ensure!(!picture.contains(hook), "the picture carries {hook}");
    }
    let attribute = |tag: &str, name: &str| -> Option<String> {
        Some(tag.split(&format!(r#"{name}=""#)).nth(1)?.split('"').next()?.to_owned())
    };
    picture
        .split("<path ")
        .skip(1)
        .map(|tag| Some((attribute(tag, "class")?, attribute(tag, "d")?)))
        .collect::<Option<Vec<_>>>()
        .context("each path's class and d")
}

/// Each seat's centre, as `dec` writes it: a path's dots are steps
/// (`m dx,dy h0`, or `m dx-dy h0` before a negative step) from the one before.
fn centres(d: &str) -> Vec<String> {
    let tenths = |text: &str| text.parse::<f64>().map(|value| (value * 10.0).round() as i64);
    let mut pen = (0, 0);
    let mut centres = Vec::new();
    for step in d.split('m').skip(1) {
        let step = step.strip_suffix("h0").unwrap_or(step);
        let split = step.find(',').map_or_else(|| step[1..].find('-').map(|at| (at + 1, 0)), |at| Some((at, 1)));
        let Some((at, skip)) = split else { continue };
        let (Ok(dx), Ok(dy)) = (tenths(&step[..at]), tenths(&step[at + skip..])) else { continue };
        pen = (pen.0 + dx, pen.1 + dy);
        centres.push(format!("{},{}", dec(pen.0 as f64 / 10.0), dec(pen.1 as f64 / 10.0)));
    }
    centres
}

#[tokio::test]
async fn a_show_page_paints_every_seat_before_the_app_which_replaces_the_picture() -> anyhow::Result<()> {
    let server = Server::start(&[]).await?;
    let api = Api::new(&server, "A");
    let token = api.session().await?;
    let hold = json!({"seats": [HELD]});
    api.post(&format!("/api/shows/{SHOW}/holds"), Some(&token), Some(&hold)).await?.expect(201, "a hold")?;
    let show: Value = api.get(&format!("/api/shows/{SHOW}"), None).await?.body;
    let seats = show["seats"].as_array().context("seats")?;
    let place = |seat: &Value| Some(format!("{},{}", dec(seat["x"].as_f64()?), dec(seat["y"].as_f64()?)));
    let places: HashSet<String> = seats.iter().map(place).collect::<Option<_>>().context("x and y")?;
    let held = place(seats.iter().find(|seat| seat["id"] == HELD).context("the held seat")?).context("its place")?;

    let url = format!("{}/shows/{SHOW}", server.base_url);
    let page = |token: Option<String>| {
        let url = url.clone();
        async move {
            let mut request = reqwest::Client::new().get(url);
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            anyhow::Ok(request.send().await?.error_for_status()?.text().await?)
        }
    };
    // Anyone: every seat once, the held one as held by someone.
    let paths = picture_paths(&page(None).await?)?;
    let drawn: Vec<String> = paths.iter().flat_map(|(_, d)| centres(d)).collect();
    assert_eq!(drawn.len(), places.len(), "one shape per seat");
    let drawn: HashSet<String> = drawn.into_iter().collect();
    assert!(places.iter().all(|place| drawn.contains(place.as_str())), "every seat at its place");
    let class_of = |paths: &[(String, String)]| {
        paths.iter().find(|(_, d)| centres(d).contains(&held)).map(|(class, _)| class.clone())
    };
    let class = class_of(&paths).context("the held seat")?;
    assert!(class.starts_with("pic held") && !class.contains("mine"), "{HELD} as others see it: {class}");
    // Its holder gets the very same picture: the app marks their seat once it loads.
    let theirs = picture_paths(&page(Some(token)).await?)?;
    assert_eq!(theirs, paths, "one picture for every viewer");

    // A show that does not exist: the app's page as it is (the app says so).
    let unknown = reqwest::get(format!("{}/shows/no-such-show", server.base_url)).await?;
    assert_eq!(unknown.status(), 200);
    let unknown = unknown.text().await?;
    assert!(unknown.contains("<body") && !unknown.contains(r#"<div id="prepaint""#), "{unknown}");

    // The app replaces the picture with the live map.
    let browser = Browser::start().await?;
    browser.client.goto(&url).await?;
    browser.wait_for("160 live seats", "document.querySelectorAll('[data-seat-id]').length === 160").await?;
    assert_eq!(browser.eval("document.getElementById('prepaint') === null").await?, true, "the picture is gone");
    let state = browser.eval(&format!("document.querySelector('[data-seat-id=\"{HELD}\"]').dataset.state")).await?;
    assert_eq!(state, "held");
    browser.close().await?;
    Ok(())
}
