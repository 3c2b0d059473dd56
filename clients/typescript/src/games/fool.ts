/**
 * FOOL! helpers: a turn's typed FOOL! observation and its legal actions, parsed.
 *
 *   import { fool } from 'arena-bot';
 *   const view = fool.observation(turn);     // FoolObservation: hand, handSizes, trick, totals...
 *   const cards = fool.legalCards(turn);     // [{ colour: 'R', value: 2 }, { colour: 'W', value: 1 }, ...]
 */

import type { Turn } from '../bot';

export type { FoolObservation__Output as FoolObservation } from '../generated/arena/v1/FoolObservation';
export type { FoolRoundResult__Output as FoolRoundResult } from '../generated/arena/v1/FoolRoundResult';
import type { FoolObservation__Output as FoolObservation } from '../generated/arena/v1/FoolObservation';

/** The game's registry name. */
export const GAME = 'fool';

/** A card's colour: green, red, yellow, blue, or W for the wild W1. */
export type Colour = 'G' | 'R' | 'Y' | 'B' | 'W';

/** One FOOL! card, e.g. G27 or the wild W1. */
export interface Card {
  colour: Colour;
  value: number;
}

const HIGHEST: Record<Colour, number> = { G: 27, R: 23, Y: 21, B: 15, W: 1 };

/** The seat's FOOL! observation; throws if the turn is of another game (or carries no observation). */
export function observation(turn: Turn): FoolObservation {
  const view = turn.observation?.gameFool;
  if (turn.game !== GAME || !view) {
    throw new Error(`match ${turn.matchId} plays ${JSON.stringify(turn.game)}, not fool`);
  }
  return view;
}

/** A card token (G2-G27, R2-R23, Y2-Y21, B2-B15, W1), parsed; throws on anything else. */
export function parseCard(text: string): Card {
  const match = /^([GRYBW])([1-9]\d?)$/.exec(text);
  if (match) {
    const colour = match[1] as Colour;
    const value = Number(match[2]);
    if (value <= HIGHEST[colour] && (value >= 2 || colour === 'W')) return { colour, value };
  }
  throw new Error(`not a FOOL! card: ${JSON.stringify(text)}`);
}

/** A card's token. */
export function formatCard(card: Card): string {
  return `${card.colour}${card.value}`;
}

/** The legal actions, parsed: cards of the seat's own hand. */
export function legalCards(turn: Turn): Card[] {
  return turn.legalActions.map(parseCard);
}
