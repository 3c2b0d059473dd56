//! The game 5211 as a bot needs it: the turn's typed observation, cards in notation, the deck, and the
//! round-scoring rules (see the arena's rules page). Cards are `(colour, value)`, colour 0-4 for B G O V Y.
//!
//! ```no_run
//! # fn act(turn: &arena_bot::Turn) -> Result<(), arena_bot::games::WrongGame> {
//! use arena_bot::games::g5211;
//! let view = g5211::observation(turn)?; // &Game5211Observation: hand_cards, laid_cards, points...
//! let plays = g5211::legal_plays(turn); // each legal play's cards
//! # Ok(())
//! # }
//! ```

use crate::client::Turn;
use crate::games::WrongGame;
use crate::proto::observation::Game;
pub use crate::proto::{Game5211Observation, Game5211RoundResult};

/// The game's registry name.
pub const GAME: &str = "5211";

/// The seat's 5211 observation; an error if the turn is of another game (or carries no observation).
pub fn observation(turn: &Turn) -> Result<&Game5211Observation, WrongGame> {
    match turn.observation.as_ref().and_then(|o| o.game.as_ref()) {
        Some(Game::Game5211(view)) if turn.game == GAME || turn.game.is_empty() => Ok(view),
        _ => Err(WrongGame::new(turn, GAME)),
    }
}

/// The legal plays, each the cards it lays (cards that do not parse are skipped).
pub fn legal_plays(turn: &Turn) -> Vec<Vec<Card>> {
    turn.legal_actions.iter().map(|action| parse_cards([action])).collect()
}

/// The colour letters in colour order.
pub const COLOURS: [char; 5] = ['B', 'G', 'O', 'V', 'Y'];
/// Copies of each value (1 to 6) in every colour: 20 cards a colour, 100 in all.
pub const COPIES_PER_VALUE: [u8; 6] = [5, 6, 5, 2, 1, 1];

/// One card: a colour (0-4, B G O V Y) and a value (1-6; 1 is the Kododo).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Card {
    /// 0-4 for B, G, O, V, Y.
    pub colour: u8,
    /// 1-6.
    pub value: u8,
}

impl Card {
    /// Reads a card in notation, e.g. `"G3"`.
    pub fn parse(text: &str) -> Option<Card> {
        let mut chars = text.chars();
        let letter = chars.next()?;
        let colour = COLOURS.iter().position(|&c| c == letter)? as u8;
        let value = chars.next()?.to_digit(10)? as u8;
        ((1..=6).contains(&value) && chars.next().is_none()).then_some(Card { colour, value })
    }

    /// The card's index in a 30-slot table (colour × value).
    pub fn index(self) -> usize {
        self.colour as usize * 6 + self.value as usize - 1
    }
}

impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", COLOURS[self.colour as usize], self.value)
    }
}

/// Reads an action or a card list in notation (`"G3 Y1"`); cards that do not parse are skipped.
pub fn parse_cards<S: AsRef<str>>(texts: impl IntoIterator<Item = S>) -> Vec<Card> {
    texts.into_iter().flat_map(|t| t.as_ref().split_whitespace().filter_map(Card::parse).collect::<Vec<_>>()).collect()
}

/// The points each seat scores in a round where each seat laid `laid[seat]`: the Kododo rule
/// (exactly P + 2 value-1 cards: only they score), else the colour majority below the limit P + 3.
pub fn round_points(laid: &[Vec<Card>]) -> Vec<u32> {
    let players = laid.len();
    let mut counts = [0usize; 5];
    let mut kododos = 0;
    for card in laid.iter().flatten() {
        counts[card.colour as usize] += 1;
        kododos += usize::from(card.value == 1);
    }
    let scores = |keep: &dyn Fn(&Card) -> bool| -> Vec<u32> {
        laid.iter().map(|cards| cards.iter().filter(|c| keep(c)).map(|c| u32::from(c.value)).sum()).collect()
    };
    if kododos == players + 2 {
        return scores(&|c| c.value == 1);
    }
    match winning_colour(&counts, players + 3) {
        Some(colour) => scores(&|c| c.colour as usize == colour),
        None => vec![0; players],
    }
}

