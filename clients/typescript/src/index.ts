/** arena-bot for TypeScript: write a bot as one function; see README.md. */

export * from './bot';
export * from './bots';
export * from './proto';
