//! Coloretto as a bot needs it: the turn's typed observation and its legal actions, parsed.
//!
//! ```no_run
//! # fn act(turn: &arena_bot::Turn) -> Result<(), arena_bot::games::WrongGame> {
//! use arena_bot::games::coloretto;
//! let view = coloretto::observation(turn)?; // &ColorettoObservation: rows, collections, drawn...
//! let moves = coloretto::legal_moves(turn); // [Move::Draw, Move::Take(2), ...]
//! # Ok(())
//! # }
//! ```

use crate::client::Turn;
use crate::games::WrongGame;
use crate::proto::observation::Game;
pub use crate::proto::{ColorettoObservation, ColorettoRoundResult};

/// The game's registry name.
pub const GAME: &str = "coloretto";

/// One Coloretto decision; rows are 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Draw the next card from the pile.
    Draw,
    /// Place the drawn card in this row.
    Place(u8),
    /// Take this row (and sit out the rest of the round).
    Take(u8),
}

impl Move {
    /// Reads an action in the contract's notation: `draw`, `place r` or `take r`.
    pub fn parse(text: &str) -> Option<Move> {
        let mut words = text.split_whitespace();
        let kind = words.next()?;
        let row = words.next().map(|r| r.parse::<u8>().ok().filter(|&r| r <= 9));
        if words.next().is_some() {
            return None;
        }
        match (kind, row) {
            ("draw", None) => Some(Move::Draw),
            ("place", Some(Some(row))) => Some(Move::Place(row)),
            ("take", Some(Some(row))) => Some(Move::Take(row)),
            _ => None,
        }
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Move::Draw => write!(f, "draw"),
            Move::Place(row) => write!(f, "place {row}"),
            Move::Take(row) => write!(f, "take {row}"),
        }
    }
}

/// The seat's Coloretto observation; an error if the turn is of another game (or carries no observation).
pub fn observation(turn: &Turn) -> Result<&ColorettoObservation, WrongGame> {
    match turn.observation.as_ref().and_then(|o| o.game.as_ref()) {
        Some(Game::GameColoretto(view)) if turn.game == GAME || turn.game.is_empty() => Ok(view),
        _ => Err(WrongGame::new(turn, GAME)),
    }
}

/// The legal actions, parsed (any that do not parse are skipped).
pub fn legal_moves(turn: &Turn) -> Vec<Move> {
    turn.legal_actions.iter().filter_map(|action| Move::parse(action)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_parse_and_print() {
        for (text, parsed) in [("draw", Move::Draw), ("place 0", Move::Place(0)), ("take 4", Move::Take(4))] {
            assert_eq!(Move::parse(text), Some(parsed));
            assert_eq!(parsed.to_string(), text);
        }
        for bad in ["", "draw 1", "take", "take x", "place 1 2", "G3 Y1"] {
            assert_eq!(Move::parse(bad), None, "{bad}");
        }
    }
}
