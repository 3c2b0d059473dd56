//! Typed helpers per game, one module per game: the SDK's core ([`crate::Turn`]) names no game.
//!
//! Each module has `observation(turn)`, the game's typed observation out of the turn's envelope (an
//! error for another game's turn), and a parser of its legal actions. A game without a module here is
//! still played: every bot gets `turn.legal_actions`, and [`crate::bots::RandomBot`] plays from them alone.

use std::fmt;

use crate::client::Turn;

pub mod coloretto;
pub mod g5211;

/// A game's helper was given a turn of another game (or one without an observation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrongGame {
    /// The turn's match.
    pub match_id: String,
    /// The turn's game.
    pub game: String,
    /// The game the helper reads.
    pub wanted: &'static str,
}

impl WrongGame {
    fn new(turn: &Turn, wanted: &'static str) -> WrongGame {
        WrongGame { match_id: turn.match_id.clone(), game: turn.game.clone(), wanted }
    }
}

impl fmt::Display for WrongGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "match {} plays {:?}, not {}", self.match_id, self.game, self.wanted)
    }
}

impl std::error::Error for WrongGame {}
