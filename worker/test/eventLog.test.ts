import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { seqOf } from '../src/session.js';
import type { StoredEvent } from '../src/sessionFiles.js';
import { SessionStore } from '../src/sessionStore.js';
import { Worker } from '../src/worker.js';
import { Client, type Sse, testConfig, turnEnded } from './support.js';

/** The session's event log across crashes: torn tails, ids, idempotent messages, bounded memory. */
const eventsFile = (configDir: string, id: string) =>
  join(configDir, 'talkide', 'sessions', id, 'events.jsonl');

function assertIdsIncrease(events: Sse[] | StoredEvent[]): void {
  const seqs = events.map((e) => seqOf(e.id));
  assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'no id is used twice');
  for (let i = 1; i < seqs.length; i++) {
    assert.ok((seqs[i] ?? 0) > (seqs[i - 1] ?? 0), `ids increase: ${seqs.join(',')}`);
  }
}

test('a torn last line (a kill -9 mid-append) is cut at load and hides nothing written after it, over two restarts', async () => {
  const config = testConfig({ scriptedDelayMs: 10 });
  const id = randomUUID();
  const first = await Worker.start(config);
  let client = new Client(`http://127.0.0.1:${first.port()}`);
  await client.open(id);
  await client.message(id, 'm1');
  await client.events(id, (e) => turnEnded(e));
  await first.stop();
  // What a worker killed in the middle of an append leaves behind.
  appendFileSync(eventsFile(config.configDir, id), '{"id":"torn-7","type":"text.delta","data":{"te');

  const second = await Worker.start(config);
  client = new Client(`http://127.0.0.1:${second.port()}`);
  assert.equal((await client.open(id)).status, 200);
  assert.equal((await client.message(id, 'm2')).json.status, 'accepted');
  const afterSecond = await client.events(id, (e) => turnEnded(e, 2));
  await second.stop();

  const third = await Worker.start(config);
  try {
    client = new Client(`http://127.0.0.1:${third.port()}`);
    assert.equal((await client.open(id)).status, 200);
    const all = await client.events(id, (e) => e.filter((x) => x.data.status === 'resumed').length >= 2);
    const m2Ended = all.filter((e) => e.type === 'turn.completed' && e.data.messageId === 'm2');
    assert.equal(m2Ended.length, 1, 'the turn written after the torn line is still there');
    assert.deepEqual(
      all.slice(0, afterSecond.length).map((e) => e.id),
      afterSecond.map((e) => e.id),
      'a later load sees exactly what the earlier one served, under the same ids',
    );
    assertIdsIncrease(all);
    assert.ok(!readFileSync(eventsFile(config.configDir, id), 'utf8').includes('torn-7'));
    // Accepted messages stay accepted across both restarts: a resend never runs twice.
    assert.equal((await client.message(id, 'm1')).json.status, 'duplicate');
    assert.equal((await client.message(id, 'm2')).json.status, 'duplicate');
  } finally {
    await third.stop();
  }
});

test('a message whose turn.started was torn was never acknowledged: its resend runs once', async () => {
  const config = testConfig({ scriptedDelayMs: 10 });
  const id = randomUUID();
  const first = await Worker.start(config);
  let client = new Client(`http://127.0.0.1:${first.port()}`);
  await client.open(id);
  await first.stop();
  appendFileSync(
    eventsFile(config.configDir, id),
    '{"id":"x-3","type":"turn.started","data":{"messageId":"m1"',
  );
  const second = await Worker.start(config);
  try {
    client = new Client(`http://127.0.0.1:${second.port()}`);
    await client.open(id);
    assert.equal((await client.message(id, 'm1')).json.status, 'accepted');
    const events = await client.events(id, (e) => turnEnded(e));
    assert.equal(events.filter((e) => e.type === 'turn.started').length, 1);
    assert.equal((await client.message(id, 'm1')).json.status, 'duplicate');
    assertIdsIncrease(events);
  } finally {
    await second.stop();
  }
});

test('text deltas are batched, yet a stream gets an event only once it is in the log; memory stays bounded', async () => {
  const config = testConfig();
  const store = new SessionStore(config.configDir);
  const id = randomUUID();
  const { session } = store.open(id, 'u1');
  const file = eventsFile(config.configDir, id);
  const received: StoredEvent[] = [];
  session.subscribe(undefined, {
    send: (event) => {
      assert.ok(readFileSync(file, 'utf8').includes(`"id":"${event.id}"`), 'durable before acknowledged');
      received.push(event);
    },
    end: () => {},
  });
  const turn = session.accept('m1').turn;
  assert.ok(turn);
  for (let i = 0; i < 3000; i++) {
    session.emit('text.delta', { turnId: turn.id, messageId: 'm1', text: `chunk ${i} ` });
  }
  session.finishTurn(turn, 'turn.completed', { turnId: turn.id, messageId: 'm1' });
  assert.equal(received.length, 3002, 'the turn end flushed every pending delta ahead of it');
  assert.equal(received.at(-1)?.type, 'turn.completed');
  assert.ok(session.eventsInMemory() <= 1000, `bounded: ${session.eventsInMemory()}`);
  // A stream resuming from far back still gets everything after its id, read from the log.
  const early = received[9] as StoredEvent;
  const replay = session.subscribe(early.id, { send: () => {}, end: () => {} });
  assert.equal(replay.length, received.length - 10);
  assert.equal(replay[0]?.id, received[10]?.id);
  assertIdsIncrease(replay);
  // A recent id is served from memory, same answer.
  const late = received.at(-5) as StoredEvent;
  assert.deepEqual(
    session.subscribe(late.id, { send: () => {}, end: () => {} }).map((e) => e.id),
    received.slice(-4).map((e) => e.id),
  );
  store.haltAll();
});

test('a lone text delta reaches the stream within the batch window', async () => {
  const config = testConfig();
  const store = new SessionStore(config.configDir);
  const { session } = store.open(randomUUID(), 'u1');
  const turn = session.accept('m1').turn;
  assert.ok(turn);
  const arrived = new Promise<number>((resolve) => {
    const started = performance.now();
    session.subscribe(undefined, {
      send: (e) => {
        if (e.type === 'text.delta') resolve(performance.now() - started);
      },
      end: () => {},
    });
  });
  session.emit('text.delta', { turnId: turn.id, messageId: 'm1', text: 'hi' });
  assert.ok((await arrived) < 200);
  store.haltAll();
});
