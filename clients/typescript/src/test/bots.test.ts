/** The starter bots: the random one stays legal, the heuristic plays what the rules reward. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomialBelow, heuristicBot, randomBot, scorePlay } from '../bots';
import type { Turn } from '../bot';
import type { Game5211Observation } from '../games/g5211';

function observation(overrides: Partial<Game5211Observation>): Game5211Observation {
  return {
    seat: 0,
    numPlayers: 2,
    longGame: false,
    deckNumber: 1,
    round: 1,
    roundsPerDeck: 11,
    turn: 1,
    cardsToLay: 2,
    handCards: [],
    handSizes: [5, 5],
    laidCards: [{ cards: [] }, { cards: [] }],
    roundResults: [],
    points: [0, 0],
    scorePileCards: [0, 0],
    drawPileSize: 70,
    removedCount: 10,
    finished: false,
    ...overrides,
  };
}

function turn(obs: Game5211Observation, legalActions: string[]): Turn {
  return {
    matchId: 'm',
    sequence: 1,
    seat: obs.seat ?? 0,
    game: '5211',
    observation: { game_5211: obs, game: 'game_5211' },
    legalActions,
    actionHint: '',
    match: undefined,
    request: undefined as never,
    signal: new AbortController().signal,
    timeLeft: () => 1,
    freeTimeLeft: () => 1,
  };
}

test('binomialBelow is a cumulative distribution', () => {
  assert.equal(binomialBelow(0, 0.2, 1), 1);
  assert.equal(binomialBelow(5, 0.2, 0), 0);
  assert.ok(Math.abs(binomialBelow(1, 0.2, 1) - 0.8) < 1e-12);
  assert.ok(Math.abs(binomialBelow(2, 0.5, 2) - 0.75) < 1e-12);
  assert.ok(Math.abs(binomialBelow(10, 0.2, 11) - 1) < 1e-12);
});

test('the random bot only plays legal actions', () => {
  const legal = ['B1 G2', 'G2 Y6', 'B1 Y6'];
  const act = randomBot();
  for (let i = 0; i < 50; i++) assert.ok(legal.includes(act(turn(observation({}), legal)) as string));
});

test('the heuristic joins the colour that leads, with its highest card', () => {
  // Turn 3 of a 2-player round: green leads 3 to 2; I laid G2 O2 and hold G6 and O5.
  const obs = observation({
    turn: 3,
    cardsToLay: 1,
    handCards: ['G6', 'O5', 'V1'],
    laidCards: [{ cards: ['G2', 'O2', 'G3'] }, { cards: ['G1', 'O3', 'B2'] }],
  });
  assert.equal(heuristicBot()(turn(obs, ['G6', 'O5', 'V1'])), 'G6');
});

test('the heuristic does not kill its own colour at the limit', () => {
  // Green has 4 of the 5 that kill it in a 2-player round, and 3 of them are mine.
  const obs = observation({
    turn: 3,
    cardsToLay: 1,
    handCards: ['G6', 'O5'],
    laidCards: [{ cards: ['G2', 'G3', 'G4'] }, { cards: ['G1', 'O2', 'O3'] }],
  });
  assert.ok(scorePlay(obs, ['G6']) < scorePlay(obs, ['O5']));
  assert.equal(heuristicBot()(turn(obs, ['G6', 'O5'])), 'O5');
});

test('the heuristic kills a colour that would score for the others', () => {
  // Green (the opponent's) leads with 4; a fifth green kills it and lets my orange win.
  const obs = observation({
    turn: 3,
    cardsToLay: 1,
    handCards: ['G6', 'B5'],
    laidCards: [{ cards: ['G2', 'O2', 'O3'] }, { cards: ['G1', 'G3', 'G4'] }],
  });
  assert.equal(heuristicBot()(turn(obs, ['B5', 'G6'])), 'G6');
});

test('the heuristic spends its low card in a dead colour, unless the deck ends', () => {
  // Yellow has reached the limit: whatever yellow I lay scores nothing.
  const early = observation({
    turn: 3,
    cardsToLay: 1,
    handCards: ['Y2', 'Y6'],
    laidCards: [{ cards: ['Y1', 'Y3', 'B1'] }, { cards: ['Y4', 'Y5', 'Y2'] }],
  });
  assert.equal(heuristicBot()(turn(early, ['Y2', 'Y6'])), 'Y2');
  const last = { ...early, drawPileSize: 0 }; // unplayed cards are lost: nothing to keep them for
  assert.equal(scorePlay(last, ['Y2']), scorePlay(last, ['Y6']));
});

test('in a game it has no heuristic for, the heuristic bot plays a random legal action', () => {
  const legal = ['draw', 'take 0', 'take 2'];
  const other: Turn = { ...turn(observation({}), legal), game: 'some-new-game', observation: {} };
  const seen = new Set<string>();
  let draws = 0;
  const act = heuristicBot(() => [0.1, 0.5, 0.9][draws++ % 3]);
  for (let i = 0; i < 3; i++) seen.add(act(other) as string);
  assert.deepEqual([...seen].sort(), legal);
});
