import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from '../src/worker.js';
import { Client, testConfig, turnEnded } from './support.js';

/** Restart and stop semantics: a stopping worker takes nothing and writes nothing; its successor reports. */
test('a turn running when the worker stopped is reported worker_restarted by its successor', async () => {
  const config = testConfig({ scriptedDelayMs: 60_000 });
  const first = await Worker.start(config);
  const client = new Client(`http://127.0.0.1:${first.port()}`);
  const id = randomUUID();
  await client.open(id);
  await client.message(id, 'm1');
  const eventsFile = join(config.configDir, 'talkide', 'sessions', id, 'events.jsonl');
  const before = readFileSync(eventsFile, 'utf8');
  await first.stop();
  assert.equal(readFileSync(eventsFile, 'utf8'), before, 'a stopped worker writes nothing more');

  const second = await Worker.start({ ...config, scriptedDelayMs: 10 });
  try {
    const again = new Client(`http://127.0.0.1:${second.port()}`);
    assert.equal((await again.open(id)).status, 200);
    const events = await again.events(id, (e) => e.some((x) => x.data.status === 'resumed'));
    const failed = events.find((e) => e.type === 'turn.failed');
    assert.deepEqual(
      (failed?.data as { error: { type: string } } | undefined)?.error.type,
      'worker_restarted',
    );
    assert.equal(
      (await again.message(id, 'm1')).json.status,
      'duplicate',
      'accepted messages survive restarts',
    );
    assert.equal((await again.message(id, 'm2')).json.status, 'accepted');
    const after = await again.events(id, (e) => turnEnded(e, 2));
    assert.equal(after.at(-1)?.type, 'turn.completed');
    assert.equal(new Set(after.map((e) => e.id)).size, after.length, 'event ids stay unique across restarts');
  } finally {
    await second.stop();
  }
});

test('a stopping worker answers 503 worker-stopping and is not ready, then closes', async () => {
  const worker = await Worker.start(testConfig());
  const client = new Client(`http://127.0.0.1:${worker.port()}`);
  const id = randomUUID();
  await client.open(id);
  const stopped = worker.stop(500);
  const refused = await client.message(id, 'm1');
  assert.equal(refused.status, 503);
  assert.match(String(refused.json.type), /worker-stopping/);
  assert.equal((await fetch(`${client.base}/readyz`)).status, 503);
  await stopped;
  await assert.rejects(fetch(`${client.base}/healthz`));
});

test('SIGTERM drain: a running turn finishes within the drain while new commands get 503, and its reports are sent', async () => {
  const seen: string[] = [];
  const controlPlane = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.url ?? '');
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
      } else {
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((r) => controlPlane.listen(0, '127.0.0.1', r));
  const url = new URL(`http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`);
  const config = testConfig({ scriptedDelayMs: 800, gatewayBaseUrl: url });
  const worker = await Worker.start(config);
  try {
    const client = new Client(`http://127.0.0.1:${worker.port()}`);
    const id = randomUUID();
    await client.open(id);
    await client.message(id, 'm1');
    const streamed = client.events(id, (e) => turnEnded(e));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = worker.stop(0, 10_000);
    const other = randomUUID();
    assert.equal((await client.open(other)).status, 503, 'no new work while draining');
    const events = await streamed;
    assert.equal(events.at(-1)?.type, 'turn.completed', 'the running turn finished on its open stream');
    await stopped;
    const file = readFileSync(join(config.configDir, 'talkide', 'sessions', id, 'events.jsonl'), 'utf8');
    assert.match(file, /turn\.completed/);
    assert.ok(seen.includes('/api/internal/worker/usage'), `queued reports were sent: ${seen.join(' ')}`);
  } finally {
    await worker.stop();
    controlPlane.closeAllConnections();
    controlPlane.close();
  }
});

test('a turn longer than the drain is halted at its end and reported worker_restarted by the successor', async () => {
  const config = testConfig({ scriptedDelayMs: 60_000 });
  const first = await Worker.start(config);
  const client = new Client(`http://127.0.0.1:${first.port()}`);
  const id = randomUUID();
  await client.open(id);
  await client.message(id, 'm1');
  const started = Date.now();
  await first.stop(0, 300);
  assert.ok(Date.now() - started < 8_000, 'bounded: the drain, then at most 5 s for reports');
  const second = await Worker.start(config);
  try {
    const again = new Client(`http://127.0.0.1:${second.port()}`);
    await again.open(id);
    const events = await again.events(id, (e) => e.some((x) => x.data.status === 'resumed'));
    const failed = events.find((e) => e.type === 'turn.failed');
    assert.deepEqual(
      failed?.data.error,
      {
        type: 'worker_restarted',
        message: 'The worker restarted while this turn was running.',
      },
      JSON.stringify(events),
    );
  } finally {
    await second.stop();
  }
});
