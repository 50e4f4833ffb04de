//! Every sentence the customer reads about a seat, a hold or an error.

use seat_state::SeatState;

/// How a screen reader says a seat's state.
pub fn spoken_state(state: SeatState, mine: bool) -> &'static str {
    match (state, mine) {
        (SeatState::Free, _) => "available",
        (SeatState::Held, true) => "held by you",
        (SeatState::Held, false) => "held",
        (SeatState::Sold, true) => "yours",
        (SeatState::Sold, false) => "sold",
    }
}

/// A seat's accessible name: "Row B, seat 7, available".
pub fn seat_name(label: &str, state: SeatState, mine: bool, selected: bool) -> String {
    let spoken = spoken_state(state, mine);
    if selected { format!("{label}, {spoken}, selected") } else { format!("{label}, {spoken}") }
}

/// "B8", "B7 and B8", "B6, B7 and B8".
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "Row B, seat 8 (B8) was just taken." / "… and … were just taken."
pub fn taken(seats: &[String]) -> String {
    let verb = if seats.len() == 1 { "was" } else { "were" };
    format!("{} {verb} just taken. The rest of your selection is kept.", list(seats))
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

/// The customer's sentence for every error code of API.md; `fallback` is
/// the server's own sentence, used for a code this version does not know.
pub fn error_sentence(
    code: &str,
    seats: &[String],
    area: Option<&str>,
    available: Option<i64>,
    fallback: &str,
) -> String {
    match code {
        "seats_taken" if !seats.is_empty() => taken(seats),
        "seats_taken" => "Some of those seats were just taken.".to_owned(),
        "not_enough_seats" => match (area, available) {
            (Some(area), Some(0)) => format!("{area} is sold out."),
            (Some(area), Some(1)) => format!("Only 1 place is left in {area}."),
            (Some(area), Some(n)) => format!("Only {n} places are left in {area}."),
            _ => "There are not enough places left in that area.".to_owned(),
        },
        "invalid_seats" if !seats.is_empty() => {
            format!("{} cannot be held together. Check your selection and try again.", list(seats))
        }
        "invalid_seats" => "Pick at least one place, within this show's limit.".to_owned(),
        "invalid_quantity" => "Each area needs a whole number of places, at least 1.".to_owned(),
        "invalid_hold_id" | "idempotency_mismatch" => {
            "Something went wrong with that request. Please try again.".to_owned()
        }
        "hold_limit" => "You already have a hold. Confirm or release it before holding more.".to_owned(),
        "no_hold" => "That hold is no longer yours or no longer exists.".to_owned(),
        "hold_expired" => "Your hold has expired and its places were let go.".to_owned(),
        "hold_released" => "That hold was released.".to_owned(),
        "already_confirmed" => "That hold is already confirmed.".to_owned(),
        "extension_limit" => "This hold cannot be extended any more.".to_owned(),
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
