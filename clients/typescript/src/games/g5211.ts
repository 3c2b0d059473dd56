/**
 * 5211 helpers: a turn's typed 5211 observation and its legal plays as card lists.
 *
 *   import { g5211 } from 'arena-bot';
 *   const view = g5211.observation(turn);   // Game5211Observation: handCards, laidCards, points...
 *   const plays = g5211.legalPlays(turn);   // [['G3', 'Y1'], ...]
 */

import type { Turn } from '../bot';

export type { Game5211Observation__Output as Game5211Observation } from '../generated/arena/v1/Game5211Observation';
export type { Game5211RoundResult__Output as Game5211RoundResult } from '../generated/arena/v1/Game5211RoundResult';
import type { Game5211Observation__Output as Game5211Observation } from '../generated/arena/v1/Game5211Observation';

/** The game's registry name. */
export const GAME = '5211';

/** The seat's 5211 observation; throws if the turn is of another game (or carries no observation). */
export function observation(turn: Turn): Game5211Observation {
  const view = turn.observation?.game_5211;
  if (turn.game !== GAME || !view) throw new Error(`match ${turn.matchId} plays ${JSON.stringify(turn.game)}, not 5211`);
  return view;
}

/** The legal plays, each the cards it lays (e.g. "G3 Y1" is ['G3', 'Y1']). */
export function legalPlays(turn: Turn): string[][] {
  return turn.legalActions.map((action) => action.split(' ').filter((card) => card !== ''));
}

/** A card's colour letter and value, e.g. "G3" → ["G", 3]. */
export function parseCard(card: string): [string, number] {
  return [card[0], Number(card.slice(1))];
}
