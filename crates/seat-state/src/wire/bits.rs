//! Availability as bits (issue 36, `…/seats?format=bits`): one bit a
//! seat per state, in the definition's seat order, so a stadium's map is
//! about as many bytes as it has seats / 8, however many are taken.
//!
//! A bit set is written in base64 (RFC 4648, padded): bit `i` is seat `i`,
//! byte `i / 8`, value `1 << (i % 8)`; trailing zero bytes are left out,
//! so an empty set is `""` (and absent on the wire).

use serde::{Deserialize, Serialize};

use super::frame::{CompactError, Positions, SeatOrder, gaps, positions};
use super::{AreaFact, SeatFact, SeatMap};

/// The seat map as bit sets, taken seats only (as `?only=taken`: a seat
/// in none of the sets is free as of `serverTime`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BitsMap {
    pub show_id: String,
    /// `serverTime`.
    pub server_time: i64,
    pub version: i64,
    /// Sold seats, a bit set.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub s: String,
    /// Seats held past `serverTime` and not sold, a bit set (a blocked
    /// seat may also carry an older deadline, as in the compact form).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub h: String,
    /// The held seats' deadlines, in seat order, run by run:
    /// `[expiresAt − serverTime, how many held seats in a row share it, …]`
    /// (a hold's seats side by side are one run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub e: Vec<i64>,
    /// Seats blocked (free unless sold or held), a bit set.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub b: String,
    /// Seats held or sold to the asking session, as gaps (see
    /// [`super::CompactMap`]): few, so a list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub m: Vec<u32>,
    /// Every area, as in the JSON form.
    #[serde(default)]
    pub areas: Vec<AreaFact>,
}

impl BitsMap {
    /// The bit-set map of seats grouped by position (only taken seats;
    /// `groups.free` is ignored), as [`super::CompactMap::of_positions`].
    pub fn of_positions(
        show_id: String,
        server_time: i64,
        version: i64,
        groups: &Positions,
        areas: Vec<AreaFact>,
    ) -> Self {
        let mut held: Vec<(u32, i64)> = groups.held.iter().map(|&(deadline, at)| (at, deadline)).collect();
        held.sort_unstable();
        let mut e: Vec<i64> = Vec::new();
        for &(_, deadline) in &held {
            match e.len() {
                len if len >= 2 && e[len - 2] == deadline - server_time => e[len - 1] += 1,
                _ => e.extend([deadline - server_time, 1]),
            }
        }
        Self {
            show_id,
            server_time,
            version,
            s: encode_set(&groups.sold),
            h: encode_set(held.iter().map(|&(at, _)| at)),
            e,
            b: encode_set(&groups.blocked),
            m: gaps(&groups.mine),
            areas,
        }
    }

    /// The bit-set form of a seat map: only its taken seats (sold,
    /// blocked, or held past its `serverTime`).
    pub fn encode(map: &SeatMap, order: &SeatOrder) -> Result<Self, CompactError> {
        let t = map.server_time;
        let taken =
            map.seats.iter().filter(|fact| fact.sold || fact.blocked || fact.hold_expires_at.is_some_and(|d| d > t));
        let groups = Positions::of(taken, order)?;
        Ok(Self::of_positions(map.show_id.clone(), t, map.version, &groups, map.areas.clone()))
    }

    /// The whole seat map it stands for, every seat in definition order as
    /// the JSON map gives it to the same session (a seat in no set is free,
    /// `mine: false`), as [`super::CompactMap::decode_every`].
    pub fn decode_every(&self, order: &SeatOrder) -> Result<SeatMap, CompactError> {
        let n = order.len();
        let (sold, held, blocked) = (decode_set(&self.s, n)?, decode_set(&self.h, n)?, decode_set(&self.b, n)?);
        let mut deadlines = self.held_deadlines();
        let mut seats = Vec::with_capacity(n);
        for at in 0..n {
            let mut fact = SeatFact { mine: Some(false), ..order.fact(at as u32)? };
            fact.sold = is_set(&sold, at);
            fact.blocked = is_set(&blocked, at);
            if is_set(&held, at) {
                let deadline = deadlines.next().ok_or_else(|| CompactError("a held seat without a deadline".into()))?;
                fact.hold_expires_at = Some(deadline?);
            }
            seats.push(fact);
        }
        if deadlines.next().is_some() {
            return Err(CompactError("more deadlines than held seats".into()));
        }
        for at in positions(&self.m)? {
            let fact =
                seats.get_mut(at as usize).ok_or_else(|| CompactError(format!("seat {at} is not in the show")))?;
            fact.mine = Some(true);
        }
        Ok(SeatMap {
            show_id: self.show_id.clone(),
            server_time: self.server_time,
            version: self.version,
            seats,
            areas: self.areas.clone(),
        })
    }

    /// Each held seat's deadline, in seat order (the order of the set
    /// bits of `h`), from the runs of `e`.
    pub fn held_deadlines(&self) -> impl Iterator<Item = Result<i64, CompactError>> + '_ {
        self.e.chunks(2).flat_map(move |run| {
            let deadline = match run {
                &[offset, count] if count >= 0 => self
                    .server_time
                    .checked_add(offset)
                    .map(|deadline| (deadline, count as usize))
                    .ok_or_else(|| CompactError("a deadline out of range".into())),
                _ => Err(CompactError("a run of deadlines needs an offset and a count".into())),
            };
            let (value, count) = match deadline {
                Ok((deadline, count)) => (Ok(deadline), count),
                Err(error) => (Err(error), 1),
            };
            core::iter::repeat_n(value, count)
        })
    }
}

/// Whether seat `at` is in a decoded set.
pub fn is_set(set: &[u8], at: usize) -> bool {
    set.get(at / 8).is_some_and(|byte| byte & (1 << (at % 8)) != 0)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Ascending positions as a base64 bit set, trailing zero bytes left out.
fn encode_set(positions: impl IntoIterator<Item = impl core::borrow::Borrow<u32>>) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    for at in positions {
        let at = *at.borrow() as usize;
        if bytes.len() <= at / 8 {
            bytes.resize(at / 8 + 1, 0);
        }
        bytes[at / 8] |= 1 << (at % 8);
    }
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (k, &byte)| word | u32::from(byte) << (16 - 8 * k));
        for k in 0..4 {
            let sextet = (word >> (18 - 6 * k)) & 63;
            text.push(if k <= chunk.len() { char::from(ALPHABET[sextet as usize]) } else { '=' });
        }
    }
    text
}

/// A base64 digit's value.
fn sextet(digit: u8) -> Option<u32> {
    let value = match digit {
        b'A'..=b'Z' => digit - b'A',
        b'a'..=b'z' => digit - b'a' + 26,
        b'0'..=b'9' => digit - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// A base64 bit set's bytes (padding optional); refused when it sets a
/// seat at or past `seats`.
pub fn decode_set(text: &str, seats: usize) -> Result<Vec<u8>, CompactError> {
    let bad = || CompactError("a bit set that is not base64".into());
    let digits = text.trim_end_matches('=').as_bytes();
    let mut bytes = Vec::with_capacity(digits.len() * 3 / 4);
    let (mut word, mut bits) = (0u32, 0);
    for &digit in digits {
        word = (word << 6) | sextet(digit).ok_or_else(bad)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((word >> bits) as u8);
            word &= (1 << bits) - 1;
        }
    }
    if word != 0 {
        return Err(bad());
    }
    if (seats..bytes.len() * 8).any(|at| is_set(&bytes, at)) {
        return Err(CompactError(format!("a bit set names a seat past the show's {seats}")));
    }
    Ok(bytes)
}
