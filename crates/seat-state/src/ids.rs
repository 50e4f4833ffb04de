//! Identifiers, parsed at the edge so that an invalid one cannot exist.

use std::fmt;

/// Why a string is not a valid identifier of its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidId {
    /// What kind of identifier was expected, e.g. "seat id".
    pub kind: &'static str,
    /// The rejected input.
    pub value: String,
    /// The rule it breaks, for a human.
    pub rule: &'static str,
}

impl fmt::Display for InvalidId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?} is invalid: it must be {}", self.kind, self.value, self.rule)
    }
}

impl std::error::Error for InvalidId {}

/// Checks `value` against `[first][rest]{min_rest,max_rest}`.
fn matches(value: &str, first: fn(char) -> bool, rest: fn(char) -> bool, len: (usize, usize)) -> bool {
    let mut chars = value.chars();
    let count = value.chars().count();
    (len.0..=len.1).contains(&count) && chars.next().is_some_and(first) && chars.all(rest)
}

fn lower_alnum(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $rule:literal, $first:expr, $rest:expr, $len:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Parses an identifier, rejecting anything outside its pattern.
            pub fn parse(value: &str) -> Result<Self, InvalidId> {
                if matches(value, $first, $rest, $len) {
                    Ok(Self(value.to_owned()))
                } else {
                    Err(InvalidId { kind: $kind, value: value.to_owned(), rule: $rule })
                }
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        /// Lets maps keyed by this id be searched with a plain `&str`
        /// (equality and order are the string's).
        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        /// The identifier as an owned string, without going through
        /// `Display`'s formatter as `to_string` does.
        impl From<&$name> for String {
            fn from(id: &$name) -> String {
                id.0.clone()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// A show's id: `[a-z0-9][a-z0-9-]{0,63}`.
    ShowId, "show id", "1 to 64 of a-z, 0-9 and '-', starting with a letter or digit",
    lower_alnum, |c| lower_alnum(c) || c == '-', (1, 64)
);
id_type!(
    /// A seat's or area's id (one namespace per show): `[A-Za-z0-9][A-Za-z0-9_-]{0,31}`.
    PlaceId, "seat or area id", "1 to 32 of A-Z, a-z, 0-9, '_' and '-', starting with a letter or digit",
    |c: char| c.is_ascii_alphanumeric(), |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-', (1, 32)
);
id_type!(
    /// A hold's id, chosen by the client for safe retries: `[A-Za-z0-9_-]{8,64}`.
    HoldId, "hold id", "8 to 64 of A-Z, a-z, 0-9, '_' and '-'",
    |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-',
    |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-', (8, 64)
);

impl HoldId {
    /// Sorts before every valid hold id: a bound for ranges of keys.
    pub(crate) const MIN: Self = Self(String::new());
}

/// Seats and areas share one namespace per show.
pub type SeatId = PlaceId;
/// Seats and areas share one namespace per show.
pub type AreaId = PlaceId;
