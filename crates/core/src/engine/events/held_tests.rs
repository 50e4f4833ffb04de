//! What a GRIP proxy's viewer is sent ends where the next published frame
//! begins ([`Live::held`]): a proxy passes on only frames that follow the
//! `prev-id` it holds the stream at, so a body ending elsewhere makes it
//! pass a frame again, or an older one after a newer.

use std::sync::Arc;
use std::time::Duration;

use seat_state::wire::{HoldOrder, ShowInput};
use seat_state::{Decision, HoldId, HolderId, ServerMillis, Show, ShowState};

use super::{EventHub, Frame, FrameSink, Held, Live, Ticks};
use crate::engine::view::{MapView, Patch};

/// Every frame the hub published, as a GRIP proxy receives them.
#[derive(Default)]
struct Published(std::sync::Mutex<Vec<(i64, i64)>>);

impl FrameSink for Published {
    fn started(&self, _show_id: &str, _version: i64) {}

    fn frame(&self, _show_id: &str, frame: &Arc<Frame>) {
        self.0.lock().unwrap().push((frame.since, frame.version));
    }
}

/// A writer of a 6-seat show: holds one seat a change, as the actor hands
/// its hub the change and then the map.
struct Writer {
    state: ShowState,
    view: MapView,
    hub: EventHub,
}

impl Writer {
    fn start(sink: Arc<Published>) -> Self {
        let seats: Vec<serde_json::Value> =
            (1..=6).map(|n| serde_json::json!({"id": format!("S{n}"), "x": n, "y": 0})).collect();
        let input: ShowInput = serde_json::from_value(serde_json::json!({
            "id": "held", "name": "Held", "seats": seats, "maxActiveHoldsPerHolder": 10, "holdSeconds": 60
        }))
        .unwrap();
        let state = ShowState::new(Show::parse(&input).unwrap());
        let view = MapView::of(&state, ServerMillis(0));
        let ticks = Ticks { tick: Duration::from_millis(250), keep_alive: Duration::from_secs(10) };
        let hub = EventHub::start(view.clone(), ticks, Arc::from("held"), Some(sink));
        Self { state, view, hub }
    }

    /// Holds seat `n`: its change to the hub, then the map.
    fn hold(&mut self, n: usize) {
        let order: HoldOrder = serde_json::from_value(serde_json::json!({"seats": [format!("S{n}")]})).unwrap();
        let request = self.state.parse_order(&order, HoldId::parse(&format!("hold-{n:05}")).unwrap()).unwrap();
        let Ok(Decision::Apply(change)) = self.state.decide_create(&HolderId::new("ann"), &request, ServerMillis(1))
        else {
            panic!("S{n} is free")
        };
        self.state.apply(&change);
        self.hub.publish(self.state.change_event(&change, ServerMillis(1)));
        self.view.apply(Patch::of(&self.state, &change));
        self.hub.publish_view(self.view.clone());
    }

    fn live(&self) -> Arc<Live> {
        self.hub.live()
    }
}

/// The version a held viewer's body brings it to, when it sends anything.
fn ends_at(held: &Held) -> Option<i64> {
    held.frames.last().map(|frame| frame.version).or(held.snapshot.as_ref().map(|view| view.version))
}

/// The ids the viewer gets: the body's, then the published frames the
/// proxy passes on (each following the version the stream is at).
fn ids_through_a_proxy(held: &Held, published: &[(i64, i64)]) -> Vec<i64> {
    let mut ids: Vec<i64> = held.snapshot.iter().map(|view| view.version).collect();
    ids.extend(held.frames.iter().map(|frame| frame.version));
    let mut at = held.last;
    for &(since, version) in published {
        if since == at {
            ids.push(version);
            at = version;
        }
    }
    ids
}

/// Lets the hub's task take what was sent to it, without passing a tick.
async fn settle() {
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_snapshot_while_a_change_waits_for_its_tick_is_the_one_the_frames_continue() {
    let published = Arc::new(Published::default());
    let mut writer = Writer::start(Arc::clone(&published));
    writer.hold(1);
    settle().await;
    // The first change after a quiet tick went at once; the second waits for the tick.
    writer.hold(2);
    settle().await;
    assert_eq!(*published.0.lock().unwrap(), vec![(0, 1)]);
    let live = writer.live();
    assert_eq!(live.view().version, 2, "the writer's map is ahead of the frames");

    let new_viewer = live.held(None, false);
    assert_eq!(new_viewer.snapshot.as_ref().map(|view| view.version), Some(1), "the map the newest frame ends at");
    assert_eq!(ends_at(&new_viewer), Some(new_viewer.last));
    // A viewer that has v2 (from a direct stream) is held at it.
    let ahead = live.held(Some(2), false);
    assert_eq!((ends_at(&ahead), ahead.last), (None, 2));

    tokio::time::sleep(Duration::from_millis(300)).await;
    let frames = published.0.lock().unwrap().clone();
    assert_eq!(frames, vec![(0, 1), (1, 2)]);
    assert_eq!(ids_through_a_proxy(&new_viewer, &frames), vec![1, 2]);
    // Now the newest frame ends at the writer's map.
    let later = live.held(None, false);
    assert_eq!((later.snapshot.as_ref().map(|view| view.version), later.last), (Some(2), 2));
    let asked = live.held(Some(1), true);
    assert_eq!((asked.frames.len(), asked.last), (1, 2));
}

#[tokio::test(start_paused = true)]
async fn every_body_ends_where_the_next_frame_begins() {
    let published = Arc::new(Published::default());
    let mut writer = Writer::start(Arc::clone(&published));
    let live = writer.live();
    let mut viewers = Vec::new();
    // Changes 100 ms apart (two to a tick), a viewer arriving after each.
    for n in 1..=6 {
        writer.hold(n);
        settle().await;
        for (after, asked) in [(None, false), (Some(n as i64 - 1), true), (Some(n as i64), false)] {
            viewers.push(live.held(after, asked));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let frames = published.0.lock().unwrap().clone();
    assert!(frames.len() < 6, "changes were conflated: {frames:?}");
    for held in &viewers {
        if let Some(end) = ends_at(held) {
            assert_eq!(end, held.last, "{held:?}");
        }
        let ids = ids_through_a_proxy(held, &frames);
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "ids {ids:?} for {held:?}");
        // Held at a frame's version, it comes to the writer's map; held
        // ahead of the frames, the proxy asks again when the next comes.
        if frames.iter().any(|&(_, version)| version == held.last) {
            assert_eq!(ids.last().copied().unwrap_or(held.last).max(held.last), 6, "{held:?}: {ids:?}");
        }
    }
}
