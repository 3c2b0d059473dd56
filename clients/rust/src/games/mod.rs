//! Typed helpers per game, one module per game: the SDK's core ([`crate::Turn`]) names no game.
//!
//! Each module has `observation(turn)`, the game's typed observation out of the turn's envelope (an
//! error for another game's turn), and a parser of its legal actions. A game without a module here is
//! still played: every bot gets `turn.legal_actions`, and [`crate::bots::RandomBot`] plays from them alone.

use std::fmt;

use crate::client::Turn;

pub mod azul;
pub mod coloretto;
pub mod fool;
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

/// The turn of the ActionRequest in a ConnectResponse's bytes (hex), for a match of `game`.
#[cfg(test)]
pub(crate) fn turn_of_response(hex: &str, game: &str) -> Turn {
    use crate::proto::{ConnectResponse, connect_response::Kind};
    use prost::Message;
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    let Some(Kind::ActionRequest(request)) = ConnectResponse::decode(&bytes[..]).unwrap().kind else {
        panic!("not an ActionRequest")
    };
    let mut turn = Turn::from_request(request, None);
    turn.game = game.to_string();
    turn
}
