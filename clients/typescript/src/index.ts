/** arena-bot for TypeScript: write a bot as one function; see README.md. */

export * from './bot';
export * from './bots';
export * from './proto';
// Typed helpers per game (the core above names no game): one file per game in src/games/.
export * as g5211 from './games/g5211';
export * as coloretto from './games/coloretto';
export * as azul from './games/azul';
export * as fool from './games/fool';
