//! Every sentence the customer reads about a seat, a hold or an error.

use seat_state::{Rejection, SeatState};

/// How a screen reader says a seat's state.
pub fn spoken_state(state: SeatState, mine: bool) -> &'static str {
    seat_state_words(state, mine, false)
}

/// What a seat's accessible name says after its label: its state, and
/// whether it is picked ("held, selected").
pub fn seat_state_words(state: SeatState, mine: bool, selected: bool) -> &'static str {
    match (state, mine, selected) {
        (SeatState::Free, _, false) => "available",
        (SeatState::Free, _, true) => "available, selected",
        (SeatState::Held, true, false) => "held by you",
        (SeatState::Held, true, true) => "held by you, selected",
        (SeatState::Held, false, false) => "held",
        (SeatState::Held, false, true) => "held, selected",
        (SeatState::Sold, true, false) => "yours",
        (SeatState::Sold, true, true) => "yours, selected",
        (SeatState::Sold, false, false) => "sold",
        (SeatState::Sold, false, true) => "sold, selected",
    }
}

/// A seat's accessible name: "Row B, seat 7, available".
pub fn seat_name(label: &str, state: SeatState, mine: bool, selected: bool) -> String {
    format!("{label}, {}", seat_state_words(state, mine, selected))
}

/// "B8", "B7 and B8", "B6, B7 and B8".
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "Row B, seat 8 (B8) was just taken. The rest of your selection is kept."
/// The rule's own sentence from `seat-state`, then what the page did.
pub fn taken(seats: &[String]) -> String {
    refusal(Rejection::SeatsTaken { seats: seats.to_vec() })
}

/// The sentence for picking more places than a hold may have.
pub fn over_limit(max: u32) -> String {
    if max == 1 {
        "You can hold 1 place at a time.".to_owned()
    } else {
        format!("You can hold up to {max} places at a time. Deselect one to pick another.")
    }
}

/// "2 extensions left" and the like.
pub fn extensions_left(left: u32) -> String {
    match left {
        0 => "No extensions left".to_owned(),
        1 => "1 extension left".to_owned(),
        n => format!("{n} extensions left"),
    }
}

/// "1 place" / "3 places".
pub fn places(count: u32) -> String {
    if count == 1 { "1 place".to_owned() } else { format!("{count} places") }
}

/// A refusal by the rules, in `seat-state`'s words (its one table of
/// sentences), plus what the page did about it.
pub fn refusal(rejection: Rejection) -> String {
    match rejection {
        Rejection::SeatsTaken { seats } if seats.is_empty() => "Some of those seats were just taken.".to_owned(),
        taken @ Rejection::SeatsTaken { .. } => format!("{} The rest of your selection is kept.", taken.message()),
        other => other.message(),
    }
}

/// The customer's sentence for an error code that is not a rule's (those
/// are [`refusal`]s); `fallback` is the server's own sentence, used for a
/// code this version does not know.
pub fn error_sentence(code: &str, fallback: &str) -> String {
    match code {
        "unauthorized" => "Your session has ended. Reload the page to start again.".to_owned(),
        "unknown_show" => "There is no such show.".to_owned(),
        "bad_request" | "payload_too_large" => {
            "The request could not be understood. Please reload and try again.".to_owned()
        }
        "admin_disabled" | "show_exists" | "invalid_show" => "That action is not available here.".to_owned(),
        _ if !fallback.is_empty() => fallback.to_owned(),
        _ => "Something went wrong. Please try again.".to_owned(),
    }
}

/// When the server cannot be reached at all.
pub const UNREACHABLE: &str = "The server cannot be reached. Check your connection and try again.";

/// How a screen reader says a seat kept for a sales channel while no code
/// is entered.
pub const NEEDS_CODE: &str = "needs a code";

/// A blocked seat's state, after its label.
pub const NOT_FOR_SALE: &str = "not for sale";

/// Why a blocked seat cannot be picked.
pub fn blocked(label: &str) -> String {
    format!("{label} is not for sale.")
}

/// Why a channel's seat cannot be picked yet.
pub fn locked(label: &str) -> String {
    format!("{label} is kept for a presale: enter its code to pick it.")
}

/// After a channel's code is entered.
pub const CODE_TAKEN: &str = "Code entered: the seats it unlocks can be picked. It is checked when you hold.";

/// After the code is cleared.
pub const CODE_CLEARED: &str = "Code cleared: presale seats are not offered.";

/// A wheelchair place, after its label in its accessible name.
pub const WHEELCHAIR_PLACE: &str = "wheelchair place";

/// A companion seat, after its label in its accessible name.
pub const COMPANION_SEAT: &str = "companion seat";

/// How a screen reader says an access seat's state while it is kept from
/// this customer.
pub const NEEDS_ACCESS: &str = "kept for wheelchair users and their companions";

/// Why an access seat cannot be picked yet.
pub fn access_locked(label: &str) -> String {
    format!(
        "{label} is kept for wheelchair users and their companions: choose Wheelchair places in the list to pick it."
    )
}

/// After the customer asks for wheelchair places.
pub const ACCESS_ASKED: &str = "Wheelchair places and companion seats can be picked. Your hold will say you need them.";

/// After they stop asking.
pub const ACCESS_CLEARED: &str = "Wheelchair places and companion seats are no longer offered.";

/// "1 seat" / "3 seats".
fn seats(count: u64) -> String {
    if count == 1 { "1 seat".to_owned() } else { format!("{count} seats") }
}

/// The warning before Hold when the picked seats would leave `stranded`
/// (labels) alone in their row under the show's orphan rule, with the
/// seats that would not (`to`, and how many places along they are) when
/// the row has them.
pub fn would_strand(stranded: &[String], shift: Option<(i64, Vec<String>)>) -> String {
    let alone = if stranded.len() == 1 { "on its own" } else { "on their own" };
    let fix = match shift {
        Some((0, to)) => format!("Pick {} instead.", list(&to)),
        Some((by, to)) => format!("Shift your seats by {} and pick {} instead.", seats(by.unsigned_abs()), list(&to)),
        None => "Pick seats that leave no single seat between taken ones.".to_owned(),
    };
    format!("Holding these seats would leave {} {alone}, which this show does not allow. {fix}", list(stranded))
}
