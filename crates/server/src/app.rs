//! The HTTP application: router, shared state and the layers every request passes.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::{CACHE_CONTROL, VARY};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use tower_http::CompressionLevel;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use tower_http::trace::TraceLayer;
use utoipa_axum::routes;

use seat_state::wire::ErrorBody;

use crate::error::{AppError, DecidedAt, PendingError};
use crate::extract::{BODY_LIMIT, Now};
use crate::metrics;
use crate::openapi;
use crate::prerender;
use crate::routes;
use crate::security;
use crate::state::AppState;
use crate::static_files;

/// The whole application; `web_dist` serves the built UI at `/` when given.
pub fn router(state: AppState, web_dist: Option<&Path>) -> Router {
    let timed = metrics::TrackLatency(Arc::clone(&state.edge_metrics));
    let (api, api_doc) = routes::router().routes(routes!(openapi::openapi_json)).split_for_parts();
    let (operations, operations_doc) = routes::health::router().split_for_parts();
    let document = openapi::document(api_doc, operations_doc).unwrap_or_else(|error| {
        tracing::error!(%error, "the OpenAPI document does not serialize");
        "{}".to_owned()
    });
    let api = api
        .layer(Extension(Arc::<str>::from(document)))
        .route_layer(timed.clone())
        .fallback(|| async { AppError::NotFound })
        .layer(DefaultBodyLimit::max(BODY_LIMIT));
    let mut app = Router::new().nest("/api", api).merge(operations.route_layer(timed));
    app = match web_dist {
        // Client-side routes such as /shows/x load index.html; the app routes.
        Some(dist) => app
            .route("/shows/{show_id}", get(prerender::show_page).layer(Extension(prerender::ShowPages::read(dist))))
            .fallback_service(static_files::service(dist)),
        None => app.fallback(|| async { AppError::NotFound }),
    };
    let edge = Edge { state: state.clone(), policies: security::Policies::for_web(web_dist) };
    app.layer(CatchPanicLayer::custom(answer_a_panic))
        .layer(middleware::from_fn_with_state(edge, edge_layer))
        .layer(compression())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A handler that panics answers 500 `internal` like any other failure
/// (logged, stamped by the edge) instead of dropping the connection.
fn answer_a_panic(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    AppError::Internal(anyhow::anyhow!("a handler panicked: {what}")).into_response()
}

/// How hard answers written per request are compressed: brotli 4 and gzip
/// 4 keep up with the writes (the arena's full seat map, 1.3 MB, in a few
/// milliseconds); what is sent often is compressed once instead, at the
/// highest levels (`encoded.rs`, `static_files.rs`).
const PER_REQUEST_LEVEL: i32 = 4;

/// Every answer with a body is compressed when the request accepts it
/// (API.md "On-sale (v3)"), except live streams (an encoder's state per
/// open stream costs more memory than the events save) and answers that
/// come compressed already.
fn compression() -> CompressionLayer<impl Predicate> {
    let predicate = SizeAbove::new(1).and(NotForContentType::SSE).and(NotForContentType::IMAGES);
    CompressionLayer::new().quality(CompressionLevel::Precise(PER_REQUEST_LEVEL)).compress_when(predicate)
}

/// What the edge middleware needs: the clock and the security policies.
#[derive(Clone)]
struct Edge {
    state: AppState,
    policies: Arc<security::Policies>,
}

/// The `X-Server-Time` header, named once (not parsed per answer).
const X_SERVER_TIME: HeaderName = HeaderName::from_static("x-server-time");

/// Every request passes here (one middleware rather than one per concern:
/// each `from_fn` layer boxes its future and clones the service behind it
/// on every request). Reads the request's instant and hands it to the
/// handler, then stamps the answer: `X-Server-Time` and, for errors, the
/// body (an answer a show's writer decided carries the writer's instant
/// instead, `DecidedAt`); then the security headers (`security.rs`).
async fn edge_layer(State(edge): State<Edge>, mut request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    // The UI's files: how long they may be kept depends on their name.
    let file_cache = (!api).then(|| static_files::cache_control(request.uri().path()));
    let now = edge.state.clock.now();
    request.extensions_mut().insert(Now(now));
    let mut response = next.run(request).await;
    if response.status() == StatusCode::METHOD_NOT_ALLOWED && response.extensions().get::<PendingError>().is_none() {
        response = AppError::MethodNotAllowed.into_response();
    }
    let stamp = response.extensions().get::<DecidedAt>().map_or(now, |decided| decided.0);
    if let Some(error) = response.extensions_mut().remove::<PendingError>() {
        let status = response.status();
        let body = ErrorBody {
            error: error.code.to_owned(),
            message: error.message,
            server_time: stamp.0,
            seats: error.seats,
            area: error.area,
            available: error.available,
            queue: error.queue,
        };
        // Keep the error's own headers (Retry-After, Allow); the body is new.
        let headers = std::mem::take(response.headers_mut());
        response = (status, headers, Json(body)).into_response();
    }
    let headers = response.headers_mut();
    headers.insert(X_SERVER_TIME, HeaderValue::from(stamp.0));
    if let Some(cache) = file_cache {
        headers.entry(CACHE_CONTROL).or_insert(cache);
    }
    // Every answer may differ by encoding (the compression layer adds no
    // `Vary` to what comes compressed already, or to an empty body).
    if !headers.get_all(VARY).iter().any(|value| value.as_bytes().eq_ignore_ascii_case(b"accept-encoding")) {
        headers.append(VARY, HeaderValue::from_static("accept-encoding"));
    }
    edge.policies.add_to(headers, api);
    response
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use tower::ServiceExt;

    use super::*;

    async fn boom() -> &'static str {
        panic!("the URL parser's table")
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_500_internal_instead_of_dropping_the_connection() {
        let app = Router::new().route("/boom", get(boom)).layer(CatchPanicLayer::custom(answer_a_panic));
        let response = app.oneshot(Request::get("/boom").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        // The edge middleware writes the body from this.
        let pending = response.extensions().get::<PendingError>().unwrap();
        assert_eq!(pending.code, "internal");
    }
}
