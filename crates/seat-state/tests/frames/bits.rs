//! The bit-set seat map (`?format=bits`, issue 36) reads back as the
//! compact map and the JSON map read: every seat's facts, as the same
//! session gets them.

use seat_state::wire::{BitsMap, decode_set, is_set};

use super::*;

/// `BitsMap::encode`, through JSON, `decode_every`: the whole map the
/// compact form gives (itself checked against the JSON map), and each
/// taken seat of the JSON map with its facts.
pub(crate) fn check_bits_map(map: &SeatMap, order: &SeatOrder) -> Result<(), TestCaseError> {
    let bits = BitsMap::encode(map, order).unwrap();
    let text = serde_json::to_string(&bits).unwrap();
    let read: BitsMap = serde_json::from_str(&text).unwrap();
    prop_assert_eq!(&read, &bits, "{}", text);
    let decoded = read.decode_every(order).unwrap();
    let compact = CompactMap::encode(map, order).unwrap().decode_every(order).unwrap();
    prop_assert_eq!(&decoded, &compact, "{}", text);
    let by_id: std::collections::HashMap<&str, &SeatFact> =
        decoded.seats.iter().map(|fact| (fact.id.as_str(), fact)).collect();
    for fact in &taken(map).seats {
        let back = by_id[fact.id.as_str()];
        let held = (!fact.sold).then_some(fact.hold_expires_at).flatten();
        prop_assert_eq!((back.sold, back.blocked, back.hold_expires_at), (fact.sold, fact.blocked, held));
    }
    Ok(())
}

#[test]
fn a_bit_set_is_base64_of_its_bytes_lowest_bit_first() {
    let order = SeatOrder::new((0..20).map(|at| (format!("S{at}"), None, None)));
    let sold = [0, 3, 8, 19];
    let seats = (0..20)
        .map(|at| SeatFact { id: format!("S{at}"), sold: sold.contains(&at), mine: Some(false), ..SeatFact::default() })
        .collect();
    let map = SeatMap { show_id: "s".into(), server_time: NOW, version: 3, seats, areas: vec![] };
    let bits = BitsMap::encode(&map, &order).unwrap();
    // Bytes 0b0000_1001, 0b0000_0001, 0b0000_1000: "CQEI".
    assert_eq!(bits.s, "CQEI");
    assert_eq!(decode_set(&bits.s, 20).unwrap(), [0x09, 0x01, 0x08]);
    assert!(sold.iter().all(|&at| is_set(&decode_set(&bits.s, 20).unwrap(), at)));
    assert_eq!(decode_set("CQ", 20).unwrap(), [0x09], "padding is optional");
    assert!(decode_set("CQEI", 19).is_err(), "seat 19 is past a show of 19 seats");
    assert!(decode_set("C*", 20).is_err());
    assert_eq!(
        bits.decode_every(&order).unwrap(),
        CompactMap::encode(&map, &order).unwrap().decode_every(&order).unwrap()
    );
}

#[test]
fn held_seats_side_by_side_with_one_deadline_are_one_run() {
    let order = SeatOrder::new((0..10).map(|at| (format!("S{at}"), None, None)));
    let held = |at: i64| match at {
        2..=4 => Some(NOW + 60_000),
        6 => Some(NOW + 30_000),
        7 => Some(NOW - 1),
        _ => None,
    };
    let seats = (0..10)
        .map(|at| SeatFact {
            id: format!("S{at}"),
            hold_expires_at: held(at),
            mine: Some(false),
            ..SeatFact::default()
        })
        .collect();
    let map = SeatMap { show_id: "s".into(), server_time: NOW, version: 3, seats, areas: vec![] };
    let bits = BitsMap::encode(&map, &order).unwrap();
    assert_eq!(bits.e, [60_000, 3, 30_000, 1], "seat 7's hold has expired: it is free");
    let every = bits.decode_every(&order).unwrap();
    assert_eq!(
        every.seats.iter().map(|fact| fact.hold_expires_at).collect::<Vec<_>>(),
        (0..10).map(|at| held(at).filter(|d| *d > NOW)).collect::<Vec<_>>()
    );
    let short = BitsMap { e: vec![60_000, 3], ..bits.clone() };
    assert!(short.decode_every(&order).is_err(), "a held seat without a deadline");
    let long = BitsMap { e: vec![60_000, 5], ..bits };
    assert!(long.decode_every(&order).is_err(), "more deadlines than held seats");
}
