//! Tchuka Ruma solver (being written).
#[derive(clap::Args)]
pub struct TchukaArgs {}
pub fn run(_a: &TchukaArgs) -> anyhow::Result<i32> {
    anyhow::bail!("not yet")
}
