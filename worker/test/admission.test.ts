import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from '../src/worker.js';
import { asRoot, enginesOf, standInControlPlane, startWorker, writable } from './engineHarness.js';
import { Client, KEY, sign, testConfig, turnEnded } from './support.js';

/** At most TALKIDE_WORKER_MAX_ENGINES turns (engines) at once; beyond that the worker says busy. */
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Delivers like the control plane: a 429 worker-busy is sent again later, a 202 is done. */
async function deliver(client: Client, id: string, messageId: string): Promise<number> {
  let refusals = 0;
  for (;;) {
    const answer = await client.message(id, messageId, 'RUN hello');
    if (answer.status === 202) return refusals;
    assert.equal(answer.status, 429, JSON.stringify(answer.json));
    refusals++;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('ten conversations at once with a limit of 2: two run, eight are told busy with Retry-After, all run in the end', async () => {
  const worker = await Worker.start(testConfig({ maxEngines: 2, scriptedDelayMs: 400 }));
  cleanups.push(() => worker.stop());
  const client = new Client(`http://127.0.0.1:${worker.port()}`);
  const ids = Array.from({ length: 10 }, () => randomUUID());
  await Promise.all(ids.map((id) => client.open(id)));
  const first = await Promise.all(
    ids.map(async (id) => {
      const target = `/sessions/${id}/messages`;
      const response = await fetch(client.base + target, {
        method: 'POST',
        headers: {
          'x-worker-token': await sign('POST', target, '{"messageId":"m1","text":"hi"}'),
          'content-type': 'application/json',
        },
        body: '{"messageId":"m1","text":"hi"}',
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.json(),
      };
    }),
  );
  assert.equal(first.filter((a) => a.status === 202).length, 2, JSON.stringify(first.map((a) => a.status)));
  const busy = first.filter((a) => a.status === 429);
  assert.equal(busy.length, 8);
  for (const answer of busy) {
    assert.equal(answer.retryAfter, '2');
    assert.match(String((answer.body as { type: string }).type), /worker-busy/);
  }
  // A refused message was not accepted: the same id is taken later, and runs once.
  await Promise.all(
    ids.map(async (id, i) => {
      if (first[i]?.status !== 202) await deliver(client, id, 'm1');
    }),
  );
  for (const id of ids) {
    const events = await client.events(id, (e) => turnEnded(e));
    assert.equal(events.filter((e) => e.type === 'turn.started').length, 1);
    assert.equal(events.at(-1)?.type, 'turn.completed');
  }
});

test('with the real engine and a limit of 2, ten conversations never run more than two engine processes', {
  timeout: 300_000,
}, async () => {
  const controlPlane = await standInControlPlane();
  cleanups.push(() => controlPlane.close());
  controlPlane.commands.set('hello', 'echo hello');
  const root = mkdtempSync(join(tmpdir(), 'talkide-admission-'));
  if (asRoot) chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const sessions = writable(root, 'sessions');
  const tmp = writable(root, 'tmp');
  const worker = await startWorker({
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    CLAUDE_CONFIG_DIR: sessions,
    TALKIDE_WORKSPACE_DIR: writable(root, 'workspace'),
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString(),
    TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_test',
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
    TALKIDE_WORKER_MAX_ENGINES: '2',
  });
  cleanups.push(() => worker.stop());
  let most = 0;
  const sampler = setInterval(() => {
    const engines = enginesOf(worker.child.pid ?? -1);
    most = Math.max(most, engines.length);
  }, 50);
  cleanups.push(() => clearInterval(sampler));
  const client = new Client(`http://127.0.0.1:${worker.port}`);
  const ids = Array.from({ length: 10 }, () => randomUUID());
  await Promise.all(ids.map((id) => client.open(id)));
  const refusals = await Promise.all(ids.map((id) => deliver(client, id, 'm1')));
  for (const id of ids) {
    const events = await client.events(id, (e) => turnEnded(e), undefined, 120_000);
    assert.equal(
      events.at(-1)?.type,
      'turn.completed',
      worker
        .log()
        .split('\n')
        .filter((l) => l.includes('turn failed'))
        .join('\n'),
    );
  }
  clearInterval(sampler);
  assert.ok(refusals.reduce((a, b) => a + b, 0) > 0, 'some deliveries were told busy');
  assert.ok(most <= 2, `at most 2 engine processes at once, saw ${most}`);
  assert.ok(most >= 1);
});
