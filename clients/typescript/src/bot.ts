/**
 * ArenaBot: give it one function that picks an action, and it plays. The SDK does the protocol.
 *
 * What `run` handles (see proto/arena/v1/bot.proto for the protocol itself):
 *
 * - dials the arena, sends Hello with the token, the games and the concurrency you chose;
 * - calls your `act` for every ActionRequest (many matches at once) and sends its answer, echoing
 *   the match id, the seat and the sequence number (a match may seat the same bot more than once:
 *   each seat is played on its own, and everything below is kept per match and seat);
 * - drops the answer to a request that a newer one for the same seat has superseded (and aborts
 *   the turn's `signal`, so long work can stop early);
 * - sends Ping at the server's keep-alive interval, and takes a stream silent for three intervals
 *   for dead;
 * - logs rejections and protocol errors, never crashes on a message it does not expect;
 * - when the stream drops, reconnects with capped exponential backoff and jitter, trying each
 *   address in turn, and says Hello again with the same token; the server then resends each running
 *   match and its pending request, which is answered (from the cached answer when already decided).
 *
 * It stops when `stop()` is called, after `maxMatches` ended matches, on a refused token or Hello
 * (ConnectionRefusedError), or when a newer connection of the same bot takes over (status ABORTED:
 * ConnectionReplacedError; it must not reconnect then, or two copies would fight over the seat).
 */

import * as grpc from '@grpc/grpc-js';
import {
  arenaProto,
  seconds,
  type ActionRejected,
  type ActionRequest,
  type BotServiceClient,
  type ConnectRequest,
  type ConnectResponse,
  type MatchEnded,
  type MatchStarted,
  type Observation,
  type Outcome,
  type ProtocolError,
  type TimeControl,
  type Welcome,
} from './proto';

export const CLIENT_NAME = 'arena-bot-ts';
export const CLIENT_VERSION = '0.1.0';

/** A stream that says nothing for this many keep-alive intervals is taken for dead. */
const SILENT_INTERVALS = 3;
/** How long to wait for the Welcome after Hello. */
const WELCOME_TIMEOUT_MS = 30_000;
/** Statuses that retrying cannot fix: a wrong token, or a Hello the server refuses. */
const FATAL_CODES = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT]);

/** Base class of the SDK's errors. */
export class ArenaBotError extends Error {}

/** The server refused the connection for good (bad token, unknown game): retrying will not help. */
export class ConnectionRefusedError extends ArenaBotError {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
  ) {
    super(`the arena refused the connection: ${grpc.status[code]}: ${details}`);
  }
}

/** Another connection with the same token took over (status ABORTED): this one must not come back. */
export class ConnectionReplacedError extends ArenaBotError {
  constructor(readonly details: string) {
    super(`another connection of this bot took over: ${details}`);
  }
}

/**
 * The game an observation envelope is of, from the name of its set `oneof game` field (`game_<name>`,
 * which the loader camel-cases: "game_5211" is "5211", "gameColoretto" is "coloretto"); "" when unset.
 */
