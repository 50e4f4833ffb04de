//! What a show's writer task is asked to do, and how it answers.

use tokio::sync::oneshot;

use seat_state::wire::{HoldBody, HoldRequestBody, SeatMap};
use seat_state::{HoldId, HolderId, ServerMillis};

use crate::error::AppError;
use crate::store::DueExpiry;

use super::events::Subscription;

/// A holder's action on an existing hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Extend,
    Confirm,
    Release,
}

/// The answer to a write: the hold as it stands, and whether it is new.
#[derive(Debug, Clone)]
pub struct Written {
    pub created: bool,
    pub hold: HoldBody,
}

pub type Reply<T> = oneshot::Sender<Result<T, AppError>>;

/// One request to a show's writer.
pub enum Command {
    /// Decided in order, committed with its batch, answered after the commit.
    Write(Write),
    /// Answered from committed state once the batch's writes are durable.
    Read(Read),
}

/// A request that may change the show. Each carries the one `now` it is decided at.
pub enum Write {
    Create {
        holder: HolderId,
        body: HoldRequestBody,
        generated_id: HoldId,
        /// The client's hold id belongs to another show: a mismatch once the request is valid.
        foreign_id: bool,
        now: ServerMillis,
        reply: Reply<Written>,
    },
    Act {
        action: Action,
        holder: HolderId,
        hold: HoldId,
        now: ServerMillis,
        reply: Reply<Written>,
    },
    Expire {
        due: DueExpiry,
        now: ServerMillis,
        reply: Reply<bool>,
    },
}

/// A request that only looks.
pub enum Read {
    Hold { holder: HolderId, hold: HoldId, now: ServerMillis, reply: Reply<HoldBody> },
    SeatMap { viewer: Option<HolderId>, now: ServerMillis, reply: Reply<SeatMap> },
    Subscribe { viewer: Option<HolderId>, after: Option<i64>, now: ServerMillis, reply: Reply<Subscription> },
}
