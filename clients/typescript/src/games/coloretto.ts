/**
 * Coloretto helpers: a turn's typed Coloretto observation and its legal actions, parsed.
 *
 *   import { coloretto } from 'arena-bot';
 *   const view = coloretto.observation(turn);    // ColorettoObservation: rows, collections, drawn...
 *   const actions = coloretto.legalMoves(turn);  // [{ kind: 'draw' }, { kind: 'take', row: 2 }, ...]
 */

import type { Turn } from '../bot';

export type { ColorettoObservation__Output as ColorettoObservation } from '../generated/arena/v1/ColorettoObservation';
export type { ColorettoRoundResult__Output as ColorettoRoundResult } from '../generated/arena/v1/ColorettoRoundResult';
import type { ColorettoObservation__Output as ColorettoObservation } from '../generated/arena/v1/ColorettoObservation';

/** The game's registry name. */
export const GAME = 'coloretto';

/** One Coloretto decision: draw a card, place the drawn card in row `row`, or take row `row` (0-based). */
export type Move = { kind: 'draw' } | { kind: 'place' | 'take'; row: number };

/** The seat's Coloretto observation; throws if the turn is of another game (or carries no observation). */
export function observation(turn: Turn): ColorettoObservation {
  const view = turn.observation?.gameColoretto;
  if (turn.game !== GAME || !view) {
    throw new Error(`match ${turn.matchId} plays ${JSON.stringify(turn.game)}, not coloretto`);
  }
  return view;
}

/** An action in the contract's notation ("draw", "place r", "take r"), parsed; throws on anything else. */
export function parseMove(text: string): Move {
  const [kind, row, ...rest] = text.trim().split(/\s+/);
  if (kind === 'draw' && row === undefined) return { kind };
  if ((kind === 'place' || kind === 'take') && row !== undefined && /^\d$/.test(row) && rest.length === 0) {
    return { kind, row: Number(row) };
  }
  throw new Error(`not a Coloretto action: ${JSON.stringify(text)}`);
}

/** The legal actions, parsed. */
export function legalMoves(turn: Turn): Move[] {
  return turn.legalActions.map(parseMove);
}
