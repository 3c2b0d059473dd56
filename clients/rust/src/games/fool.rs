//! FOOL! as a bot needs it: the turn's typed observation and its legal actions, parsed.
//!
//! ```no_run
//! # fn act(turn: &arena_bot::Turn) -> Result<(), arena_bot::games::WrongGame> {
//! use arena_bot::games::fool;
//! let view = fool::observation(turn)?; // &FoolObservation: hand, hand sizes, trick, totals...
//! let cards = fool::legal_cards(turn); // [Card { colour: 'R', value: 2 }, Card { colour: 'W', value: 1 }, ...]
//! # Ok(())
//! # }
//! ```

use crate::client::Turn;
use crate::games::WrongGame;
use crate::proto::observation::Game;
pub use crate::proto::{FoolObservation, FoolRoundResult};

/// The game's registry name.
pub const GAME: &str = "fool";

/// One FOOL! card: `colour` one of `G R Y B`, or `W` for the wild W1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Card {
    /// The colour's letter.
    pub colour: char,
    /// The face value.
    pub value: u8,
}

impl Card {
    /// Reads a card token: G2-G27, R2-R23, Y2-Y21, B2-B15 or the wild W1.
    pub fn parse(text: &str) -> Option<Card> {
        let mut chars = text.chars();
        let colour = chars.next()?;
        let digits = chars.as_str();
        let (low, high) = match colour {
            'G' => (2, 27),
            'R' => (2, 23),
            'Y' => (2, 21),
            'B' => (2, 15),
            'W' => (1, 1),
            _ => return None,
        };
        let value = digits.parse::<u8>().ok().filter(|v| (low..=high).contains(v) && v.to_string() == digits)?;
        Some(Card { colour, value })
    }

    /// Whether this is the wild W1.
    pub fn is_wild(&self) -> bool {
        self.colour == 'W'
    }
}

impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.colour, self.value)
    }
}

/// The seat's FOOL! observation; an error if the turn is of another game (or carries no observation).
pub fn observation(turn: &Turn) -> Result<&FoolObservation, WrongGame> {
    match turn.observation.as_ref().and_then(|o| o.game.as_ref()) {
        Some(Game::GameFool(view)) if turn.game == GAME || turn.game.is_empty() => Ok(view),
        _ => Err(WrongGame::new(turn, GAME)),
    }
}

/// The legal actions, parsed: cards of the seat's own hand (any that do not parse are skipped).
pub fn legal_cards(turn: &Turn) -> Vec<Card> {
    turn.legal_actions.iter().filter_map(|action| Card::parse(action)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{azul, turn_of_response};

    /// A ConnectResponse the server sent: the ActionRequest of seat 7 of an 8-player match in a trick of
    /// round 1 (its observation arena.catalogue.observation_to_proto of the engine's).
    const TRICK: &str = "1aa1040a016d100118073a810422fe03080710081a0247321a0247331a0247341a0247351a0247361a0247371a0247381a0247391a034731301a034731311a034731321a034731331a034731341a034731351a034731361a034731371a034731381a034731391a034732301a034732311a034732321a034732331a034732341a034732351a034732361a034732371a0252321a0252331a0252341a0252351a0252361a0252371a0252381a0252391a035231301a035231311a035231321a035231331a035231341a035231351a035231361a035231371a035231381a035231391a035232301a035232311a035232321a035232331a0259321a0259331a0259341a0259351a0259361a0259371a0259381a0259391a035931301a035931311a035931321a035931331a035931341a035931351a035931361a035931371a035931381a035931391a035932301a035932311a0242321a0242331a0242341a0242351a0242361a0242371a0242381a0242391a034231301a034231311a034231321a034231331a034231341a034231351a0257311a0257311a0257311a0257311a0257311a025731200b28023005380140054a0247394a034732354a0252324a0252384a035231304a035232324a0259334a0259344a0242384a0257314a02573152080b0b0b0b0b0b0a0b58066a0708061203523137700278079a01080000000000000000a20108000000000000000042025232420252384203523130420352323242025731";

    #[test]
    fn a_fool_turn_has_its_observation_and_its_cards() {
        let turn = turn_of_response(TRICK, GAME);
        let view = observation(&turn).unwrap();
        assert_eq!((view.num_players, view.seat), (8, Some(7)));
        assert!(!view.trick.is_empty() && view.hand.contains(&"R22".to_string()));
        let cards = legal_cards(&turn);
        assert_eq!(turn.legal_actions, ["R2", "R8", "R10", "R22", "W1"]);
        assert_eq!(cards.iter().map(|c| c.to_string()).collect::<Vec<_>>(), turn.legal_actions);
        assert!(cards[4].is_wild() && !cards[0].is_wild());
        assert_eq!(azul::observation(&turn).unwrap_err().to_string(), r#"match m plays "fool", not azul"#);
    }

    #[test]
    fn other_tokens_are_not_cards() {
        for bad in ["", "G", "G1", "G28", "B16", "W2", "R02", "X5", "g5", "R 5"] {
            assert_eq!(Card::parse(bad), None, "{bad}");
        }
    }
}
