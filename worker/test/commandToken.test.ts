import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CommandTokenRejected, CommandTokenVerifier, ReplayCache } from '../src/commandToken.js';
import { parseCommandKeys } from '../src/config.js';
import { KEY, sign } from './support.js';

interface Vector {
  name: string;
  token: string;
  method: string;
  target: string;
  bodyBase64: string;
  verifyAt: number;
  tenant: string;
  env: string;
  expect: string;
}

async function outcome(verifier: CommandTokenVerifier, v: Vector): Promise<string> {
  try {
    await verifier.verify(v.token, v.method, v.target, Buffer.from(v.bodyBase64, 'base64'));
    return 'ok';
  } catch (e) {
    if (e instanceof CommandTokenRejected) {
      return e.reason;
    }
    throw e;
  }
}

test('tokens signed by the Java signer give the Java verifier’s outcomes here', async () => {
  const file = JSON.parse(
    readFileSync(new URL('../../test/vectors/command-tokens.json', import.meta.url), 'utf8'),
  ) as {
    commandKey: string;
    vectors: Vector[];
  };
  assert.ok(file.vectors.length >= 10);
  const keys = parseCommandKeys(file.commandKey);
  const replays = new ReplayCache();
  for (const v of file.vectors) {
    const verifier = new CommandTokenVerifier({
      keys,
      tenant: v.tenant,
      env: v.env,
      clockSkewSeconds: 30,
      now: () => v.verifyAt * 1000,
      replays,
    });
    assert.equal(await outcome(verifier, v), v.expect, v.name);
  }
});

test('a token is refused when missing, malformed, of another kid or another audience', async () => {
  const verifier = new CommandTokenVerifier({
    keys: [{ kid: 'k1', key: KEY }],
    tenant: 'acme',
    env: 'dev',
    clockSkewSeconds: 30,
  });
  const reason = async (token: string | undefined) => {
    try {
      await verifier.verify(token, 'POST', '/sessions', Buffer.from('{}'));
      return 'ok';
    } catch (e) {
      return (e as CommandTokenRejected).reason;
    }
  };
  assert.equal(await reason(undefined), 'missing');
  assert.equal(await reason('x'.repeat(5000)), 'oversized');
  assert.equal(await reason('not-a-jws'), 'malformed');
  const good = await sign('POST', '/sessions', '{}');
  const [, payload, signature] = good.split('.');
  const otherKid = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'cmd+jwt', kid: 'k9' })).toString(
    'base64url',
  );
  assert.equal(await reason(`${otherKid}.${payload}.${signature}`), 'unknown_kid');
  const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'cmd+jwt', kid: 'k1' })).toString('base64url');
  assert.equal(await reason(`${none}.${payload}.${signature}`), 'bad_algorithm');
  assert.equal(await reason(good), 'ok');
  assert.equal(await reason(good), 'replayed');
});
