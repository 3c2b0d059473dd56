/** The Azul and FOOL! helpers on turns decoded from the server's real bytes. */

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { arenaProto } from '../proto';
import type { Turn } from '../bot';
import type { ConnectResponse__Output } from '../generated/arena/v1/ConnectResponse';
import * as azul from '../games/azul';
import * as coloretto from '../games/coloretto';
import * as fool from '../games/fool';

// Each a ConnectResponse the server sent: the ActionRequest of seat 0 of a 3-player grey-wall Azul match in
// round 2's tiling, and of seat 7 of an 8-player FOOL! match in a trick of round 1 (their observations are
// arena.catalogue.observation_to_proto of the engine's, their legal actions the engine's).
const AZUL_TILING = '1a97050a016d10013adb031ad80308001003180220642802300242030001024a004a004a004a004a004a004a0060026a7012030a015712030a015212090a01570a01570a015712090a014b0a014b0a014b12060a014b0a014b1a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201592201592201592201596a6812030a015212030a015712060a01570a015712030a014b12060a01570a01571a0b0a000a000a000a01590a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201522201422201422201426a7112030a014b120012030a014212090a014b0a014b0a014b12060a01420a01421a0a0a000a000a000a000a001a0b0a01420a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a0022015322015922015222015222015222015222015272050c070809087a01427a01597a01597a01597a01597a01597a01597a01597a01527a01527a01527a01527a014b7a01577a01577a015782012e08011a001a03313a341a03323a31220022080a0608011004180122080a060802100118012a03060e0132030000004207313a3120333a324207313a3120333a334207313a3120333a344207313a3120333a354207313a3220333a314207313a3220333a334207313a3220333a344207313a3220333a354207313a3320333a314207313a3320333a324207313a3320333a344207313a3320333a354207313a3420333a314207313a3420333a324207313a3420333a334207313a3420333a354207313a3520333a314207313a3520333a324207313a3520333a334207313a3520333a34';
const FOOL_TRICK = '1aa1040a016d100118073a810422fe03080710081a0247321a0247331a0247341a0247351a0247361a0247371a0247381a0247391a034731301a034731311a034731321a034731331a034731341a034731351a034731361a034731371a034731381a034731391a034732301a034732311a034732321a034732331a034732341a034732351a034732361a034732371a0252321a0252331a0252341a0252351a0252361a0252371a0252381a0252391a035231301a035231311a035231321a035231331a035231341a035231351a035231361a035231371a035231381a035231391a035232301a035232311a035232321a035232331a0259321a0259331a0259341a0259351a0259361a0259371a0259381a0259391a035931301a035931311a035931321a035931331a035931341a035931351a035931361a035931371a035931381a035931391a035932301a035932311a0242321a0242331a0242341a0242351a0242361a0242371a0242381a0242391a034231301a034231311a034231321a034231331a034231341a034231351a0257311a0257311a0257311a0257311a0257311a025731200b28023005380140054a0247394a034732354a0252324a0252384a035231304a035232324a0259334a0259344a0242384a0257314a02573152080b0b0b0b0b0b0a0b58066a0708061203523137700278079a01080000000000000000a20108000000000000000042025232420252384203523130420352323242025731';

/** The turn of the ActionRequest in a ConnectResponse's bytes, for a match of `game`. */
function turnOf(hex: string, game: string): Turn {
  const deserialize = arenaProto().arena.v1.BotService.service.Connect.responseDeserialize;
  const request = (deserialize(Buffer.from(hex, 'hex')) as ConnectResponse__Output).actionRequest;
  assert.ok(request);
  const { matchId, sequence, seat, observation, legalActions, actionHint } = request;
  return { matchId, sequence, seat, game, observation, legalActions, actionHint, request } as unknown as Turn;
}

test('an Azul grey-wall tiling turn: its observation, and its tilings parsed', () => {
  const turn = turnOf(AZUL_TILING, 'azul');
  const view = azul.observation(turn);
  assert.equal(view.wallSide, 'WALL_SIDE_GREY');
  assert.equal(view.phase, 'PHASE_TILING');
  assert.equal(view.boards.length, 3);
  const actions = azul.legalActions(turn);
  assert.equal(actions.length, turn.legalActions.length);
  assert.deepEqual(actions[0], { kind: 'tiling', placements: [{ line: 1, column: 1 }, { line: 3, column: 2 }] });
  assert.deepEqual(actions.map(azul.formatAction), turn.legalActions);
  assert.throws(() => coloretto.observation(turn), /plays "azul", not coloretto/);
  assert.throws(() => fool.observation(turn), /plays "azul", not fool/);
});

test('Azul takes parse and print; anything else is refused', () => {
  assert.deepEqual(azul.parseAction('3 R 4'), { kind: 'take', source: 3, colour: 'R', target: 4 });
  assert.deepEqual(azul.parseAction('C K F'), { kind: 'take', source: 'C', colour: 'K', target: 'F' });
  assert.deepEqual(azul.parseAction('2:4 5:F').kind, 'tiling');
  for (const text of ['C K F', '0 W 1', '2:4 5:F']) assert.equal(azul.formatAction(azul.parseAction(text)), text);
  for (const bad of ['', '3 R', '9 R 4', '3 G 4', '3 R 6', 'C K F F', '2:6', '3:1 2:4', '2:4:1', 'take 1']) {
    assert.throws(() => azul.parseAction(bad), /not an Azul action/, bad);
  }
});

test('a FOOL! turn: its observation, and its cards parsed', () => {
  const turn = turnOf(FOOL_TRICK, 'fool');
  const view = fool.observation(turn);
  assert.equal(view.numPlayers, 8);
  assert.equal(view.seat, 7);
  assert.ok(view.trick.length > 0 && view.hand.includes('R22'));
  assert.deepEqual(turn.legalActions, ['R2', 'R8', 'R10', 'R22', 'W1']);
  assert.deepEqual(fool.legalCards(turn).at(-1), { colour: 'W', value: 1 });
  assert.deepEqual(fool.legalCards(turn).map(fool.formatCard), turn.legalActions);
  assert.throws(() => azul.observation(turn), /plays "fool", not azul/);
  for (const bad of ['', 'G', 'G1', 'G28', 'B16', 'W2', 'R02', 'X5', 'g5', 'R 5']) {
    assert.throws(() => fool.parseCard(bad), /not a FOOL! card/, bad);
  }
});
