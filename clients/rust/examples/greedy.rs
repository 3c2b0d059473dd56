//! The README's complete bot: `cargo run --example greedy` (with ARENA_TOKEN set).
use arena_bot::{Client, Turn};

/// 5211: lay the highest cards in hand.
fn greedy(turn: &Turn) -> String {
    let value = |action: &String| action.split(' ').map(|card| card[1..].parse::<u32>().unwrap_or(0)).sum::<u32>();
    turn.legal_actions.iter().max_by_key(|a| value(a)).cloned().unwrap_or_default()
}

fn main() -> Result<(), arena_bot::Error> {
    Client::new(["localhost:50051"], std::env::var("ARENA_TOKEN").unwrap_or_default()).run_blocking(greedy)
}
