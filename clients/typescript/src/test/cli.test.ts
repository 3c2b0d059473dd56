/** The command line's parsing: the exact forms the cross-language tests use. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, tokenFrom } from '../cli';

/** Runs `body` with a fresh temporary folder, removed afterwards even when an assertion fails. */
function inTemporaryFolder(body: (folder: string) => void): void {
  const folder = mkdtempSync(join(tmpdir(), 'arena-token-'));
  try {
    body(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('values may start with a dash (tokens do)', () => {
  const options = parseCommandLine(['--server', 'a:1,b:2', '--token', '-x_Y', '--max-matches', '3', '--invalid-first']);
  assert.deepEqual(options.server, ['a:1,b:2']);
  assert.equal(options.token, '-x_Y');
  assert.equal(options['max-matches'], '3');
  assert.equal(options['invalid-first'], true);
});

test('--name=value, repeated servers and the short flags', () => {
  const options = parseCommandLine(['--server=a:1', '--server', 'b:2', '--strategy=random', '-v']);
  assert.deepEqual(options.server, ['a:1', 'b:2']);
  assert.equal(options.strategy, 'random');
  assert.equal(options.verbose, true);
});

test('unknown options, missing values and stray arguments are errors', () => {
  assert.throws(() => parseCommandLine(['--colour', 'G']), /unknown option --colour/);
  assert.throws(() => parseCommandLine(['--token']), /needs a value/);
  assert.throws(() => parseCommandLine(['heuristic']), /unexpected argument/);
  assert.throws(() => parseCommandLine(['--tls=yes']), /takes no value/);
});

test('--token=VALUE takes a value starting with a dash', () => {
  assert.equal(parseCommandLine(['--token=-x_Y']).token, '-x_Y');
  assert.equal(parseCommandLine(['--token-file=-f'])['token-file'], '-f');
  assert.equal(parseCommandLine(['--token-file', '-f'])['token-file'], '-f');
});

test('the token: --token, else --token-file (stripped), else $ARENA_TOKEN, else $ARENA_BOT_TOKEN', () => {
  inTemporaryFolder((folder) => {
    const file = join(folder, 'token');
    writeFileSync(file, '  -from_file\n');
    const env = { ARENA_TOKEN: 'from_env', ARENA_BOT_TOKEN: 'older' };
    assert.equal(tokenFrom('-flag', file, env), '-flag');
    assert.equal(tokenFrom(undefined, file, env), '-from_file');
    assert.equal(tokenFrom(undefined, undefined, env), 'from_env');
    assert.equal(tokenFrom(undefined, undefined, { ARENA_BOT_TOKEN: 'older' }), 'older');
    assert.equal(tokenFrom('', undefined, { ARENA_TOKEN: 'from_env' }), 'from_env');
    assert.throws(() => tokenFrom(undefined, undefined, {}), /give the bot's token in \$ARENA_TOKEN,/);
  });
});

test('a missing or empty token file is an error naming it, even with a token in the environment', () => {
  inTemporaryFolder((folder) => {
    const empty = join(folder, 'empty');
    writeFileSync(empty, ' \n\t');
    const env = { ARENA_TOKEN: 'from_env' };
    const missing = join(folder, 'missing');
    assert.throws(() => tokenFrom(undefined, missing, env), {
      message: `cannot read the token file ${JSON.stringify(missing)}: No such file or directory`,
    });
    assert.throws(() => tokenFrom(undefined, empty, env), { message: `the token file ${JSON.stringify(empty)} is empty` });
  });
});
