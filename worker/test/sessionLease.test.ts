import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from '../src/worker.js';
import { Client, testConfig, turnEnded } from './support.js';

/** Two workers on one session directory, as during a rollout with maxSurge 1: one serves a session at a time. */
const sessionDir = (configDir: string, id: string) => join(configDir, 'talkide', 'sessions', id);

test('while one worker serves a session a second one on the same volume refuses it; after the first drains, the second takes over', async () => {
  const config = testConfig({ scriptedDelayMs: 600 });
  const old = await Worker.start({ ...config, drainMs: 10_000 });
  const fresh = await Worker.start(config);
  try {
    const a = new Client(`http://127.0.0.1:${old.port()}`);
    const b = new Client(`http://127.0.0.1:${fresh.port()}`);
    const id = randomUUID();
    assert.equal((await a.open(id)).status, 201);
    const oldStream = a.events(id, (e) => turnEnded(e));
    assert.equal((await a.message(id, 'm1')).status, 202);
    // The old pod's turn is running: the new pod must neither report it worker_restarted nor start another.
    const refused = await b.open(id);
    assert.equal(refused.status, 503);
    assert.match(String(refused.json.type), /session-held-elsewhere/);
    assert.equal((await b.message(id, 'm2')).status, 503);
    await old.stop(); // drains: the turn ends on the old pod, then its lease is released
    assert.equal((await oldStream).at(-1)?.type, 'turn.completed');
    assert.equal((await b.open(id)).status, 200);
    assert.equal((await b.message(id, 'm1')).json.status, 'duplicate');
    assert.equal((await b.message(id, 'm2')).json.status, 'accepted');
    const events = await b.events(id, (e) => turnEnded(e, 2));
    assert.ok(!events.some((e) => e.type === 'turn.failed'), 'no turn was cut or reported restarted');
    assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'no event id used twice');
  } finally {
    await old.stop();
    await fresh.stop();
  }
});

test('a holder that lost its lease (taken over after expiry) is fenced: it writes nothing more', async () => {
  const config = testConfig({ scriptedDelayMs: 50, sessionLeaseMs: 60_000 });
  const stale = await Worker.start(config);
  const successor = await Worker.start(config);
  try {
    const a = new Client(`http://127.0.0.1:${stale.port()}`);
    const b = new Client(`http://127.0.0.1:${successor.port()}`);
    const id = randomUUID();
    await a.open(id);
    // As if the holder froze past its lease: the lease expires and the successor takes the session over.
    const lease = join(sessionDir(config.configDir, id), 'lease.json');
    const held = JSON.parse(readFileSync(lease, 'utf8')) as { fence: number };
    writeFileSync(lease, JSON.stringify({ ...held, expiresAt: Date.now() - 1 }));
    assert.equal((await b.open(id)).status, 200);
    const taken = JSON.parse(readFileSync(lease, 'utf8')) as { fence: number };
    assert.equal(taken.fence, held.fence + 1, 'fences only grow');
    const before = readFileSync(join(sessionDir(config.configDir, id), 'events.jsonl'), 'utf8');
    // The stale holder wakes up and is sent a message: it must not append to the session it lost.
    const late = await a.message(id, 'late');
    assert.equal(late.status, 503, JSON.stringify(late.json));
    assert.equal(readFileSync(join(sessionDir(config.configDir, id), 'events.jsonl'), 'utf8'), before);
    assert.equal((await b.message(id, 'm1')).json.status, 'accepted');
    const events = await b.events(id, (e) => turnEnded(e));
    assert.equal(events.at(-1)?.type, 'turn.completed');
    assert.ok(!events.some((e) => e.data.messageId === 'late'));
  } finally {
    await stale.stop();
    await successor.stop();
  }
});
