//! Drives `seat-state`'s sans-io connection policy
//! ([`seat_state::sync::Connection`]) in the browser: feeds it what the
//! stream, polls and clock samples report (each after a tick of the local
//! clock), does what it asks (open or close the stream, ask why it was
//! refused, poll, sample the clock) and keeps one timer for its next
//! timeout. Every number of the policy is the machine's.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use leptos::task::spawn_local;
use seat_state::ClockSample;
use seat_state::sync::connection::{Input, Output};
use seat_state::sync::{Connection, ConnectionStatus};

use crate::api::{self, LiveEvent, LiveFeed};

/// A poll's answer: fed where it belongs, or failed with the server's `Retry-After`.
pub type PollDone = Pin<Box<dyn Future<Output = Result<(), Option<i64>>>>>;

/// What a page does with what the link brings.
pub struct Hooks {
    /// A snapshot, a change, or an event that could not be read.
    pub on_event: Box<dyn Fn(LiveEvent)>,
    /// While the stream is refused: fetch the seat map (and feed it).
    pub poll: Box<dyn Fn() -> PollDone>,
    /// A round trip to the server's clock.
    pub on_sample: Box<dyn Fn(ClockSample)>,
    /// The stream is open again after it broke or was refused.
    pub on_back: Box<dyn Fn()>,
}

struct Link {
    show_id: String,
    machine: Connection,
    stream: Option<LiveFeed>,
    timer: Option<Timeout>,
    status: RwSignal<ConnectionStatus>,
    hooks: Hooks,
}

/// The live stream of one show, kept by the policy until dropped.
pub struct LiveLink {
    link: Rc<RefCell<Link>>,
}

impl LiveLink {
    /// Opens `show_id`'s stream after `resume_after`, with the clock
    /// samples already taken; `status` follows what the page says.
    pub fn start(
        show_id: &str,
        resume_after: Option<i64>,
        samples: &[ClockSample],
        status: RwSignal<ConnectionStatus>,
        hooks: Hooks,
    ) -> Self {
        let mut machine = Connection::new(resume_after);
        machine.handle_input(Input::Tick(api::local_now()));
        for sample in samples {
            machine.handle_input(Input::ClockSample(*sample));
        }
        let link = Rc::new(RefCell::new(Link {
            show_id: show_id.to_owned(),
            machine,
            stream: None,
            timer: None,
            status,
            hooks,
        }));
        act(&link);
        Self { link }
    }

    /// Feeds one input (after a tick) and does what the machine asks.
    pub fn feed(&self, input: Input) {
        feed(&self.link, input);
    }
}

impl Drop for LiveLink {
    fn drop(&mut self) {
        let mut link = self.link.borrow_mut();
        link.timer = None;
        link.stream = None;
    }
}

/// A random number in 0..=1000, the jitter each failure carries.
fn jitter() -> u16 {
    (js_sys::Math::random() * 1000.0) as u16
}

fn feed(shared: &Rc<RefCell<Link>>, input: Input) {
    {
        let mut link = shared.borrow_mut();
        link.machine.handle_input(Input::Tick(api::local_now()));
        link.machine.handle_input(input);
    }
    act(shared);
}

fn feed_weak(weak: &Weak<RefCell<Link>>, input: Input) {
    if let Some(shared) = weak.upgrade() {
        feed(&shared, input);
    }
}

/// Does what the machine asks, then sets the timer and shows the status.
fn act(shared: &Rc<RefCell<Link>>) {
    let weak = Rc::downgrade(shared);
    let wake_at = loop {
        let output = shared.borrow_mut().machine.poll_output();
        match output {
            Output::OpenStream { resume_after } => {
                let show_id = shared.borrow().show_id.clone();
                let stream = LiveFeed::open(&show_id, resume_after, {
                    let weak = weak.clone();
                    move |event| on_stream(&weak, event)
                });
                let opened = stream.is_some();
                shared.borrow_mut().stream = stream;
                if !opened {
                    shared
                        .borrow_mut()
                        .machine
                        .handle_input(Input::StreamError { reconnecting: false, jitter_permille: jitter() });
                }
            }
            Output::CloseStream => drop(shared.borrow_mut().stream.take()),
            Output::ProbeStream => {
                let (weak, show_id) = (weak.clone(), shared.borrow().show_id.clone());
                spawn_local(async move {
                    let input = match api::stream_refusal(&show_id).await {
                        Some(retry_after_millis) => {
                            Input::StreamRefused { retry_after_millis, jitter_permille: jitter() }
                        }
                        None => Input::StreamFailed { jitter_permille: jitter() },
                    };
                    feed_weak(&weak, input);
                });
            }
            Output::FetchSnapshot => {
                let (weak, done) = (weak.clone(), (shared.borrow().hooks.poll)());
                spawn_local(async move {
                    let input = match done.await {
                        Ok(()) => Input::SnapshotFetched,
                        Err(retry_after_millis) => Input::SnapshotFailed { retry_after_millis },
                    };
                    feed_weak(&weak, input);
                });
            }
            Output::SampleClock => {
                let weak = weak.clone();
                spawn_local(async move {
                    let input = match api::sample_clock().await {
                        Ok(sample) => {
                            if let Some(shared) = weak.upgrade() {
                                (shared.borrow().hooks.on_sample)(sample);
                            }
                            Input::ClockSample(sample)
                        }
                        Err(error) => Input::ClockSampleFailed { retry_after_millis: error.retry_after_millis() },
                    };
                    feed_weak(&weak, input);
                });
            }
            Output::Timeout(at) => break at,
        }
    };
    let mut link = shared.borrow_mut();
    link.timer = wake_at.map(|at| {
        let delay = (at.0 - api::local_now().0).clamp(0, i64::from(i32::MAX));
        // Never wake before the instant: a timer may fire a little early.
        let delay = u32::try_from(delay).unwrap_or(u32::MAX).saturating_add(1);
        let weak = weak.clone();
        Timeout::new(delay, move || feed_weak(&weak, Input::Tick(api::local_now())))
    });
    let status = link.machine.status();
    let before = link.status.get_untracked();
    if before != status {
        link.status.set(status);
        if status == ConnectionStatus::Live && before != ConnectionStatus::Connecting {
            (link.hooks.on_back)();
        }
    }
}

fn on_stream(weak: &Weak<RefCell<Link>>, event: LiveEvent) {
    let Some(shared) = weak.upgrade() else {
        return;
    };
    match event {
        LiveEvent::Opened => feed(&shared, Input::StreamOpened),
        LiveEvent::Error { reconnecting } => {
            feed(&shared, Input::StreamError { reconnecting, jitter_permille: jitter() });
        }
        LiveEvent::Snapshot(ref map) => {
            let version = map.version;
            (shared.borrow().hooks.on_event)(event);
            shared.borrow_mut().machine.handle_input(Input::Version(version));
        }
        LiveEvent::Change(ref change) => {
            let version = change.v;
            (shared.borrow().hooks.on_event)(event);
            shared.borrow_mut().machine.handle_input(Input::Version(version));
        }
        LiveEvent::Garbled => (shared.borrow().hooks.on_event)(event),
    }
}
