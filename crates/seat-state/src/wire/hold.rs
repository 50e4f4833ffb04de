//! Bodies of the session and hold endpoints.

use std::fmt;

use super::AreaMap;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `POST /api/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionBody {
    /// The secret session token (also set as the `seathold_session` cookie).
    pub token: String,
    pub holder_id: String,
    pub server_time: i64,
}

/// `POST /api/shows/{showId}/holds` body.
///
/// Kept raw so that validation, not parsing, reports problems:
/// `seat_state::HoldRequest::parse` turns it into a checked request. Only a
/// JSON object parses (serde would otherwise accept an array for a struct).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HoldRequestBody {
    /// The client's id for safe retries; the server makes one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_id: Option<String>,
    #[serde(default)]
    pub seats: Vec<String>,
    /// Places wanted per general-admission area.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, i64>))]
    pub areas: AreaMap<RequestedQuantity>,
}

/// The derived shape of [`HoldRequestBody`], read only from a map.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHoldRequest {
    #[serde(default)]
    hold_id: Option<String>,
    #[serde(default)]
    seats: Vec<String>,
    #[serde(default)]
    areas: AreaMap<RequestedQuantity>,
}

impl<'de> Deserialize<'de> for HoldRequestBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectOnly;

        impl<'de> Visitor<'de> for ObjectOnly {
            type Value = RawHoldRequest;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                RawHoldRequest::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }

        let raw = deserializer.deserialize_map(ObjectOnly)?;
        Ok(Self { hold_id: raw.hold_id, seats: raw.seats, areas: raw.areas })
    }
}

/// An area quantity as the client sent it.
///
/// Any JSON value deserializes, so that `2.5`, `-1` or `"two"` reach
/// validation (`422 invalid_quantity`) instead of failing the whole body
/// (`400 bad_request`). An integral number written with a fraction (`2.0`)
/// counts as that integer, as in JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestedQuantity {
    /// A whole number, possibly zero or negative. Integers beyond `i64`
    /// saturate, which keeps them too large.
    Integer(i64),
    /// A fraction, string, boolean, `null`, array or object.
    NotInteger,
}

impl Serialize for RequestedQuantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Integer(n) => serializer.serialize_i64(*n),
            Self::NotInteger => serializer.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for RequestedQuantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QuantityVisitor)
    }
}

struct QuantityVisitor;

impl<'de> Visitor<'de> for QuantityVisitor {
    type Value = RequestedQuantity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::Integer(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::Integer(i64::try_from(n).unwrap_or(i64::MAX)))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        // An integer too large for u64 arrives as a float; `as` saturates,
        // which keeps it too large (or too small).
        Ok(if n.is_finite() && n.fract() == 0.0 {
            RequestedQuantity::Integer(n as i64)
        } else {
            RequestedQuantity::NotInteger
        })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::NotInteger)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::NotInteger)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::NotInteger)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(RequestedQuantity::NotInteger)
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
        inner.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RequestedQuantity::NotInteger)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(RequestedQuantity::NotInteger)
    }
}

/// A hold, as every hold endpoint answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(hashmap_as_object))]
#[serde(rename_all = "camelCase")]
pub struct HoldBody {
    pub hold_id: String,
    pub show_id: String,
    pub seats: Vec<String>,
    /// Places per general-admission area.
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, i64>))]
    #[cfg_attr(feature = "js", tsify(type = "Record<string, number>"))]
    pub areas: AreaMap<i64>,
    /// `HELD`, `CONFIRMED`, `RELEASED` or `EXPIRED` at `serverTime`.
    pub status: String,
    pub expires_at: i64,
    pub extensions: i64,
    /// Confirmed after its deadline under `latePolicy: "honorIfFree"`.
    pub late: bool,
    pub server_time: i64,
}

impl HoldBody {
    /// Places the hold takes: its seats and its area quantities.
    pub fn places(&self) -> u32 {
        let areas: i64 = self.areas.values().map(|quantity| (*quantity).max(0)).sum();
        u32::try_from((self.seats.len() as i64).saturating_add(areas)).unwrap_or(u32::MAX)
    }

    /// Extensions still allowed when a show allows `max_extensions`.
    pub fn extensions_left(&self, max_extensions: i64) -> u32 {
        u32::try_from(max_extensions.saturating_sub(self.extensions).max(0)).unwrap_or(u32::MAX)
    }
}

/// `GET /api/holds`: the caller's holds, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "js", derive(tsify::Tsify), tsify(hashmap_as_object))]
#[serde(rename_all = "camelCase")]
pub struct HoldList {
    pub holds: Vec<HoldBody>,
    pub server_time: i64,
}
