//! The starter bots: a uniformly random one that plays every game from the legal actions alone, and
//! a 5211 heuristic that samples the hidden plays (and plays any other game at random).

use std::sync::Mutex;

use crate::client::{Bot, Turn};
use crate::games::g5211::{self, Card, parse_cards, round_points, unseen_cards};
use crate::rng::Rng;

/// Plays a uniformly random legal action, in any game.
#[derive(Debug)]
pub struct RandomBot {
    rng: Mutex<Rng>,
}

impl RandomBot {
    /// A random bot; the same seed gives the same choices for the same requests.
    pub fn new(seed: Option<u64>) -> RandomBot {
        RandomBot { rng: Mutex::new(seed.map_or_else(Rng::from_entropy, Rng::new)) }
    }
}

impl Bot for RandomBot {
    fn act(&self, turn: &Turn) -> String {
        let index = self.rng.lock().unwrap_or_else(|p| p.into_inner()).below(turn.legal_actions.len());
        turn.legal_actions[index].clone()
    }
}

/// Cards each seat lays from the start of turn 1, 2 and 3 to the end of the round.
const LEFT_TO_LAY: [usize; 3] = [4, 2, 1];

/// 5211: for each legal play, samples what the other seats may still lay this round from the
/// cards this seat has not seen, scores the round by the rules, and lays the play with the best
/// expected points, less a small cost for spending high cards (they may score in a later round).
/// In a game it has no heuristic for, it plays a uniformly random legal action.
#[derive(Debug)]
pub struct HeuristicBot {
    fallback: RandomBot,
    rng: Mutex<Rng>,
    samples: usize,
    spend_cost: f64,
}

impl HeuristicBot {
    /// A heuristic bot with 24 samples per decision.
    pub fn new(seed: Option<u64>) -> HeuristicBot {
        HeuristicBot {
            fallback: RandomBot::new(seed.map(|s| s ^ 0x5eed)),
            rng: Mutex::new(seed.map_or_else(Rng::from_entropy, Rng::new)),
            samples: 24,
            spend_cost: 0.35,
        }
    }

    /// The best play's index in `legal`, for the seat whose 5211 observation this is.
    fn choose(&self, turn: &Turn, observation: &g5211::Game5211Observation) -> Option<usize> {
        let legal: Vec<Vec<Card>> = g5211::legal_plays(turn);
        let players = observation.num_players as usize;
        let me = observation.seat.unwrap_or(turn.seat) as usize;
        let turn_index = (observation.turn as usize).checked_sub(1).filter(|&t| t < 3)?;
        if legal.len() < 2 || me >= players {
            return None;
        }
        let laid: Vec<Vec<Card>> = (0..players)
            .map(|seat| observation.laid_cards.get(seat).map(|l| parse_cards(&l.cards)).unwrap_or_default())
            .collect();
        // Sample the others' remaining cards this round once, and judge every play on the same samples.
        let mut unseen = unseen_cards(observation);
        let per_seat = LEFT_TO_LAY[turn_index];
        let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
        let samples: Vec<Vec<Vec<Card>>> = (0..self.samples)
            .map(|_| {
                let wanted = (per_seat * (players - 1)).min(unseen.len());
                // A partial Fisher-Yates shuffle: the first `wanted` cards are a uniform sample.
                for i in 0..wanted {
                    let j = i + rng.below(unseen.len() - i);
                    unseen.swap(i, j);
                }
                let mut drawn = unseen[..wanted].chunks(per_seat);
                (0..players)
                    .map(|seat| {
                        let mut cards = laid[seat].clone();
                        if seat != me {
                            cards.extend_from_slice(drawn.next().unwrap_or_default());
                        }
                        cards
                    })
                    .collect()
            })
            .collect();
        drop(rng);
        let mut best = (0, f64::NEG_INFINITY);
        for (index, play) in legal.iter().enumerate() {
            let mut total = 0u32;
            for sample in &samples {
                let mut round = sample.clone();
                round[me].extend_from_slice(play);
                total += round_points(&round)[me];
            }
            let spent: u32 = play.iter().map(|c| u32::from(c.value)).sum();
            let value = f64::from(total) / samples.len() as f64 - self.spend_cost * f64::from(spent);
            if value > best.1 {
                best = (index, value);
            }
        }
        Some(best.0)
    }
}

impl Bot for HeuristicBot {
    fn act(&self, turn: &Turn) -> String {
        match g5211::observation(turn) {
            Ok(observation) => turn.legal_actions[self.choose(turn, observation).unwrap_or(0)].clone(),
            Err(_) => self.fallback.act(turn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{ActionRequest, Game5211Cards, Game5211Observation, Observation, observation::Game};

    fn turn(hand: &[&str], laid_by_other: &[&str], turn: u32, legal: &[&str]) -> Turn {
        let observation = Game5211Observation {
            seat: Some(0),
            num_players: 2,
            round: 1,
            rounds_per_deck: 11,
            turn,
            cards_to_lay: if turn == 1 { 2 } else { 1 },
            hand_cards: hand.iter().map(|s| s.to_string()).collect(),
            laid_cards: vec![
                Game5211Cards::default(),
                Game5211Cards { cards: laid_by_other.iter().map(|s| s.to_string()).collect() },
            ],
            ..Default::default()
        };
        Turn::from_request(
            ActionRequest {
                match_id: "m".into(),
                sequence: 1,
                observation: Some(Observation { game: Some(Game::Game5211(observation)) }),
                legal_actions: legal.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            None,
        )
    }

    #[test]
    fn random_bot_plays_only_legal_actions() {
        let bot = RandomBot::new(Some(1));
        let t = turn(&["B1", "G2"], &[], 2, &["B1", "G2"]);
        for _ in 0..50 {
            assert!(t.legal_actions.contains(&bot.act(&t)));
        }
    }

    #[test]
    fn heuristic_bot_joins_the_colour_that_can_win() {
        // The other seat laid two yellows; with one card to lay each in the last turn, a yellow 6
        // makes yellow 3 of 5 (below the limit of 5, and a clear majority): it should score.
        let bot = HeuristicBot::new(Some(3));
        let legal = ["B2", "G3", "O2", "V2", "Y6"];
        let t = turn(&legal, &["Y2", "Y3"], 3, &legal);
        assert_eq!(bot.act(&t), "Y6");
    }

    #[test]
    fn heuristic_bot_falls_back_to_a_legal_action_without_an_observation() {
        let bot = HeuristicBot::new(None);
        let t = Turn::from_request(
            ActionRequest { match_id: "m".into(), legal_actions: vec!["G1".into()], ..Default::default() },
            None,
        );
        assert_eq!(bot.act(&t), "G1");
    }
}
