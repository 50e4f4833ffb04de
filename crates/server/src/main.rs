use clap::Parser;
use seathold_server::config::Cli;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    seathold_server::telemetry::init();
    seathold_server::run(Cli::parse()).await
}
