/**
 * Starter bots: a uniformly random one that plays every game from the legal actions alone, and a
 * heuristic one that plays 5211 far better than random and any other game at random.
 *
 * The 5211 heuristic ("colour fit") scores each legal play by the points its seat's cards of this round
 * are expected to score once the play is laid: each colour gets a weight, the chance that it wins
 * the round, from how far it leads the other live colours and how likely the cards still to come
 * push it to the limit; high values in a likely winner score most. Spending a card costs a little
 * (it could score in a later round), except in the deck's last round, when unplayed cards are lost.
 * Over many games against random bots it wins about 98% of 2-player and 65% of 4-player matches
 * (see the README for the figures measured against the arena).
 */

import type { Act, Turn } from './bot';
import * as g5211 from './games/g5211';
import { parseCard, type Game5211Observation } from './games/g5211';

export const COLOURS = ['B', 'G', 'O', 'V', 'Y'] as const;
/** Cards each seat lays from the start of turn 1, 2 or 3 to the end of the round. */
const LEFT_TO_LAY = [0, 4, 2, 1];
/** How much a card in hand is worth, per point of value, for a later round. */
const SPEND_COST = 0.3;

/** The random bot: a uniformly random legal action, in any game. `random` is injectable for tests. */
export function randomBot(random: () => number = Math.random): Act {
  return (turn: Turn) => {
    if (turn.legalActions.length === 0) throw new Error(`no legal actions listed: ${turn.actionHint}`);
    return turn.legalActions[Math.floor(random() * turn.legalActions.length)];
  };
}

/**
 * The heuristic bot: in 5211, the legal play with the best colour-fit score; in a game it has no
 * heuristic for (or a 5211 turn without an observation), the random bot's choice.
 */
export function heuristicBot(random: () => number = Math.random): Act {
  const fallback = randomBot(random);
  return (turn: Turn) => {
    if (turn.legalActions.length === 0) throw new Error(`no legal actions listed: ${turn.actionHint}`);
    if (turn.game !== g5211.GAME || !turn.observation?.game_5211) return fallback(turn);
    const observation = g5211.observation(turn);
    let best = turn.legalActions[0];
    let bestScore = -Infinity;
    for (const action of turn.legalActions) {
      const score = scorePlay(observation, action.split(' '));
      if (score > bestScore) {
        best = action;
        bestScore = score;
      }
    }
    return best;
  };
}

/** The colour-fit score of laying `cards` now (higher is better). */
export function scorePlay(observation: Game5211Observation, cards: string[]): number {
  const players = observation.numPlayers;
  const limit = players + 3;
  const me = observation.seat ?? 0;
  const counts = new Map<string, number>(COLOURS.map((c) => [c, 0]));
  for (const laid of observation.laidCards) for (const card of laid.cards) bump(counts, card[0]);
  for (const card of cards) bump(counts, card[0]);
  // Cards the other seats still lay this round, from this turn on; their colours are unknown.
  const unknown = (players - 1) * (LEFT_TO_LAY[observation.turn] ?? 0);
  const weight = new Map<string, number>();
  for (const colour of COLOURS) {
    const count = counts.get(colour) ?? 0;
    if (count >= limit) {
      weight.set(colour, 0);
      continue;
    }
    let rival = 0;
    for (const other of COLOURS) {
      const n = counts.get(other) ?? 0;
      if (other !== colour && n < limit) rival = Math.max(rival, n);
    }
    const alive = binomialBelow(unknown, 0.2, limit - count);
    weight.set(colour, alive / (1 + Math.exp(-(count - rival))));
  }
  const mine = [...(observation.laidCards[me]?.cards ?? []), ...cards];
  let score = 0;
  for (const card of mine) {
    const [colour, value] = parseCard(card);
    score += value * (weight.get(colour) ?? 0);
  }
  const lastRound = observation.drawPileSize === 0;
  if (!lastRound) for (const card of cards) score -= SPEND_COST * parseCard(card)[1];
  return score;
}

function bump(counts: Map<string, number>, colour: string): void {
  counts.set(colour, (counts.get(colour) ?? 0) + 1);
}

/** P(X < k) for X ~ Binomial(n, p). */
export function binomialBelow(n: number, p: number, k: number): number {
  let total = 0;
  let term = (1 - p) ** n; // P(X = 0)
  for (let i = 0; i < k && i <= n; i++) {
    total += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return Math.min(1, total);
}

/** The starter bots by the name the command line knows them by. */
export const STRATEGIES: Record<string, () => Act> = {
  random: () => randomBot(),
  heuristic: () => heuristicBot(),
};