export function gameOfEnvelope(observation: Observation | null | undefined): string {
  const field = observation?.game;
  if (!field) return '';
  const name = field.replace(/^game_?/, '');
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** A match the bot plays in, as MatchStarted told it. */
export interface MatchInfo {
  matchId: string;
  game: string;
  seat: number;
  numPlayers: number;
  botNames: string[];
  timeControl: TimeControl | null;
  options: Record<string, string>;
}

/** One decision to make: everything `act` needs. */
export interface Turn {
  matchId: string;
  /** The request's sequence number (the SDK echoes it for you). */
  sequence: number;
  /** The seat to act for (the SDK echoes it for you; a match may seat the bot more than once). */
  seat: number;
  /** The game's registry name, from the match's MatchStarted (else from the observation's envelope). */
  game: string;
  /**
   * The observation envelope: exactly what this seat may know, in the `oneof game` field its game sets
   * (`observation.game` names the set field; null when the request carried none). The typed helpers of
   * each game, in src/games/ (e.g. `g5211.observation(turn)`), read it for you.
   */
  observation: Observation | null;
  /** Every legal action now, in the game's notation, e.g. "G3 Y1" in 5211 or "take 2" in Coloretto. */
  legalActions: string[];
  /** One line saying what an action looks like. */
  actionHint: string;
  /** The match, as MatchStarted told it (undefined if that message was missed). */
  match: MatchInfo | undefined;
  /** The raw ActionRequest. */
  request: ActionRequest;
  /** Aborted when a newer request for the match supersedes this one, or the match ends. */
  signal: AbortSignal;
  /** Seconds left before the action is late (allowance plus time bank, less the time taken so far). */
  timeLeft(): number;
  /** Seconds left before the time bank starts being spent. */
  freeTimeLeft(): number;
}

/** How a match ended for this bot. */
export interface MatchResult {
  matchId: string;
  seat: number;
  /** 1 for a win (shared or not); forfeited seats come last. */
  placing: number;
  score: number;
  won: boolean;
  outcome: Outcome | null;
  match: MatchInfo | undefined;
  message: MatchEnded;
}

/** The author's one callback: return one of `turn.legalActions` (or a promise of one). */
export type Act = (turn: Turn) => string | Promise<string>;

/** Optional hooks; each is called with the event and must not throw (a throw is logged). */
export interface BotHooks {
  onWelcome?(welcome: Welcome, address: string): void;
  onMatchStart?(match: MatchInfo): void;
  onMatchEnd?(result: MatchResult): void;
  onActionRejected?(rejection: ActionRejected): void;
  onProtocolError?(error: ProtocolError): void;
  /** The stream dropped (or a connection attempt failed): another attempt follows after `delayMs`. */
  onReconnecting?(delayMs: number): void;
}

/** Where the SDK's log lines go. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A logger writing `level: message` lines to stderr, from `level` up. */
export function stderrLogger(level: (typeof LEVELS)[number] = 'warn'): Logger {
  const min = LEVELS.indexOf(level);
  const line = (at: number) => (message: string) => {
    if (at >= min) process.stderr.write(`${new Date().toISOString()} ${LEVELS[at]} arena-bot: ${message}\n`);
  };
  return { debug: line(0), info: line(1), warn: line(2), error: line(3) };
}

export interface BotOptions {
  /** `host:port`, or several (tried in turn when one fails). */
  servers: string | string[];
  /** The token RegisterBot gave the bot. */
  token: string;
  /** The games to play, by registry name (default []: every game the bot is registered for). */
  games?: string[];
  /** How many matches to play at once (default 1). */
  maxConcurrentMatches?: number;
  /** Stop after this many ended matches, a match counted once per seat the bot held in it (default: play until stopped). */
  maxMatches?: number;
  /** Channel credentials (default: plaintext; `grpc.credentials.createSsl()` for TLS). */
  credentials?: grpc.ChannelCredentials;
  /** First reconnect delay, doubled after each round of failed addresses up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** If `act` throws or returns nothing, answer the first legal action (default true). */
  answerOnError?: boolean;
  hooks?: BotHooks;
  logger?: Logger;
}

interface Decision {
  sequence: number;
  abort: AbortController;
}

interface Answer {
  sequence: number;
  text: string;
  /** The stream it went out on (null: not sent yet), so a resent request after a reconnect is answered again. */
  sentOn: Stream | null;
}

type Stream = grpc.ClientDuplexStream<ConnectRequest, ConnectResponse>;

/** Delay before the next connection attempt: `base` with jitter in [base/2, base]. */
export function jittered(baseMs: number, random: () => number = Math.random): number {
  return baseMs * (0.5 + 0.5 * random());
}

/** The key of one seat the bot plays: (match id, seat). The seat, a number, comes last: no two collide. */
function seatKey(matchId: string, seat: number): string {
  return `${matchId}#${seat}`;
}

/** A bot: `new ArenaBot(act, options).run()`, or the shorthand `runBot(act, options)`. */
export class ArenaBot {
  private readonly addresses: string[];
  private readonly log: Logger;
  private readonly hooks: BotHooks;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private call: Stream | null = null;
  private endSession: (() => void) | null = null;
  // Everything per match is kept per seat (seatKey): a match may seat the bot more than once.
  private readonly matches = new Map<string, MatchInfo>();
  /** The newest request sequence seen per seat. */
  private readonly latest = new Map<string, number>();
  /** The decision being worked on per seat. */
  private readonly decisions = new Map<string, Decision>();
  /** The last answer per seat, for when the server resends its request. */
  private readonly answers = new Map<string, Answer>();
  private ended = 0;

  constructor(
    private readonly act: Act,
    private readonly options: BotOptions,
  ) {
    this.addresses = typeof options.servers === 'string' ? [options.servers] : [...options.servers];
    if (this.addresses.length === 0) throw new Error('give at least one arena address (host:port)');
    this.log = options.logger ?? stderrLogger();
    this.hooks = options.hooks ?? {};
  }

  /** Connect and play, reconnecting as needed, until stopped; see the module comment. */
  async run(): Promise<void> {
    const initial = this.options.initialBackoffMs ?? 500;
    const max = this.options.maxBackoffMs ?? 30_000;
    let index = 0;
    let backoff = initial;
    try {
      while (!this.stopping) {
        const welcomed = await this.session(this.addresses[index]);
        if (this.stopping) break;
        let delay = 0;
        if (welcomed) {
          // The connection worked: come back to the same address, quickly.
          backoff = initial;
          delay = jittered(initial);
        } else {
          index = (index + 1) % this.addresses.length;
          if (index === 0) {
            // Every address failed once more: wait longer each round.
            delay = jittered(backoff);
            backoff = Math.min(max, backoff * 2);
          }
        }
        this.log.info(`reconnecting in ${(delay / 1000).toFixed(2)} s`);
        this.hook(() => this.hooks.onReconnecting?.(delay));
        await this.sleep(delay);
      }
    } finally {
      for (const decision of this.decisions.values()) decision.abort.abort();
      this.decisions.clear();
    }
  }

  /** Disconnect and make `run` return; safe to call at any time. */
  stop(): void {
    this.stopping = true;
    this.wakeUp?.();
    this.endSession?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  // -- one stream ----------------------------------------------------------------------------------

  /** One stream, from Hello until it ends; resolves whether the server welcomed us. */
  private session(address: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const BotService = arenaProto().arena.v1.BotService;
      const client: BotServiceClient = new BotService(
        address,
        this.options.credentials ?? grpc.credentials.createInsecure(),
      );
      const call = client.connect();
      let welcomed = false;
      let finished = false;
      let silenceMs = WELCOME_TIMEOUT_MS;
      let silenceTimer: NodeJS.Timeout | undefined;
      let pinger: NodeJS.Timeout | undefined;

      const finish = (error?: Error): void => {
        if (finished) return;
        finished = true;
        clearTimeout(silenceTimer);
        clearInterval(pinger);
        if (this.call === call) this.call = null;
        this.endSession = null;
        call.removeAllListeners('data');
        call.on('error', () => {}); // the cancel below reports CANCELLED: nothing to say
        call.cancel();
        client.close();
        if (error) reject(error);
        else resolve(welcomed);
      };
      const armSilence = (): void => {
        clearTimeout(silenceTimer);
        silenceTimer = setTimeout(() => {
          this.log.warn(`${address}: nothing heard for ${(silenceMs / 1000).toFixed(1)} s; reconnecting`);
          finish();
        }, silenceMs);
      };

      this.call = call;
      this.endSession = () => finish();
      this.log.info(`connecting to ${address}`);
      armSilence();
      call.on('data', (response: ConnectResponse) => {
        armSilence();
        if (response.kind === 'welcome' && response.welcome) {
          welcomed = true;
          const interval = seconds(response.welcome.keepAliveInterval) * 1000;
          if (interval > 0) {
            silenceMs = SILENT_INTERVALS * interval;
            armSilence();
            if (pinger === undefined) {
              pinger = setInterval(() => this.write(call, { ping: { clientTime: now() } }), interval);
            }
          }
          this.log.info(
            `connected to ${address} as ${response.welcome.botName} (games ${response.welcome.games.join(', ') || '-'})`,
          );
          const welcome = response.welcome;
          this.hook(() => this.hooks.onWelcome?.(welcome, address));
          return;
        }
        try {
          this.dispatch(response);
        } catch (error) {
          // A message we cannot make sense of must not take the bot down.
          this.log.error(`could not handle a ${response.kind ?? 'unknown'} message: ${describe(error)}`);
        }
      });
      call.on('error', (error: grpc.ServiceError) => {
        if (finished) return;
        if (error.code === grpc.status.ABORTED) {
          finish(new ConnectionReplacedError(error.details));
        } else if (FATAL_CODES.has(error.code)) {
          finish(new ConnectionRefusedError(error.code, error.details));
        } else {
          this.log.warn(`${address}: stream failed: ${grpc.status[error.code] ?? error.code} ${error.details}`);
          finish();
        }
      });
      call.on('end', () => {
        if (finished) return;
        this.log.warn(`${address}: the server ended the stream`);
        finish();
      });
      this.write(call, {
        hello: {
          token: this.options.token,
          games: this.options.games ?? [],
          maxConcurrentMatches: this.options.maxConcurrentMatches ?? 1,
          clientName: CLIENT_NAME,
          clientVersion: CLIENT_VERSION,
        },
      });
    });
  }

  /** Send on `call`; false if the stream is gone. */
  private write(call: Stream, request: ConnectRequest): boolean {
    if (this.call !== call) return false;
    try {
      call.write(request);
      return true;
    } catch (error) {
      this.log.debug(`could not send ${Object.keys(request)[0]}: ${describe(error)}`);
      return false;
    }
  }

  // -- messages from the server --------------------------------------------------------------------

  private dispatch(response: ConnectResponse): void {
    switch (response.kind) {
      case 'matchStarted':
        if (response.matchStarted) this.onMatchStarted(response.matchStarted);
        break;
      case 'actionRequest':
        if (response.actionRequest) this.onRequest(response.actionRequest);
        break;
      case 'actionRejected': {
        const r = response.actionRejected;
        if (!r) break;
        this.log.warn(
          `match ${r.matchId}, request ${r.sequence}: action rejected (${r.fault}): ${r.reason}; ` +
            `played ${JSON.stringify(r.fallbackAction)} instead, strike ${r.strikes} of ${r.strikeLimit}`,
        );
        this.hook(() => this.hooks.onActionRejected?.(r));
        break;
      }
      case 'matchEnded':
        if (response.matchEnded) this.onMatchEnded(response.matchEnded);
        break;
      case 'error': {
        const e = response.error;
        if (!e) break;
        this.log.warn(`match ${e.matchId}, request ${e.sequence}: protocol error: ${e.reason}`);
        this.hook(() => this.hooks.onProtocolError?.(e));
        break;
      }
      case 'keepAlive':
        break;
      default:
        this.log.debug(`ignoring a server message of unknown kind ${String(response.kind)} (newer server?)`);
    }
  }

  private onMatchStarted(message: MatchStarted): void {
    const info: MatchInfo = {
      matchId: message.matchId,
      game: message.game,
      seat: message.seat,
      numPlayers: message.numPlayers,
      botNames: message.botNames,
      timeControl: message.timeControl,
      options: message.options,
    };
    const key = seatKey(info.matchId, info.seat);
    const first = !this.matches.has(key);
    this.matches.set(key, info);
    if (first) {
      this.log.info(`match ${info.matchId} started: ${info.game}, seat ${info.seat} of ${info.botNames.join(', ')}`);
      this.hook(() => this.hooks.onMatchStart?.(info));
    }
  }

  private onRequest(request: ActionRequest): void {
    const { matchId, sequence, seat } = request;
    const key = seatKey(matchId, seat);
    const latest = this.latest.get(key);
    if (latest !== undefined && sequence < latest) {
      this.log.debug(`match ${matchId}: ignoring stale request ${sequence} (have ${latest})`);
      return;
    }
    if (sequence === latest) {
      // The server resent the request (after a reconnect): answer again, or let the running
      // decision answer on the live stream when it is done.
      const answer = this.answers.get(key);
      if (answer?.sequence === sequence) {
        if (answer.sentOn !== this.call) this.answer(matchId, seat, sequence, answer.text);
        return;
      }
      if (this.decisions.get(key)?.sequence === sequence) return;
    }
    this.latest.set(key, sequence);
    const previous = this.decisions.get(key);
    if (previous !== undefined) {
      this.log.debug(`match ${matchId}: request ${sequence} supersedes ${previous.sequence}`);
      previous.abort.abort();
    }
    const decision: Decision = { sequence, abort: new AbortController() };
    this.decisions.set(key, decision);
    void this.decide(this.turn(request, decision.abort.signal), decision);
  }

  private turn(request: ActionRequest, signal: AbortSignal): Turn {
    const match = this.matches.get(seatKey(request.matchId, request.seat));
    const received = performance.now();
    const allowance = seconds(request.allowance);
    const bank = seconds(request.timeBank);
    const elapsed = (): number => (performance.now() - received) / 1000;
    return {
      matchId: request.matchId,
      sequence: request.sequence,
      seat: request.seat,
      game: match?.game ?? gameOfEnvelope(request.observation),
      observation: request.observation ?? null,
      legalActions: request.legalActions,
      actionHint: request.actionHint,
      match,
      request,
      signal,
      timeLeft: () => Math.max(0, allowance + bank - elapsed()),
      freeTimeLeft: () => Math.max(0, allowance - elapsed()),
    };
  }

  private async decide(turn: Turn, decision: Decision): Promise<void> {
    const key = seatKey(turn.matchId, turn.seat);
    let text: string | undefined;
    try {
      const result = await this.act(turn);
      if (typeof result !== 'string' || result === '') throw new Error(`act returned ${JSON.stringify(result)}`);
      text = result;
    } catch (error) {
      if (decision.abort.signal.aborted) return;
      this.log.error(`match ${turn.matchId}, request ${turn.sequence}: act failed: ${describe(error)}`);
      if (this.options.answerOnError === false || turn.legalActions.length === 0) return;
      text = turn.legalActions[0];
      this.log.warn(`match ${turn.matchId}, request ${turn.sequence}: answering ${JSON.stringify(text)} instead`);
    } finally {
      if (this.decisions.get(key) === decision) this.decisions.delete(key);
    }
    if (decision.abort.signal.aborted || this.latest.get(key) !== turn.sequence) {
      this.log.debug(`match ${turn.matchId}: dropping the answer to superseded request ${turn.sequence}`);
      return;
    }
    this.answer(turn.matchId, turn.seat, turn.sequence, text);
  }

  /** Send an answer (echoing the match, the seat and the sequence) and remember it (and where it
   * went) for a resent request. */
  private answer(matchId: string, seat: number, sequence: number, text: string): void {
    const call = this.call;
    const sent = call !== null && this.write(call, { action: { matchId, seat, sequence, text } });
    this.answers.set(seatKey(matchId, seat), { sequence, text, sentOn: sent ? call : null });
    if (!sent) this.log.info(`match ${matchId}: answer to ${sequence} kept for the reconnect`);
  }

  private onMatchEnded(message: MatchEnded): void {
    const matchId = message.matchId;
    const seat = message.seat;
    const key = seatKey(matchId, seat);
    this.decisions.get(key)?.abort.abort();
    this.decisions.delete(key);
    this.latest.delete(key);
    this.answers.delete(key);
    const match = this.matches.get(key);
    this.matches.delete(key);
    const outcome = message.outcome;
    const result: MatchResult = {
      matchId,
      seat,
      placing: outcome?.placings[seat] ?? 0,
      score: outcome?.scores[seat] ?? 0,
      won: outcome?.winners.includes(seat) ?? false,
      outcome,
      match,
      message,
    };
    this.log.info(`match ${matchId} ended: placing ${result.placing}, score ${result.score}`);
    this.hook(() => this.hooks.onMatchEnd?.(result));
    this.ended += 1;
    if (this.options.maxMatches !== undefined && this.ended >= this.options.maxMatches) {
      this.log.info(`played ${this.ended} matches; stopping`);
      this.stop();
    }
  }

  private hook(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.log.error(`a hook failed: ${describe(error)}`);
    }
  }
}

/** Build an ArenaBot and run it: resolves when it stops (see ArenaBot.run). */
export function runBot(act: Act, options: BotOptions): Promise<void> {
  return new ArenaBot(act, options).run();
}

function now(): { seconds: number; nanos: number } {
  const ms = Date.now();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
