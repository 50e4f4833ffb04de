//! The steps of a customer's visit, and their latencies.

/// What a customer does, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Page,
    Definition,
    SeatMap,
    /// The three together, page sent → seat map in: what the first render waits for.
    PageDefinitionMap,
    Time,
    Session,
    /// Request sent → the stream's `200` head in.
    Stream,
    /// The waiting room's: `POST …/queue`.
    Join,
    /// The waiting room's: each `GET …/queue` until admitted.
    QueueRead,
    Hold,
    Confirm,
}

impl Step {
    pub const ALL: [Step; 11] = [
        Step::Page,
        Step::Definition,
        Step::SeatMap,
        Step::PageDefinitionMap,
        Step::Time,
        Step::Session,
        Step::Stream,
        Step::Join,
        Step::QueueRead,
        Step::Hold,
        Step::Confirm,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Page => "GET page /shows/demo-arena",
            Step::Definition => "GET definition",
            Step::SeatMap => "GET seat map",
            Step::PageDefinitionMap => "page + definition + map",
            Step::Time => "GET /api/time (3 each)",
            Step::Session => "POST /api/sessions",
            Step::Stream => "live stream: head in",
            Step::Join => "POST …/queue (join)",
            Step::QueueRead => "GET …/queue (until admitted)",
            Step::Hold => "POST hold best 2",
            Step::Confirm => "POST confirm (60 %)",
        }
    }

    /// A short key for the JSON line.
    pub fn key(self) -> &'static str {
        match self {
            Step::Page => "page",
            Step::Definition => "definition",
            Step::SeatMap => "seatMap",
            Step::PageDefinitionMap => "pageDefinitionMap",
            Step::Time => "time",
            Step::Session => "session",
            Step::Stream => "stream",
            Step::Join => "join",
            Step::QueueRead => "queueRead",
            Step::Hold => "hold",
            Step::Confirm => "confirm",
        }
    }

    /// Only a storm through the waiting room takes it.
    pub fn queued_only(self) -> bool {
        matches!(self, Step::Join | Step::QueueRead)
    }

    fn index(self) -> usize {
        Step::ALL.iter().position(|step| *step == self).unwrap_or(0)
    }
}

/// Microseconds per step, and the bytes the server sent for each.
#[derive(Debug, Default, Clone)]
pub struct Latencies {
    micros: [Vec<u32>; Step::ALL.len()],
    bytes: [u64; Step::ALL.len()],
    /// Connections opened again after the server closed them idle.
    pub reopened: u64,
}

impl Latencies {
    pub fn add_bytes(&mut self, step: Step, bytes: u64) {
        self.bytes[step.index()] += bytes;
    }

    /// Every byte the server sent for `step`'s requests.
    pub fn bytes(&self, step: Step) -> u64 {
        self.bytes[step.index()]
    }

    pub fn add(&mut self, step: Step, since: std::time::Instant) {
        self.micros[step.index()].push(u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX));
    }

    pub fn extend(&mut self, other: Latencies) {
        for (mine, theirs) in self.micros.iter_mut().zip(other.micros) {
            mine.extend(theirs);
        }
        for (mine, theirs) in self.bytes.iter_mut().zip(other.bytes) {
            *mine += theirs;
        }
        self.reopened += other.reopened;
    }

    /// (count, p50 ms, p99 ms, max ms) of one step.
    pub fn summary(&self, step: Step) -> (usize, f64, f64, f64) {
        let mut sorted = self.micros[step.index()].clone();
        sorted.sort_unstable();
        let values: Vec<f64> = sorted.iter().map(|&us| f64::from(us) / 1000.0).collect();
        (sorted.len(), percentile(&values, 0.5), percentile(&values, 0.99), percentile(&values, 1.0))
    }
}

/// The value at `fraction` of sorted values (0 when there are none).
pub fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}
