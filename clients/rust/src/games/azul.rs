//! Azul as a bot needs it: the turn's typed observation and its legal actions, parsed.
//!
//! ```no_run
//! # fn act(turn: &arena_bot::Turn) -> Result<(), arena_bot::games::WrongGame> {
//! use arena_bot::games::azul;
//! let view = azul::observation(turn)?; // &AzulObservation: wall side, phase, factories, boards...
//! let actions = azul::legal_actions(turn); // takes "3 R 4", "C K F"; grey-wall tilings "2:4 5:1"
//! # Ok(())
//! # }
//! ```

use crate::client::Turn;
use crate::games::WrongGame;
use crate::proto::observation::Game;
pub use crate::proto::{AzulObservation, AzulRoundResult};

/// The game's registry name.
pub const GAME: &str = "azul";

/// Where a take's tiles come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A factory, by index.
    Factory(u8),
    /// The centre (`C`).
    Centre,
}

/// One Azul action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The factory offer: every tile of `colour` (one of `B Y R K W`) from `source` to pattern line
    /// `target` (1-5), or to the floor line (`None`, written `F`).
    Take {
        /// A factory or the centre.
        source: Source,
        /// The colour's letter.
        colour: char,
        /// A pattern line 1-5, or `None` for the floor.
        target: Option<u8>,
    },
    /// A grey-wall tiling: `(line, column)` per full line, top to bottom, 1-based; column `None` (`F`)
    /// for a line with no legal column.
    Tiling(Vec<(u8, Option<u8>)>),
}

fn digit(text: &str, low: u8, high: u8) -> Option<u8> {
    let n = text.parse::<u8>().ok().filter(|n| (low..=high).contains(n))?;
    (text.len() == 1).then_some(n)
}

fn or_floor(text: &str) -> Option<Option<u8>> {
    if text == "F" { Some(None) } else { digit(text, 1, 5).map(Some) }
}

impl Action {
    /// Reads an action in the contract's notation: `3 R 4`, `C K F`, or a grey-wall tiling `2:4 5:1`.
    pub fn parse(text: &str) -> Option<Action> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if text.contains(':') {
            if words.is_empty() || words.len() > 5 {
                return None;
            }
            let mut placements: Vec<(u8, Option<u8>)> = Vec::new();
            for word in words {
                let (line, column) = word.split_once(':')?;
                let line = digit(line, 1, 5).filter(|&l| placements.last().is_none_or(|&(last, _)| l > last))?;
                placements.push((line, or_floor(column)?));
            }
            return Some(Action::Tiling(placements));
        }
        let [source, colour, target] = words[..] else { return None };
        let source = if source == "C" { Source::Centre } else { Source::Factory(digit(source, 0, 8)?) };
        let colour = Some(colour).filter(|c| c.len() == 1 && "BYRKW".contains(c))?.chars().next()?;
        Some(Action::Take { source, colour, target: or_floor(target)? })
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let floor = |n: &Option<u8>| n.map_or("F".to_string(), |n| n.to_string());
        match self {
            Action::Take { source, colour, target } => {
                let source = match source {
                    Source::Factory(n) => n.to_string(),
                    Source::Centre => "C".to_string(),
                };
                write!(f, "{source} {colour} {}", floor(target))
            }
            Action::Tiling(placements) => {
                let parts: Vec<String> =
                    placements.iter().map(|(line, column)| format!("{line}:{}", floor(column))).collect();
                write!(f, "{}", parts.join(" "))
            }
        }
    }
}

/// The seat's Azul observation; an error if the turn is of another game (or carries no observation).
pub fn observation(turn: &Turn) -> Result<&AzulObservation, WrongGame> {
    match turn.observation.as_ref().and_then(|o| o.game.as_ref()) {
        Some(Game::GameAzul(view)) if turn.game == GAME || turn.game.is_empty() => Ok(view),
        _ => Err(WrongGame::new(turn, GAME)),
    }
}

/// The legal actions, parsed (any that do not parse are skipped).
pub fn legal_actions(turn: &Turn) -> Vec<Action> {
    turn.legal_actions.iter().filter_map(|action| Action::parse(action)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{coloretto, turn_of_response};
    use crate::proto::azul_observation::{Phase, WallSide};

    /// A ConnectResponse the server sent: the ActionRequest of seat 0 of a 3-player grey-wall match in
    /// round 2's tiling (its observation arena.catalogue.observation_to_proto of the engine's).
    const GREY_TILING: &str = "1a97050a016d10013adb031ad80308001003180220642802300242030001024a004a004a004a004a004a004a0060026a7012030a015712030a015212090a01570a01570a015712090a014b0a014b0a014b12060a014b0a014b1a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201592201592201592201596a6812030a015212030a015712060a01570a015712030a014b12060a01570a01571a0b0a000a000a000a01590a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201522201422201422201426a7112030a014b120012030a014212090a014b0a014b0a014b12060a01420a01421a0a0a000a000a000a000a001a0b0a01420a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a0022015322015922015222015222015222015222015272050c070809087a01427a01597a01597a01597a01597a01597a01597a01597a01527a01527a01527a01527a014b7a01577a01577a015782012e08011a001a03313a341a03323a31220022080a0608011004180122080a060802100118012a03060e0132030000004207313a3120333a324207313a3120333a334207313a3120333a344207313a3120333a354207313a3220333a314207313a3220333a334207313a3220333a344207313a3220333a354207313a3320333a314207313a3320333a324207313a3320333a344207313a3320333a354207313a3420333a314207313a3420333a324207313a3420333a334207313a3420333a354207313a3520333a314207313a3520333a324207313a3520333a334207313a3520333a34";

    #[test]
    fn a_grey_wall_tiling_turn_has_its_observation_and_its_tilings() {
        let turn = turn_of_response(GREY_TILING, GAME);
        let view = observation(&turn).unwrap();
        assert_eq!((view.wall_side(), view.phase(), view.boards.len()), (WallSide::Grey, Phase::Tiling, 3));
        let actions = legal_actions(&turn);
        assert_eq!(actions.len(), turn.legal_actions.len());
        assert_eq!(actions[0], Action::Tiling(vec![(1, Some(1)), (3, Some(2))]));
        assert_eq!(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>(), turn.legal_actions);
        assert_eq!(coloretto::observation(&turn).unwrap_err().to_string(), r#"match m plays "azul", not coloretto"#);
    }

    #[test]
    fn takes_parse_and_print() {
        let take = Action::Take { source: Source::Centre, colour: 'K', target: None };
        assert_eq!(Action::parse("C K F"), Some(take));
        assert_eq!(
            Action::parse("3 R 4"),
            Some(Action::Take { source: Source::Factory(3), colour: 'R', target: Some(4) })
        );
        for text in ["C K F", "0 W 1", "2:4 5:F"] {
            assert_eq!(Action::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", "3 R", "9 R 4", "3 G 4", "3 R 6", "C K F F", "2:6", "3:1 2:4", "2:4:1", "take 1"] {
            assert_eq!(Action::parse(bad), None, "{bad}");
        }
    }
}
