//! Ids strictly rise per connection through Pushpin (API.md "Live changes
//! (v4)"). Pushpin passes on every published frame that follows the
//! `prev-id` a stream is held at, so the origin's answer must end at that
//! version. Viewers open while a change waits for its tick: the origin's
//! map is then ahead of its frames, and a snapshot of it held at the
//! newest frame's version was followed by the frame it already held (a
//! frame again, the bench's fault at 10,000 viewers). Every viewer here
//! reads on until one more change, checking each id against the one
//! before it on the same connection.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use seat_state::wire::SeatMap;
use serde_json::json;

use seathold_system_tests::PATIENCE;
use seathold_system_tests::api::{Api, EventStream, one_row};
use seathold_system_tests::pushpin::Pushpin;
use seathold_system_tests::server::{Server, create_show, logs};
use seathold_system_tests::viewer::Viewer;

const SHOW: &str = "order";
const KEY: &str = "grip-order-key-0123456789abcdef";
/// Rounds of two changes in one tick and viewers opened between them.
const ROUNDS: usize = 6;

/// A hold of `seat` and, when `release`, its release: one change each.
async fn change(api: &Api, token: &str, seat: usize, release: bool) -> anyhow::Result<()> {
    let body = json!({"seats": [format!("A{seat}")]});
    let hold = api.post(&format!("/api/shows/{SHOW}/holds"), Some(token), Some(&body)).await?;
    hold.expect(201, "a hold")?;
    if release {
        let id = hold.body["holdId"].as_str().context("a hold id")?;
        let path = format!("/api/holds/{id}");
        api.call(reqwest::Method::DELETE, &path, Some(token), None).await?.expect(204, "its release")?;
    }
    Ok(())
}

/// Reads `stream` until its viewer is at `version`: every id above the one
/// before it on this connection, every change following the viewer's map.
async fn read_to(stream: &mut EventStream, viewer: &mut Viewer, version: i64, name: &str) -> anyhow::Result<()> {
    let mut last_id: Option<i64> = None;
    while viewer.version.is_none_or(|known| known < version) {
        let event = tokio::time::timeout(PATIENCE, stream.next()).await.context("an event in time")??;
        let event = event.with_context(|| format!("{name}: the stream ended"))?;
        let id: i64 = event.id.as_deref().context("an event id")?.parse()?;
        anyhow::ensure!(
            last_id.is_none_or(|last| id > last),
            "{name}: {} id {id} after id {} on one connection",
            event.kind,
            last_id.unwrap_or_default()
        );
        last_id = Some(id);
        viewer.take(&event).with_context(|| format!("{name}: {} id {id}", event.kind))?;
    }
    Ok(())
}

#[tokio::test]
async fn viewers_opened_while_a_change_waits_for_its_tick_get_rising_ids_through_pushpin() -> anyhow::Result<()> {
    let data = Arc::new(tempfile::tempdir()?);
    let show = json!({"id": SHOW, "name": "Order", "seats": one_row(40), "maxActiveHoldsPerHolder": 1000});
    create_show(data.path(), &show).await?;
    let origin_addr = format!("127.0.0.1:{}", std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port());
    let pushpin = Pushpin::start(&[&origin_addr], KEY).await?;
    // The tick is 250 ms (the most API.md allows): the window a change waits in.
    let args = ["--addr", &origin_addr, "--grip-publish", &pushpin.publish_url, "--tick", "250ms"];
    let server = Server::start_in_api_only(Arc::clone(&data), &args, &[("SEATHOLD_GRIP_KEY", KEY)]).await?;
    pushpin.until_proxying("/api/time").await?;
    let origin = Api::at(&format!("http://{origin_addr}"), "origin");
    let through = Api::at(&pushpin.base_url, "pushpin");
    let order = through.seat_order(SHOW).await?;
    let token = origin.session().await?;
    let context = || format!("{}\n{}", logs(&[("origin", &server)]), pushpin.logs());

    let mut opened = 0;
    for round in 0..ROUNDS {
        // A quiet tick: the first change goes at once, the second waits for the tick.
        tokio::time::sleep(Duration::from_millis(400)).await;
        change(&origin, &token, round + 1, false).await?;
        change(&origin, &token, round + 21, true).await?;
        let mut viewers = Vec::new();
        for (query, compact) in [("?format=compact", true), ("", false), ("?format=compact", true), ("", false)] {
            let stream = through.events_with(SHOW, query, None).await?;
            viewers.push((stream, Viewer::new(order.clone(), compact), format!("viewer {opened} ({query:?})")));
            opened += 1;
        }
        // One more change, after the tick: every viewer reads on to it.
        tokio::time::sleep(Duration::from_millis(300)).await;
        change(&origin, &token, round + 31, true).await?;
        let map: SeatMap = serde_json::from_value(origin.get(&format!("/api/shows/{SHOW}/seats"), None).await?.body)?;
        for (stream, viewer, name) in &mut viewers {
            read_to(stream, viewer, map.version, name)
                .await
                .with_context(|| format!("round {round}\n{}", context()))?;
            anyhow::ensure!(viewer.differs(&map).is_none(), "{name}: {:?}", viewer.differs(&map));
        }
    }
    println!("{opened} viewers opened while a change waited for its tick: every id rose on its connection");
    Ok(())
}
