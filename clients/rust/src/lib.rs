//! The Rust starter kit for arena bots: write one function, the SDK plays the protocol.
//!
//! ```no_run
//! use arena_bot::{Client, Turn};
//!
//! fn main() -> Result<(), arena_bot::Error> {
//!     Client::new(["localhost:50051"], "the token RegisterBot gave you")
//!         .run_blocking(|turn: &Turn| turn.legal_actions[0].clone())
//! }
//! ```
//!
//! What the SDK does (see `proto/arena/v1/bot.proto` for the protocol itself): it dials the arena
//! over gRPC, says `Hello` with the token, the games and the concurrency, answers every
//! `ActionRequest` by calling the bot (each decision on its own blocking thread, so many matches
//! run at once), echoes the match id, seat and sequence (a match may seat the bot more than once:
//! each seat is played on its own, its state kept per match and seat), drops answers to superseded
//! requests, pings at
//! the server's keep-alive interval and treats a silent stream as dead, logs rejections and
//! protocol errors, and reconnects with capped exponential backoff and jitter over one or several
//! addresses. It never reconnects after the server ends the stream with `ABORTED` (another
//! connection of the same bot took over).
//!
//! The core names no game: a [`Turn`] carries the game's name (from `MatchStarted`) and the
//! observation envelope (`proto::Observation`, its `oneof game`), with the legal actions.
//!
//! Modules: [`proto`] is the wire contract generated from every file of `proto/arena/v1/` at build
//! time; [`bots`] has the two starter bots; [`games`] has one module of typed helpers per game
//! ([`games::g5211`] reads cards and scores rounds of 5211; [`games::coloretto`], [`games::azul`] and
//! [`games::fool`] read those games').

mod client;

pub mod bots;
pub mod games;
pub mod rng;

/// The wire contract `arena.v1`, generated from the repository's `proto/` by `build.rs`.
pub mod proto {
    #![allow(missing_docs, clippy::all)]
    tonic::include_proto!("arena.v1");
}

pub use client::{Bot, Client, Error, Event, MatchInfo, MatchResult, Stopper, Turn, fault_name, log_event};
pub use proto::Observation;
