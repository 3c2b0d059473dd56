/**
 * The wire contract: loads proto/arena/v1/bot.proto with @grpc/proto-loader and re-exports the
 * message types of the bot protocol that proto-loader-gen-types generated (in src/generated, made by
 * the build from every proto/arena/v1/*.proto). Each game's own messages are exported by its file in
 * src/games/.
 *
 * The loader options below and the generator flags in package.json ("gen") must agree: camelCase
 * fields, 64-bit integers as numbers, enums as their names, defaults filled in, and a virtual
 * `kind` field naming the set member of each oneof.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/bot';

export type { BotServiceClient } from './generated/arena/v1/BotService';
export type { ConnectRequest } from './generated/arena/v1/ConnectRequest';
export type { ConnectResponse__Output as ConnectResponse } from './generated/arena/v1/ConnectResponse';
export type { Hello } from './generated/arena/v1/Hello';
export type { Welcome__Output as Welcome } from './generated/arena/v1/Welcome';
export type { MatchStarted__Output as MatchStarted } from './generated/arena/v1/MatchStarted';
export type { ActionRequest__Output as ActionRequest } from './generated/arena/v1/ActionRequest';
export type { ActionRejected__Output as ActionRejected } from './generated/arena/v1/ActionRejected';
export type { MatchEnded__Output as MatchEnded } from './generated/arena/v1/MatchEnded';
export type { ProtocolError__Output as ProtocolError } from './generated/arena/v1/ProtocolError';
export type { Outcome__Output as Outcome } from './generated/arena/v1/Outcome';
export type { TimeControl__Output as TimeControl } from './generated/arena/v1/TimeControl';
export type { Observation__Output as Observation } from './generated/arena/v1/Observation';
export type { Fault__Output as Fault } from './generated/arena/v1/Fault';
export type { Termination__Output as Termination } from './generated/arena/v1/Termination';
export type { Duration__Output as Duration } from './generated/google/protobuf/Duration';

/** proto-loader options; they match the flags the types were generated with. */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** Where the .proto files are: $ARENA_PROTO_DIR, else the copy the build puts beside this module. */
export function protoDir(): string {
  const fromEnv = process.env.ARENA_PROTO_DIR;
  if (fromEnv) return fromEnv;
  const beside = path.join(__dirname, 'proto');
  if (fs.existsSync(path.join(beside, 'arena', 'v1', 'bot.proto'))) return beside;
  // Running from a checkout without the copy: the repository's proto/ folder.
  return path.resolve(__dirname, '..', '..', '..', 'proto');
}

let loaded: ProtoGrpcType | undefined;

/** The loaded contract (once per process). */
export function arenaProto(): ProtoGrpcType {
  if (loaded === undefined) {
    const definition = protoLoader.loadSync('arena/v1/bot.proto', { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
    loaded = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  }
  return loaded;
}

/** A Duration in seconds (0 when unset). */
export function seconds(duration: { seconds: number; nanos: number } | null | undefined): number {
  return duration ? Number(duration.seconds) + duration.nanos / 1e9 : 0;
}
