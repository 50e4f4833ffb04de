//! Seathold's server: an axum application over a `Store`, deciding with
//! `seat-state`. `main.rs` only parses the command line and calls [`run`].

pub mod app;
pub mod config;
pub mod definitions;
pub mod demo;
pub mod encoded;
pub mod error;
pub mod extract;
pub mod grip;
pub mod limits;
pub mod listen;
pub mod metrics;
pub mod openapi;
pub mod prerender;
pub mod routes;
pub mod security;
pub mod session;
pub mod state;
pub mod static_files;
pub mod telemetry;
pub mod venue_csv;
pub mod webhooks;

use std::io::Write;
use std::sync::Arc;

use anyhow::Context;
use seat_state::Show;
use seat_state::wire::ShowInput;

use crate::config::{Cli, Command, ServeArgs, ShowCommand};
use crate::state::{AppState, Settings};
use seathold_core::clock::{Clock, FollowingClock, SharedClock, SystemClock};
use seathold_core::store::CreateShow;

/// How often a process sharing a database re-measures its clock against it.
const CLOCK_SAMPLE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs one command of the `seathold` binary to completion.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Show(ShowCommand::Create { file, fields, database }) => {
            let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let input = if file.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("csv")) {
                let seats = venue_csv::seats(&bytes).with_context(|| format!("reading {}", file.display()))?;
                fields.with_seats(seats)
            } else {
                let flags = fields != venue_csv::ShowFields::default();
                anyhow::ensure!(
                    !flags,
                    "--id, --name, --hold-seconds and the like are for a CSV venue; JSON has its own"
                );
                serde_json::from_slice::<ShowInput>(&bytes).with_context(|| format!("parsing {}", file.display()))?
            };
            let show = Show::parse(&input).with_context(|| format!("validating {}", file.display()))?;
            let store = seathold_core::store::open(&database.url).await?;
            match store.create_show(&show, SystemClock::default().now()).await? {
                CreateShow::Created => println!("created show {}", show.id),
                CreateShow::AlreadyThere => println!("show {} already exists, unchanged", show.id),
                CreateShow::Conflict => {
                    anyhow::bail!("a different show with id {} already exists", show.id)
                }
            }
            Ok(())
        }
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    // An empty secret would open the admin API to anyone who sends an empty bearer token.
    let admin_token = config::admin_token();
    if admin_token.as_deref().is_some_and(|token| token.trim().is_empty()) {
        anyhow::bail!(
            "SEATHOLD_ADMIN_TOKEN is set but empty: set a long random secret, or unset it to disable the admin API"
        );
    }
    let grip = args.grip.settings()?;
    let store = seathold_core::store::open(&args.database.url).await?;
    if grip.as_ref().is_some_and(|grip| grip.instance.is_none()) && store.shared() {
        anyhow::bail!(
            "with several processes on one database, give each its own --grip-instance: each cuts frames at its own instants"
        );
    }
    let local = SystemClock::skewed(args.clock_skew_ms);
    // With a shared database, its clock decides; this process follows it.
    let clock: SharedClock = if store.shared() {
        FollowingClock::start(local, Arc::clone(&store), CLOCK_SAMPLE_EVERY).await
    } else {
        Arc::new(local)
    };
    let mut new_demo_shows = Vec::new();
    if args.demo {
        for show in [demo::theatre(), demo::arena(), demo::club(), demo::stadium()] {
            let outcome = store.create_show(&show, clock.now()).await?;
            tracing::info!(show = %show.id, ?outcome, "demo show");
            if outcome == CreateShow::Created {
                new_demo_shows.push(show.id.to_string());
            }
        }
    }
    let settings = Settings {
        admin_token: admin_token.map(Arc::from),
        limits: args.limits.limits(),
        secure_cookie: args.behind_tls,
        session_cache: args.session_cache,
        session_idle_ms: i64::try_from(std::time::Duration::from(args.session_idle_ttl).as_millis())
            .unwrap_or(i64::MAX),
        retention: seathold_core::engine::Retention {
            keep_settled_ms: i64::try_from(std::time::Duration::from(args.keep_settled).as_millis())
                .unwrap_or(i64::MAX),
            checkpoint_every: args.checkpoint_every,
        },
        ticks: seathold_core::engine::events::Ticks { tick: args.tick.into(), ..Default::default() },
        grip,
        ..Settings::default()
    };
    let state = AppState::with_settings(store, Arc::clone(&clock), settings);
    // A new demo show's box office blocks its production seats, as an operator would.
    for show_id in new_demo_shows {
        let (Some(engine), Some((seats, reason))) = (state.engines.show(&show_id).await?, demo::blocked(&show_id))
        else {
            continue;
        };
        engine.block(seats, Some(reason.to_owned())).await?;
    }
    // Each definition is compressed once, at brotli's best (about 2.5 s of
    // CPU for the 20,000-seat arena): before customers ask, not while they wait.
    let warming = state.clone();
    tokio::spawn(async move {
        for show in warming.core.shows.list().await.unwrap_or_default() {
            if let Err(error) = warming.definitions.get(&warming.core.shows, &show.id).await {
                tracing::warn!(%error, show = show.id, "definition not prepared ahead");
            }
        }
    });
    // Expiries that fell due while the server was down are handled first thing.
    tokio::spawn(seathold_core::sweep::run(
        Arc::clone(&state.store),
        Arc::clone(&state.engines),
        clock,
        args.sweep_interval.into(),
    ));
    // Deliveries run beside the writers, never in their way; they stop with the server.
    let _deliveries = webhooks::start(&state, args.webhooks.settings())?;
    let state_stopping = Arc::clone(&state.stopping);
    let app = app::router(state, args.web.as_deref());
    let listener = tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("binding {}", args.addr))?;
    let address = listener.local_addr()?;
    // Tests and scripts wait for this exact line on stdout.
    println!("listening on http://{address}");
    std::io::stdout().flush()?;
    let stopping = Arc::clone(&state_stopping);
    let stop = async move {
        shutdown_signal().await;
        stopping.send_replace(true);
    };
    listen::serve(listener, app, args.limits.header_timeout.into(), stop).await;
    tracing::info!("stopped cleanly");
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}