/// The colour that wins the majority: the highest count below `limit` that no other colour shares.
pub fn winning_colour(counts: &[usize; 5], limit: usize) -> Option<usize> {
    let mut sorted = *counts;
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted
        .into_iter()
        .find(|&n| n > 0 && n < limit && counts.iter().filter(|&&m| m == n).count() == 1)
        .and_then(|n| counts.iter().position(|&m| m == n))
}

/// The cards of the current deck this seat has not seen: other hands, the draw pile, removed cards.
pub fn unseen_cards(observation: &Game5211Observation) -> Vec<Card> {
    let mut left = [0i32; 30];
    for colour in 0..5 {
        for value in 1..=6u8 {
            left[Card { colour, value }.index()] = i32::from(COPIES_PER_VALUE[value as usize - 1]);
        }
    }
    let mut seen = parse_cards(&observation.hand_cards);
    seen.extend(observation.laid_cards.iter().flat_map(|l| parse_cards(&l.cards)));
    // Only this deck's rounds count: the longer game reshuffles all 100 cards for each new deck.
    let this_deck = (observation.round.max(1) - 1) % observation.rounds_per_deck.max(1);
    let history = &observation.round_results;
    for result in &history[history.len().saturating_sub(this_deck as usize)..] {
        seen.extend(result.laid_cards.iter().flat_map(|l| parse_cards(&l.cards)));
    }
    for card in seen {
        left[card.index()] -= 1;
    }
    let mut unseen = Vec::new();
    for colour in 0..5 {
        for value in 1..=6u8 {
            let card = Card { colour, value };
            unseen.extend(std::iter::repeat_n(card, left[card.index()].max(0) as usize));
        }
    }
    unseen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        parse_cards([text])
    }

    #[test]
    fn cards_parse_and_print() {
        assert_eq!(Card::parse("G3"), Some(Card { colour: 1, value: 3 }));
        assert_eq!(Card::parse("Y6").unwrap().to_string(), "Y6");
        for bad in ["Z9", "G7", "G0", "G", "", "G33", "g3"] {
            assert_eq!(Card::parse(bad), None, "{bad}");
        }
        assert_eq!(cards("B1 O2").len(), 2);
    }

    #[test]
    fn the_majority_colour_below_the_limit_scores() {
        // Two players: limit 5. Green 3, blue 2: green wins.
        let laid = vec![cards("G3 G4 B1 O2"), cards("G2 B5 V2 Y2")];
        assert_eq!(round_points(&laid), vec![7, 2]);
    }

    #[test]
    fn a_colour_at_the_limit_is_dead_and_ties_are_removed() {
        // Green 5 is dead at the limit of 5; blue, orange and violet tie at 1: nobody scores.
        let laid = vec![cards("G3 G4 G2 B2"), cards("G5 G6 O2 V3")];
        assert_eq!(winning_colour(&[1, 5, 1, 1, 0], 5), None);
        assert_eq!(round_points(&laid), vec![0, 0]);
        // Green 2 and blue 2 tie; orange 1 alone wins.
        assert_eq!(winning_colour(&[2, 2, 1, 0, 0], 5), Some(2));
    }

    #[test]
    fn exactly_p_plus_two_kododos_score_alone() {
        let laid = vec![cards("G1 B1 G6 G5"), cards("O1 V1 G4 G3")];
        assert_eq!(round_points(&laid), vec![2, 2]);
    }

    #[test]
    fn unseen_cards_exclude_hand_and_laid_cards_of_this_deck() {
        let observation = Game5211Observation {
            num_players: 2,
            round: 1,
            rounds_per_deck: 11,
            hand_cards: vec!["G6".into(), "B1".into()],
            laid_cards: vec![Default::default(), crate::proto::Game5211Cards { cards: vec!["Y5".into()] }],
            ..Default::default()
        };
        let unseen = unseen_cards(&observation);
        assert_eq!(unseen.len(), 97);
        assert!(!unseen.contains(&Card::parse("G6").unwrap()));
        assert!(!unseen.contains(&Card::parse("Y5").unwrap()));
        assert_eq!(unseen.iter().filter(|c| **c == Card::parse("B1").unwrap()).count(), 4);
    }
}
