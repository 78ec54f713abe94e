import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import type { Agent } from '../src/agent.js';
import { Worker } from '../src/worker.js';
import { Client, testConfig, turnEnded } from './support.js';

/** The contract over real HTTP against an in-process worker with a scripted agent. */
const workers: Worker[] = [];
after(async () => {
  for (const w of workers) await w.stop();
});

async function start(overrides = {}, agent?: Agent) {
  const worker = await Worker.start(testConfig(overrides), agent);
  workers.push(worker);
  return { worker, client: new Client(`http://127.0.0.1:${worker.port()}`) };
}

test('probes answer without a token; commands without one are refused with a problem', async () => {
  const { worker, client } = await start();
  assert.equal((await fetch(`${client.base}/healthz`)).status, 200);
  assert.equal((await fetch(`${client.base}/readyz`)).status, 200);
  const refused = await fetch(`${client.base}/sessions`, { method: 'POST', body: '{}' });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  assert.match(((await refused.json()) as { detail: string }).detail, /missing/);
  assert.ok(worker.port() > 0);
});

test('sessions are idempotent, owned, and 404 when unknown; bad bodies are 400', async () => {
  const { client } = await start();
  const id = randomUUID();
  assert.equal((await client.open(id)).status, 201);
  const again = await client.open(id);
  assert.equal(again.status, 200);
  assert.equal(again.json.id, id);
  assert.equal((await client.open(id, 'someone-else')).status, 409);
  assert.equal((await client.message(randomUUID(), 'm1')).status, 404);
  assert.equal((await client.call('POST', '/sessions', { conversationId: 'nope', userId: 'u' })).status, 400);
  assert.equal((await client.call('POST', `/sessions/${id}/messages`, { messageId: 'm1' })).status, 400);
});

test('a turn streams its events; a repeated message is a duplicate; a second one meets 409', async () => {
  const { client } = await start({ scriptedDelayMs: 300 });
  const id = randomUUID();
  await client.open(id);
  assert.deepEqual((await client.message(id, 'm1')).json, { messageId: 'm1', status: 'accepted' });
  assert.equal((await client.message(id, 'm1')).json.status, 'duplicate');
  assert.equal((await client.message(id, 'm2')).status, 409);
  const events = await client.events(id, (e) => turnEnded(e));
  assert.deepEqual(
    events.map((e) => e.type),
    ['session.status', 'turn.started', 'text.delta', 'text.delta', 'turn.completed'],
  );
  const completed = events.at(-1)?.data as { usage: { inputTokens: number }; stopReason: string };
  assert.equal(completed.stopReason, 'end_turn');
  assert.equal(completed.usage.inputTokens, 5);
  assert.equal((await client.message(id, 'm2')).json.status, 'accepted');
});

test('Last-Event-ID resumes exactly after that event; several streams each get every event', async () => {
  const { client } = await start();
  const id = randomUUID();
  await client.open(id);
  // A stream that has its first event (the session's status, replayed) is registered, so the turn's
  // events reach both streams live rather than as a replay. One that ends early lets the test go on and fail.
  const stream = () => {
    let registered = () => {};
    const ready = new Promise<void>((resolve) => {
      registered = resolve;
    });
    const events = client.events(id, (e) => {
      if (e.length > 0) registered();
      return turnEnded(e);
    });
    events.then(registered, registered);
    return { ready, events };
  };
  const first = stream();
  const second = stream();
  await Promise.all([first.ready, second.ready]);
  await client.message(id, 'm1');
  const [a, b] = await Promise.all([first.events, second.events]);
  assert.deepEqual(
    a.map((e) => e.id),
    b.map((e) => e.id),
  );
  const cut = a[1]?.id as string;
  const resumed = await client.events(id, (e) => e.length >= a.length - 2, cut);
  assert.deepEqual(
    resumed.map((e) => e.id),
    a.slice(2).map((e) => e.id),
  );
  const unknown = await client.events(id, (e) => e.length >= a.length, 'other-epoch-3');
  assert.equal(unknown.length, a.length);
});

test('an idle stream carries heartbeats', async () => {
  const { client } = await start({ heartbeatMs: 100 });
  const id = randomUUID();
  await client.open(id);
  const target = `/sessions/${id}/stream`;
  const { sign } = await import('./support.js');
  const abort = new AbortController();
  const response = await fetch(client.base + target, {
    headers: { 'x-worker-token': await sign('GET', target) },
    signal: abort.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes(': ping')) {
    const { value } = await reader.read();
    text += Buffer.from(value ?? new Uint8Array()).toString();
  }
  abort.abort();
});

test('an interrupt ends a slow turn with turn.failed / interrupted', async () => {
  const { client } = await start({ scriptedDelayMs: 60_000 });
  const id = randomUUID();
  await client.open(id);
  await client.message(id, 'm1');
  const interrupted = await client.call('POST', `/sessions/${id}/interrupt`);
  assert.deepEqual(interrupted.json, { interrupted: true });
  const events = await client.events(id, (e) => turnEnded(e));
  assert.deepEqual((events.at(-1)?.data as { error: unknown } | undefined)?.error, {
    type: 'interrupted',
    message: 'The turn was interrupted.',
  });
  assert.equal((await client.message(id, 'm2')).status, 202);
});

test('a failing engine ends the turn upstream_error without leaking its message', async () => {
  const failing: Agent = async function* () {
    yield {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['secret-ish detail'],
    };
  };
  const { client } = await start({}, failing);
  const id = randomUUID();
  await client.open(id);
  await client.message(id, 'm1');
  const events = await client.events(id, (e) => turnEnded(e));
  assert.equal(
    (events.at(-1)?.data as { error: { type: string } } | undefined)?.error.type,
    'upstream_error',
  );
  assert.doesNotMatch(JSON.stringify(events), /secret-ish/);
});

test('delete ends the session for good and is idempotent', async () => {
  const { client } = await start();
  const id = randomUUID();
  await client.open(id);
  assert.equal((await client.call('DELETE', `/sessions/${id}`)).status, 204);
  assert.equal((await client.call('DELETE', `/sessions/${id}`)).status, 204);
  assert.equal((await client.message(id, 'm1')).status, 404);
});
