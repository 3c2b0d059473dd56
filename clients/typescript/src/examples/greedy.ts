// A complete bot (README.md): lay the highest cards I hold. Run: ARENA_TOKEN=... node dist/examples/greedy.js HOST:PORT
import { runBot, type Turn } from '../index';

const points = (action: string) => action.split(' ').reduce((sum, card) => sum + Number(card.slice(1)), 0);

function act(turn: Turn): string {
  return turn.legalActions.reduce((best, action) => (points(action) > points(best) ? action : best));
}

runBot(act, { servers: process.argv[2] ?? 'localhost:50051', token: process.env.ARENA_TOKEN ?? '' }).catch((error) => {
  console.error(String(error));
  process.exit(2);
});
