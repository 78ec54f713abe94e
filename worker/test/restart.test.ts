import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Agent, scriptedAgent } from '../src/agent.js';
import { Worker } from '../src/worker.js';
import { Client, type Sse, testConfig, turnEnded } from './support.js';

/**
 * The scripted answer, held back until the test opens the gate: a turn that runs for as long as the test
 * needs it to, however slowly a loaded machine runs the test, instead of for a fixed time.
 */
function gatedAgent(): { agent: Agent; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const answer = scriptedAgent(0);
  return {
    open,
    agent: async function* gated(turn) {
      await gate;
      yield* answer(turn);
    },
  };
}

/** The control plane's report and mint endpoints, answering each at once; `seen` lists the paths asked. */
async function controlPlane(): Promise<{ url: URL; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
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
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Resolves once `streamed` has seen `turn.started` (its stream is open), or once it ended without. */
function streamOpened(streamed: Promise<Sse[]>, sawStart: Promise<void>): Promise<unknown> {
  return Promise.race([sawStart, streamed]);
}

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
  // A turn held open keeps the stop in its drain until the checks are done (a fixed grace of 500 ms ran out
  // before them on a loaded machine, and the worker had closed).
  const { agent, open } = gatedAgent();
  const reports = await controlPlane(); // so the stop sends the turn's reports at once, not for 5 s in vain
  const worker = await Worker.start(testConfig({ gatewayBaseUrl: reports.url }), agent);
  const client = new Client(`http://127.0.0.1:${worker.port()}`);
  const id = randomUUID();
  const busy = randomUUID();
  await client.open(id);
  await client.open(busy);
  assert.equal((await client.message(busy, 'm0')).json.status, 'accepted');
  const stopped = worker.stop(0, 60_000);
  try {
    const refused = await client.message(id, 'm1');
    assert.equal(refused.status, 503);
    assert.match(String(refused.json.type), /worker-stopping/);
    assert.equal((await fetch(`${client.base}/readyz`)).status, 503);
  } finally {
    open();
  }
  await stopped;
  reports.close();
  await assert.rejects(fetch(`${client.base}/healthz`));
});

test('SIGTERM drain: a running turn finishes within the drain while new commands get 503, and its reports are sent', async () => {
  const { url, seen, close } = await controlPlane();
  const config = testConfig({ gatewayBaseUrl: url });
  const { agent, open } = gatedAgent();
  const worker = await Worker.start(config, agent);
  try {
    const client = new Client(`http://127.0.0.1:${worker.port()}`);
    const id = randomUUID();
    await client.open(id);
    await client.message(id, 'm1');
    // The stream is open before the stop (a fixed 100 ms was not always enough: the stream then asked a
    // stopping worker and got a 503), and the turn ends only after the refusal was seen.
    let sawStart!: () => void;
    const started = new Promise<void>((resolve) => {
      sawStart = resolve;
    });
    const streamed = client.events(id, (e) => {
      if (e.some((x) => x.type === 'turn.started')) {
        sawStart();
      }
      return turnEnded(e);
    });
    await streamOpened(streamed, started);
    const stopped = worker.stop(0, 10_000);
    const other = randomUUID();
    try {
      assert.equal((await client.open(other)).status, 503, 'no new work while draining');
    } finally {
      open();
    }
    const events = await streamed;
    assert.equal(events.at(-1)?.type, 'turn.completed', 'the running turn finished on its open stream');
    await stopped;
    const file = readFileSync(join(config.configDir, 'talkide', 'sessions', id, 'events.jsonl'), 'utf8');
    assert.match(file, /turn\.completed/);
    assert.ok(seen.includes('/api/internal/worker/usage'), `queued reports were sent: ${seen.join(' ')}`);
  } finally {
    await worker.stop();
    close();
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
