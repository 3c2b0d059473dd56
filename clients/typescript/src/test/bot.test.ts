/** The SDK against a scripted in-process gRPC server: the protocol rules of bot.proto, one by one. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { ArenaBot, ConnectionRefusedError, ConnectionReplacedError, gameOfEnvelope, jittered, stderrLogger, type Act, type Turn } from '../bot';
import { arenaProto } from '../proto';
import { STRATEGIES } from '../bots';
import * as coloretto from '../games/coloretto';
import * as g5211 from '../games/g5211';
import type { ConnectRequest__Output } from '../generated/arena/v1/ConnectRequest';
import type { ConnectResponse } from '../generated/arena/v1/ConnectResponse';

type ServerCall = grpc.ServerDuplexStream<ConnectRequest__Output, ConnectResponse>;
/** Called once per connection, with the connection's index (0 for the first). */
type Script = (call: ServerCall, index: number) => void;

const QUIET = stderrLogger('error');

async function serve(script: Script): Promise<{ address: string; connections: () => number; close: () => void }> {
  const server = new grpc.Server();
  let connections = 0;
  server.addService(arenaProto().arena.v1.BotService.service, {
    Connect: (call: ServerCall) => {
      call.on('error', () => {});
      script(call, connections++);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, connections: () => connections, close: () => server.forceShutdown() };
}

const welcome = (): ConnectResponse => ({ welcome: { botName: 'b', keepAliveInterval: { seconds: 1 }, games: ['5211'] } });
const started = (matchId: string, seat = 1): ConnectResponse => ({
  matchStarted: { matchId, game: '5211', seat, numPlayers: 2, botNames: ['a', 'b'] },
});
const request = (matchId: string, sequence: number, legalActions = ['B1 G2', 'O3 Y4'], seat = 1): ConnectResponse => ({
  actionRequest: {
    matchId,
    sequence,
    seat,
    allowance: { seconds: 1 },
    timeBank: { seconds: 2 },
    observation: { game_5211: { seat, numPlayers: 2, turn: 1, cardsToLay: 2, handCards: ['B1', 'G2', 'O3', 'Y4'] } },
    legalActions,
  },
});
const ended = (matchId: string, seat = 1): ConnectResponse => ({
  matchEnded: { matchId, seat, outcome: { termination: 'TERMINATION_NORMAL', scores: [3, 7], placings: [2, 1], winners: [1] } },
});

/** Wait until `check()` holds (polling), at most `ms`. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('Hello first, answers echo match, seat and sequence, a superseded request is never answered', async () => {
  let hello: ConnectRequest__Output | undefined;
  const actions: ConnectRequest__Output[] = [];
  const server = await serve((call) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') {
        hello = message;
        call.write(welcome());
        call.write(started('m1'));
        call.write(request('m1', 1));
        call.write(request('m1', 2));
      } else if (message.kind === 'action') {
        actions.push(message);
        call.write(ended('m1'));
      }
    });
  });
  const turns: Turn[] = [];
  const results: number[] = [];
  const bot = new ArenaBot(
    async (turn) => {
      turns.push(turn);
      if (turn.sequence === 1) await new Promise((r) => setTimeout(r, 200));
      return turn.legalActions[turn.sequence - 1];
    },
    {
      servers: server.address,
      token: 'secret',
      maxConcurrentMatches: 3,
      maxMatches: 1,
      logger: QUIET,
      hooks: { onMatchEnd: (result) => results.push(result.placing) },
    },
  );
  try {
    await bot.run();
    await new Promise((r) => setTimeout(r, 250)); // give the superseded decision time to (not) answer
  } finally {
    server.close();
  }
  assert.equal(hello?.hello?.token, 'secret');
  assert.deepEqual(hello?.hello?.games, []); // every game the bot is registered for
  assert.equal(hello?.hello?.maxConcurrentMatches, 3);
  assert.deepEqual(
    actions.map((a) => [a.action?.matchId, a.action?.seat, a.action?.sequence, a.action?.text]),
    [['m1', 1, 2, 'O3 Y4']],
  );
  assert.equal(turns[0].signal.aborted, true);
  assert.equal(turns[0].game, '5211');
  assert.deepEqual(g5211.observation(turns[0]).handCards, ['B1', 'G2', 'O3', 'Y4']);
  assert.ok(turns[1].timeLeft() <= 3 && turns[1].freeTimeLeft() <= 1);
  assert.deepEqual(results, [1]);
});

test('two seats of one match: each answer echoes its seat, the same sequence in each is its own decision', async () => {
  const answers: [number | undefined, number, string][] = [];
  const server = await serve((call) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') {
        call.write(welcome());
        call.write(started('m1', 0));
        call.write(started('m1', 1));
        call.write(request('m1', 1, ['B1 G2'], 0));
        call.write(request('m1', 1, ['O3 Y4'], 1));
      } else if (message.action) {
        const { seat, sequence, text } = message.action;
        answers.push([seat, sequence, text]);
        if (answers.length === 2) {
          call.write(ended('m1', 0));
          call.write(ended('m1', 1));
        }
      }
    });
  });
  const starts: number[] = [];
  const ends: number[] = [];
  const bot = new ArenaBot((turn) => turn.legalActions[0], {
    servers: server.address,
    token: 't',
    maxMatches: 2,
    logger: QUIET,
    hooks: { onMatchStart: (m) => starts.push(m.seat), onMatchEnd: (r) => ends.push(r.seat) },
  });
  try {
    await bot.run();
  } finally {
    server.close();
  }
  assert.deepEqual(
    answers.sort((a, b) => (a[0] ?? -1) - (b[0] ?? -1)),
    [
      [0, 1, 'B1 G2'],
      [1, 1, 'O3 Y4'],
    ],
  );
  assert.deepEqual(starts, [0, 1]);
  assert.deepEqual(ends, [0, 1]);
});

test('after a dropped stream it reconnects, and answers the resent request from its cache', async () => {
  const answers: [number, number, string][] = [];
  const server = await serve((call, index) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') {
        call.write(welcome());
        call.write(started('m1'));
        call.write(request('m1', 5));
      } else if (message.action) {
        answers.push([index, message.action.sequence, message.action.text]);
        if (index === 0) call.end(); // drop the stream after the first answer
        else if (message.action.sequence === 5) call.write(request('m1', 6));
        else call.write(ended('m1'));
      }
    });
  });
  let calls = 0;
  let starts = 0;
  let reconnects = 0;
  const bot = new ArenaBot(
    (turn) => {
      calls++;
      return turn.legalActions[0];
    },
    {
      servers: server.address,
      token: 't',
      maxMatches: 1,
      initialBackoffMs: 20,
      logger: QUIET,
      hooks: { onMatchStart: () => starts++, onReconnecting: () => reconnects++ },
    },
  );
  try {
    await bot.run();
  } finally {
    server.close();
  }
  assert.deepEqual(answers, [
    [0, 5, 'B1 G2'],
    [1, 5, 'B1 G2'],
    [1, 6, 'B1 G2'],
  ]);
  assert.equal(calls, 2, 'the resent request is answered from the cache, not decided again');
  assert.equal(starts, 1, 'a resent MatchStarted is not a new match');
  assert.equal(reconnects, 1);
});

test('a dead address is skipped for the next one', async () => {
  const dead = await serve(() => {});
  const deadAddress = dead.address;
  dead.close();
  const server = await serve((call) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') call.write(welcome());
    });
  });
  const welcomes: string[] = [];
  const bot = new ArenaBot(() => 'x', {
    servers: [deadAddress, server.address],
    token: 't',
    initialBackoffMs: 20,
    logger: QUIET,
    hooks: { onWelcome: (_w, address) => welcomes.push(address) },
  });
  const running = bot.run();
  try {
    await until(() => welcomes.length > 0);
  } finally {
    bot.stop();
    await running;
    server.close();
  }
  assert.deepEqual(welcomes, [server.address]);
});

test('ABORTED (replaced by a newer connection) ends run without reconnecting', async () => {
  const server = await serve((call) => {
    call.on('data', () => {
      call.write(welcome());
      setTimeout(() => call.emit('error', { code: grpc.status.ABORTED, details: 'replaced by a newer connection' }), 20);
    });
  });
  const bot = new ArenaBot(() => 'x', { servers: server.address, token: 't', initialBackoffMs: 10, logger: QUIET });
  try {
    await assert.rejects(bot.run(), ConnectionReplacedError);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(server.connections(), 1);
  } finally {
    server.close();
  }
});

test('a refused token is final', async () => {
  const server = await serve((call) => {
    call.on('data', () => call.emit('error', { code: grpc.status.UNAUTHENTICATED, details: 'unknown token' }));
  });
  const bot = new ArenaBot(() => 'x', { servers: server.address, token: 'bad', logger: QUIET });
  try {
    await assert.rejects(bot.run(), (error: unknown) => {
      assert.ok(error instanceof ConnectionRefusedError);
      assert.equal(error.code, grpc.status.UNAUTHENTICATED);
      return true;
    });
  } finally {
    server.close();
  }
});

test('errors, rejections, odd messages and a failing act do not stop the bot', async () => {
  const actions: string[] = [];
  const server = await serve((call) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') {
        call.write(welcome());
        call.write({ keepAlive: { serverTime: { seconds: 1 } } });
        call.write({ error: { matchId: 'zz', sequence: 9, reason: 'unknown match' } });
        call.write({ actionRejected: { matchId: 'zz', sequence: 9, fault: 'FAULT_ILLEGAL_ACTION', reason: 'no' } });
        call.write({ matchEnded: { matchId: 'never-started', seat: 0 } });
        call.write(request('unannounced', 1));
      } else if (message.action) {
        actions.push(`${message.action.matchId}:${message.action.text}`);
        call.write(ended('unannounced'));
      }
    });
  });
  const faults: string[] = [];
  const bot = new ArenaBot(
    () => {
      throw new Error('bug in the bot');
    },
    {
      servers: server.address,
      token: 't',
      maxMatches: 2,
      logger: QUIET,
      hooks: { onActionRejected: (r) => faults.push(String(r.fault)) },
    },
  );
  try {
    await bot.run();
  } finally {
    server.close();
  }
  assert.deepEqual(faults, ['FAULT_ILLEGAL_ACTION']);
  assert.deepEqual(actions, ['unannounced:B1 G2']);
});

test('reconnect delays are jittered within [base/2, base]', () => {
  assert.equal(jittered(1000, () => 0), 500);
  assert.equal(jittered(1000, () => 1), 1000);
});

/** One match of `game` whose one request carries `observation`; the turn `act` saw and the answer sent. */
async function playOne(
  game: string,
  observation: NonNullable<ConnectResponse['actionRequest']>['observation'],
  legalActions: string[],
  act: Act,
): Promise<{ turn: Turn | undefined; answer: string | undefined }> {
  let answer: string | undefined;
  const server = await serve((call) => {
    call.on('data', (message: ConnectRequest__Output) => {
      if (message.kind === 'hello') {
        call.write(welcome());
        call.write({ matchStarted: { matchId: 'm', game, seat: 0, numPlayers: 3, botNames: ['a', 'b', 'c'] } });
        call.write({ actionRequest: { matchId: 'm', sequence: 1, seat: 0, allowance: { seconds: 1 }, observation, legalActions } });
      } else if (message.action) {
        answer = message.action.text;
        call.write(ended('m', 0));
      }
    });
  });
  let seen: Turn | undefined;
  const bot = new ArenaBot(
    (turn) => {
      seen = turn;
      return act(turn);
    },
    { servers: server.address, token: 't', maxMatches: 1, logger: QUIET },
  );
  try {
    await bot.run();
  } finally {
    server.close();
  }
  return { turn: seen, answer };
}

test('a Coloretto turn carries its game name and the Coloretto observation', async () => {
  const rows = [{ cards: ['B', 'J'], capacity: 3 }, { cards: [], capacity: 3 }, { cards: ['+2'], capacity: 3 }];
  const { turn, answer } = await playOne(
    'coloretto',
    { gameColoretto: { seat: 0, numPlayers: 3, rows, pileSize: 60, colours: ['B', 'G', 'O'] } },
    ['draw', 'take 0', 'take 2'],
    STRATEGIES.random(),
  );
  assert.ok(turn);
  assert.equal(turn.game, 'coloretto');
  assert.equal(turn.observation?.game, 'gameColoretto');
  const view = coloretto.observation(turn);
  assert.equal(view.pileSize, 60);
  assert.deepEqual(view.rows[0].cards, ['B', 'J']);
  assert.deepEqual(coloretto.legalMoves(turn), [{ kind: 'draw' }, { kind: 'take', row: 0 }, { kind: 'take', row: 2 }]);
  assert.throws(() => g5211.observation(turn), /plays "coloretto", not 5211/);
  assert.ok(['draw', 'take 0', 'take 2'].includes(answer ?? ''), answer);
});

test('a turn of a game the kit has never heard of still has its legal actions, and both bots answer it', async () => {
  for (const strategy of ['random', 'heuristic']) {
    // What a kit built before the game was added decodes: the envelope's oneof unset.
    const { turn, answer } = await playOne('some-new-game', {}, ['pass', 'play 7'], STRATEGIES[strategy]());
    assert.ok(turn);
    assert.equal(turn.game, 'some-new-game');
    assert.equal(turn.observation?.game, undefined);
    assert.deepEqual(turn.legalActions, ['pass', 'play 7']);
    assert.throws(() => g5211.observation(turn), /not 5211/);
    assert.throws(() => coloretto.observation(turn), /not coloretto/);
    assert.ok(['pass', 'play 7'].includes(answer ?? ''), `${strategy}: ${answer}`);
  }
});

test('without a MatchStarted, the game is read from the envelope', async () => {
  assert.equal(gameOfEnvelope({ game: 'game_5211' }), '5211');
  assert.equal(gameOfEnvelope({ game: 'gameColoretto' }), 'coloretto');
  assert.equal(gameOfEnvelope({}), '');
  assert.equal(gameOfEnvelope(null), '');
});
