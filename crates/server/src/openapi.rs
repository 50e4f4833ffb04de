//! The OpenAPI document, generated from the routes' own annotations
//! (`utoipa`), so it cannot drift from what the router serves.

mod contract;

use std::sync::Arc;

use axum::Extension;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use utoipa::Modify;
use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Seathold",
        description = "Hold seats for a short window while customers pay. Every timestamp is integer Unix epoch \
                       milliseconds on the server clock; every JSON body has `serverTime` and every response the \
                       `X-Server-Time` header. Errors are `{error, message, serverTime}` plus the fields their code names."
    ),
    modifiers(&Security),
    // The compact forms (`?format=compact`, `?format=bits`), which the routes' annotations name only in words.
    components(schemas(seat_state::wire::CompactMap, seat_state::wire::CompactChange, seat_state::wire::BitsMap))
)]
struct ApiDoc;

/// The ways to authenticate: a session (bearer or cookie) and the admin token.
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = || SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build());
        components.add_security_scheme("session", bearer());
        components.add_security_scheme("admin", bearer());
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new("seathold_session"))),
        );
    }
}

/// The whole document as JSON: `api` served under `/api`, `operations` at
/// the root, with API.md's constraints added (`contract`).
pub fn document(api: utoipa::openapi::OpenApi, operations: utoipa::openapi::OpenApi) -> serde_json::Result<String> {
    let mut document = ApiDoc::openapi().nest("/api", api);
    document.merge(operations);
    let mut json = serde_json::to_value(&document)?;
    contract::apply(&mut json);
    serde_json::to_string(&json)
}

/// This document, as JSON.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, content_type = "application/json", description = "The OpenAPI 3 document of this API")))]
pub async fn openapi_json(Extension(document): Extension<Arc<str>>) -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], document.to_string())
}
