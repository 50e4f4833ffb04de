//! Accepting connections. `axum::serve` sets no header read timeout, so a
//! client sending its headers a byte at a time would hold a connection and
//! a task forever; this loop serves HTTP/1.1 with hyper's timeout, hands
//! each request its peer address (`ConnectInfo`) and stops gracefully.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

/// Pause after a failed accept (e.g. out of file descriptors), so the loop
/// does not spin while connections close.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `stop` resolves, then waits for open
/// connections to finish (live streams end themselves when stopping).
pub async fn serve(listener: TcpListener, app: Router, header_timeout: Duration, stop: impl Future<Output = ()>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        // Small answers go out at once rather than waiting for more to send.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
        let service = app.clone().map_request(move |mut request: Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
        tokio::spawn(async move {
            // Closed by the client or timed out: nothing to answer to.
            if let Err(error) = connection.await {
                tracing::debug!(%error, %peer, "connection ended");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}
