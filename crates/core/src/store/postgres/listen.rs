//! `LISTEN` on a connection of its own: each notification names a show
//! another process (or this one) changed, and becomes a hint to this
//! process's writers. The connection comes back after a failure; hints lost
//! meanwhile are covered by the writers' periodic catch-up. It uses the
//! pool's TLS setting.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{AsyncMessage, NoTls, Socket};

use super::tls::Tls;

/// Longest wait between reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// First wait between reconnection attempts; it doubles while they fail.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// Listens for the life of the process, reconnecting as needed. Resolves
/// once the first `LISTEN` is in place (or failed), so that a process
/// announces itself ready only when it hears other processes.
pub async fn start(
    config: tokio_postgres::Config,
    tls: Tls,
    channel: &'static str,
    hints: broadcast::Sender<Arc<str>>,
) {
    let (ready, listening) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut ready = Some(ready);
        let mut backoff = FIRST_BACKOFF;
        loop {
            let mut subscribed_now = || {
                backoff = FIRST_BACKOFF;
                if let Some(ready) = ready.take() {
                    ready.send(()).ok();
                }
            };
            let outcome = match &tls {
                Tls::Off(_) => listen(&config, NoTls, channel, &hints, &mut subscribed_now).await,
                Tls::On { connector, .. } => {
                    listen(&config, connector.clone(), channel, &hints, &mut subscribed_now).await
                }
            };
            match outcome {
                Ok(never) => match never {},
                Err(error) => tracing::warn!(%error, "LISTEN connection lost; reconnecting"),
            }
            // A first failure does not hold the process back: the poll covers it.
            if let Some(ready) = ready.take() {
                ready.send(()).ok();
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    });
    drop(listening.await);
}

/// Forwards notifications until the connection fails.
async fn listen<T: MakeTlsConnect<Socket>>(
    config: &tokio_postgres::Config,
    tls: T,
    channel: &str,
    hints: &broadcast::Sender<Arc<str>>,
    subscribed_now: &mut impl FnMut(),
) -> anyhow::Result<std::convert::Infallible> {
    let (client, mut connection) = config.connect(tls).await?;
    let mut messages = futures_util::stream::poll_fn(move |context| connection.poll_message(context));
    // The connection only makes progress while polled: subscribe while polling it.
    let command = format!("LISTEN {channel}");
    let subscribe = client.batch_execute(&command);
    tokio::pin!(subscribe);
    let mut subscribed = false;
    loop {
        tokio::select! {
            done = &mut subscribe, if !subscribed => {
                done?;
                subscribed = true;
                subscribed_now();
            }
            message = messages.next() => match message {
                Some(Ok(AsyncMessage::Notification(note))) => {
                    // No receiver yet is fine: no show of this process to wake.
                    drop(hints.send(Arc::from(note.payload())));
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error.into()),
                None => anyhow::bail!("the LISTEN connection closed"),
            },
        }
    }
}
