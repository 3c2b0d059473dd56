/** The command line's parsing: the exact forms the cross-language tests use. */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../cli';

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
