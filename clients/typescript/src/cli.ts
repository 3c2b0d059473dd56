#!/usr/bin/env node
/**
 * The starter bots' command line:
 *
 *   bin/bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH]
 *           [--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--tls] [--verbose]
 *
 * The token comes from --token, else from --token-file (the file's contents, whitespace stripped),
 * else from $ARENA_TOKEN (or its older alias $ARENA_BOT_TOKEN). The last two keep it out of the process's
 * command line, which other local users can read. A token may start with "-".
 *
 * It plays until killed, or until it has finished N matches (then exits 0). One line per event on
 * stdout: `welcome <bot_name>`, `started <match_id> <seat>`, `rejected <match_id> <sequence> <fault>`
 * (the Fault enum's name, e.g. FAULT_INVALID_ACTION), `ended <match_id> <placing>`, `reconnecting`.
 * Logs go to stderr. Exit status 2: the server refused the token, or another connection took over.
 */

import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { ArenaBot, ArenaBotError, stderrLogger, type Act } from './bot';
import { STRATEGIES } from './bots';

const USAGE = `usage: bot --server HOST:PORT[,HOST:PORT...] [--token TOKEN | --token-file PATH]
           [--strategy random|heuristic] [--max-matches N] [--invalid-first] [--concurrency N] [--tls] [--verbose]
the token: --token, else --token-file, else $ARENA_TOKEN (the last two keep it off the command line)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(64);
}

function positiveInt(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} wants a positive whole number, not ${JSON.stringify(text)}`);
  return n;
}

/** Print one event line on stdout (synchronous for files and pipes, so it is never lost). */
function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

const STRING_OPTIONS = new Set(['server', 'token', 'token-file', 'strategy', 'max-matches', 'concurrency']);
const BOOLEAN_OPTIONS = new Set(['invalid-first', 'tls', 'verbose', 'help']);

interface Options {
  server: string[];
  token?: string;
  'token-file'?: string;
  strategy?: string;
  'max-matches'?: string;
  concurrency?: string;
  'invalid-first'?: boolean;
  tls?: boolean;
  verbose?: boolean;
  help?: boolean;
}

/**
 * The command line, as `--name value` or `--name=value`. A value is taken as it is, even when it starts
 * with "-" (tokens may), which node:util's parseArgs refuses.
 */
export function parseCommandLine(args: string[]): Options {
  const options: Options = { server: [] };
  const values = options as unknown as Record<string, string | boolean | string[]>;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-h') {
      options.help = true;
      continue;
    }
    if (arg === '-v') {
      options.verbose = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (BOOLEAN_OPTIONS.has(name)) {
      if (eq >= 0) throw new Error(`--${name} takes no value`);
      values[name] = true;
    } else if (STRING_OPTIONS.has(name)) {
      let value: string;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < args.length) value = args[++i];
      else throw new Error(`--${name} needs a value`);
      if (name === 'server') options.server.push(value);
      else values[name] = value;
    } else {
      throw new Error(`unknown option --${name}`);
    }
  }
  return options;
}

/** The environment variables the token may come from, in order. */
export const TOKEN_VARIABLES = ['ARENA_TOKEN', 'ARENA_BOT_TOKEN'] as const;

/** A token that cannot be had: the message is the one line to print. */
export class TokenError extends Error {}

/**
 * The token: `given` (--token), else the contents of the file at `path` (--token-file), whitespace
 * stripped, else the first non-empty variable of TOKEN_VARIABLES in `env`. Throws TokenError saying
 * what is wrong (a missing or empty file, or no token anywhere).
 */
export function tokenFrom(given: string | undefined, path: string | undefined, env: NodeJS.ProcessEnv): string {
  if (given) return given;
  if (path !== undefined) {
    let token: string;
    try {
      token = readFileSync(path, 'utf8').trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : describe(error);
      throw new TokenError(`cannot read the token file ${JSON.stringify(path)}: ${reason}`);
    }
    if (!token) throw new TokenError(`the token file ${JSON.stringify(path)} is empty`);
    return token;
  }
  for (const variable of TOKEN_VARIABLES) {
    const value = env[variable];
    if (value) return value;
  }
  throw new TokenError("give the bot's token in $ARENA_TOKEN, with --token-file PATH, or with --token");
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<number> {
  let values: Options;
  try {
    values = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    say(USAGE);
    return 0;
  }
  const servers = values.server.flatMap((s) => s.split(',')).filter((s) => s !== '');
  if (servers.length === 0) fail('give the arena address with --server HOST:PORT');
  let token: string;
  try {
    token = tokenFrom(values.token, values['token-file'], process.env);
  } catch (error) {
    if (!(error instanceof TokenError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const name = values.strategy ?? 'heuristic';
  const strategy = Object.hasOwn(STRATEGIES, name) ? STRATEGIES[name] : undefined;
  if (strategy === undefined) fail(`unknown strategy ${JSON.stringify(values.strategy)}: random or heuristic`);

  let act: Act = strategy();
  if (values['invalid-first']) {
    const play = act;
    let first = true;
    act = (turn) => {
      if (!first) return play(turn);
      first = false;
      return 'Z9'; // not a card: the server rejects it (FAULT_INVALID_ACTION) and plays a fallback
    };
  }
  const bot = new ArenaBot(act, {
    servers,
    token,
    maxConcurrentMatches: positiveInt(values.concurrency, 'concurrency') ?? 4,
    maxMatches: positiveInt(values['max-matches'], 'max-matches'),
    credentials: values.tls ? grpc.credentials.createSsl() : undefined,
    logger: stderrLogger(values.verbose ? 'debug' : 'info'),
    hooks: {
      onWelcome: (welcome) => say(`welcome ${welcome.botName}`),
      onMatchStart: (match) => say(`started ${match.matchId} ${match.seat}`),
      onActionRejected: (r) => say(`rejected ${r.matchId} ${r.sequence} ${r.fault}`),
      onMatchEnd: (result) => say(`ended ${result.matchId} ${result.placing}`),
      onReconnecting: () => say('reconnecting'),
    },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      bot.stop();
      process.exitCode = 0;
    });
  }
  try {
    await bot.run();
  } catch (error) {
    if (error instanceof ArenaBotError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
