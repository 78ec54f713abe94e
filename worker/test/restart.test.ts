import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
