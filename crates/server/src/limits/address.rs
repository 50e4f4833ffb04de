//! The client address limits are keyed by.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use crate::error::AppError;
use crate::state::AppState;

/// Who is asking, as far as limits care: the peer's IP address, or the
/// last `X-Forwarded-For` entry when the server is told to trust its proxy.
/// IPv6 addresses count per /64: one host usually has a whole /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddress(pub IpAddr);

impl ClientAddress {
    pub fn of(parts: &Parts, trust_forwarded_for: bool) -> Self {
        let forwarded = trust_forwarded_for.then(|| last_forwarded(parts)).flatten();
        // In-process requests (tests, the simulator) have no peer: one address.
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip());
        Self(prefix(forwarded.or(peer).unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))))
    }
}

/// The entry the trusted proxy appended: earlier ones are the client's own say.
fn last_forwarded(parts: &Parts) -> Option<IpAddr> {
    let header = parts.headers.get_all("x-forwarded-for").iter().next_back()?.to_str().ok()?;
    header.rsplit(',').next()?.trim().parse().ok()
}

fn prefix(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !((1u128 << 64) - 1))),
        },
        v4 => v4,
    }
}

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        Ok(Self::of(parts, state.limits.trust_forwarded_for))
    }
}
