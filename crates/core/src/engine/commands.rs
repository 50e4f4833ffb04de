//! What a show's writer task is asked to do, and how it answers.

use tokio::sync::oneshot;

use seat_state::wire::{HoldBody, HoldOrder, SeatMap};
use seat_state::{Admission, Hold, HoldId, HolderId, SeatId, ServerMillis};

use crate::store::DueExpiry;

use super::error::EngineError;

/// The holder id the journal records for the box office's own actions.
pub const OPERATOR: &str = "operator";

/// A holder's action on an existing hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Extend,
    Confirm,
    Release,
    /// The box office releases a hold, whoever holds it (journaled with
    /// the holder [`OPERATOR`]).
    OperatorRelease,
}

/// An answer and the instant the writer decided (or read) it at: the
/// instant the HTTP answer carries as `serverTime`.
#[derive(Debug, Clone)]
pub struct Decided<T> {
    pub at: ServerMillis,
    pub value: T,
}

/// The answer to a write: the hold as it stands, and whether it is new.
#[derive(Debug, Clone)]
pub struct Written {
    pub created: bool,
    pub hold: HoldBody,
}

/// What an outbox entry came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// The hold expired now (its event is out, its side effects may run).
    Expired,
    /// Nothing to do, ever: the hold moved on (extended, confirmed, released,
    /// already expired) or is unknown.
    Stale,
    /// The deadline is after the writer's instant (the sweep's clock ran
    /// ahead of it): keep the entry for a later round.
    NotYetDue,
}

pub type Reply<T> = oneshot::Sender<Result<Decided<T>, EngineError>>;

/// One request to a show's writer.
pub enum Command {
    /// Decided in order at the batch's instant, committed with its batch,
    /// answered after the commit.
    Write(Write),
    /// Answered from committed state once the batch's writes are durable.
    Read(Read),
    /// Another process changed the show (a hint): catch up, so live viewers
    /// here see it too.
    Refresh,
}

/// A request that may change the show. It carries no instant: the writer
/// reads the clock once per batch and decides the whole batch at that instant.
pub enum Write {
    Create {
        holder: HolderId,
        body: HoldOrder,
        generated_id: HoldId,
        /// What the show's queue said of this holder (`Open` without one).
        admission: Admission,
        reply: Reply<Written>,
    },
    Act {
        action: Action,
        holder: HolderId,
        hold: HoldId,
        reply: Reply<Written>,
    },
    Expire {
        due: DueExpiry,
        reply: Reply<Expiry>,
    },
    /// The box office blocks seats (`reason: Some`) or unblocks them
    /// (`None`); answered with every seat blocked afterwards.
    Block {
        seats: Vec<SeatId>,
        reason: Option<String>,
        reply: Reply<Vec<String>>,
    },
}

/// A request that only looks, at `now` (the request's instant) or the
/// writer's latest instant, whichever is later.
pub enum Read {
    Hold {
        holder: HolderId,
        hold: HoldId,
        now: ServerMillis,
        reply: Reply<HoldBody>,
    },
    HeldSince {
        holder: HolderId,
        since: ServerMillis,
        reply: Reply<bool>,
    },
    /// Whether every place of the show is sold.
    SoldOut {
        reply: Reply<bool>,
    },
    /// The show's version at the writer's instant: the journal up to it is
    /// the show as the writer has it (the export and the charts read so).
    Version {
        reply: Reply<i64>,
    },
    /// What the box office sees: one answer of the writer at one instant.
    Operator {
        now: ServerMillis,
        reply: Reply<OperatorView>,
    },
}

/// The show as the box office sees it at the writer's instant: its version,
/// the holds active then and every seat's state.
#[derive(Debug, Clone)]
pub struct OperatorView {
    /// The journal up to this version is what the view describes.
    pub version: i64,
    /// Active holds, oldest first.
    pub holds: Vec<Hold>,
    pub map: SeatMap,
}

impl Write {
    /// Answers with an error, whatever kind of write it is.
    pub fn fail(self, error: impl Fn() -> EngineError) {
        match self {
            Self::Create { reply, .. } | Self::Act { reply, .. } => drop(reply.send(Err(error()))),
            Self::Expire { reply, .. } => drop(reply.send(Err(error()))),
            Self::Block { reply, .. } => drop(reply.send(Err(error()))),
        }
    }
}

impl Read {
    /// Answers with an error, whatever kind of read it is.
    pub fn fail(self, error: EngineError) {
        match self {
            Self::Hold { reply, .. } => drop(reply.send(Err(error))),
            Self::HeldSince { reply, .. } | Self::SoldOut { reply } => drop(reply.send(Err(error))),
            Self::Version { reply } => drop(reply.send(Err(error))),
            Self::Operator { reply, .. } => drop(reply.send(Err(error))),
        }
    }
}
