/**
 * Azul helpers: a turn's typed Azul observation and its legal actions, parsed.
 *
 *   import { azul } from 'arena-bot';
 *   const view = azul.observation(turn);       // AzulObservation: wallSide, phase, factories, boards...
 *   const actions = azul.legalActions(turn);   // takes "3 R 4", "C K F"; grey-wall tilings "2:4 5:1"
 */

import type { Turn } from '../bot';

export type { AzulObservation__Output as AzulObservation } from '../generated/arena/v1/AzulObservation';
export type { AzulRoundResult__Output as AzulRoundResult } from '../generated/arena/v1/AzulRoundResult';
import type { AzulObservation__Output as AzulObservation } from '../generated/arena/v1/AzulObservation';

/** The game's registry name. */
export const GAME = 'azul';

/** A take's source for the centre, and a take's target (or a tiling's column) for the floor. */
export const CENTRE = 'C';
export const FLOOR = 'F';

/** A tile colour: blue, yellow, red, black, white. */
export type Colour = 'B' | 'Y' | 'R' | 'K' | 'W';

/**
 * One Azul action: in the factory offer, take every `colour` tile from `source` (a factory index or
 * CENTRE) to `target` (a pattern line 1-5 or FLOOR); on the grey wall's tiling, a column (1-5, or
 * FLOOR when none is legal) for each full line, top to bottom.
 */
export type Action =
  | { kind: 'take'; source: number | typeof CENTRE; colour: Colour; target: number | typeof FLOOR }
  | { kind: 'tiling'; placements: { line: number; column: number | typeof FLOOR }[] };

/** The seat's Azul observation; throws if the turn is of another game (or carries no observation). */
export function observation(turn: Turn): AzulObservation {
  const view = turn.observation?.gameAzul;
  if (turn.game !== GAME || !view) {
    throw new Error(`match ${turn.matchId} plays ${JSON.stringify(turn.game)}, not azul`);
  }
  return view;
}

/** An action in the contract's notation ("3 R 4", "C K F", "2:4 5:1"), parsed; throws on anything else. */
export function parseAction(text: string): Action {
  const words = text.trim().split(/\s+/);
  if (text.includes(':')) {
    const placements = words.map((word) => /^([1-5]):([1-5F])$/.exec(word));
    const lines = placements.map((m) => (m ? Number(m[1]) : 0));
    if (words.length <= 5 && placements.every((m) => m) && lines.every((line, i) => i === 0 || line > lines[i - 1])) {
      return {
        kind: 'tiling',
        placements: placements.map((m) => ({ line: Number(m![1]), column: m![2] === FLOOR ? FLOOR : Number(m![2]) })),
      };
    }
  } else if (words.length === 3 && /^[0-8C]$/.test(words[0]) && /^[BYRKW]$/.test(words[1]) && /^[1-5F]$/.test(words[2])) {
    const [source, colour, target] = words;
    return {
      kind: 'take',
      source: source === CENTRE ? CENTRE : Number(source),
      colour: colour as Colour,
      target: target === FLOOR ? FLOOR : Number(target),
    };
  }
  throw new Error(`not an Azul action: ${JSON.stringify(text)}`);
}

/** An action in the contract's notation. */
export function formatAction(action: Action): string {
  if (action.kind === 'take') return `${action.source} ${action.colour} ${action.target}`;
  return action.placements.map(({ line, column }) => `${line}:${column}`).join(' ');
}

/** The legal actions, parsed. */
export function legalActions(turn: Turn): Action[] {
  return turn.legalActions.map(parseAction);
}
