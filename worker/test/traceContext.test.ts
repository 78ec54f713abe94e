import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Agent } from '../src/agent.js';
import { validTraceparent } from '../src/traceContext.js';
import { Worker } from '../src/worker.js';
import { Client, sign, testConfig, turnEnded } from './support.js';

/**
 * The message command's `traceparent` rides on every call back the turn causes: the mint, the gateway
 * call through the local proxy, and the reports (tool events, usage, activity, and an issue Mara files).
 * A real worker over real sockets, with an agent that calls the proxy as the engine would.
 */
const TRACE = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const closers: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const close of closers) await close();
});

interface Call {
  path: string;
  headers: IncomingHttpHeaders;
}

async function controlPlane(): Promise<{ url: URL; calls: Call[] }> {
  const calls: Call[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push({ path: req.url ?? '', headers: req.headers });
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
      } else if (req.url?.startsWith('/api/internal/gateway/')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('event: message_stop\ndata: {}\n\n');
      } else {
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), calls };
}

/** Plays the engine: one model call through the proxy, one tool use, an issue report, a result. */
function engine(worker: () => Worker): Agent {
  return async function* (turn) {
    const grant = worker().proxy.grant(turn.conversationId);
    const answer = await fetch(`${grant.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${grant.credential}`, 'content-type': 'application/json' },
      body: '{"model":"m","stream":true}',
    });
    await answer.text();
    yield {
      type: 'stream_event',
      parent_tool_use_id: null,
      event: { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 3 } } },
    };
    yield {
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    };
    await worker().reports.issue(turn.conversationId, { title: 'broken' });
    yield {
      type: 'user',
      parent_tool_use_id: null,
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
    };
    yield { type: 'stream_event', parent_tool_use_id: null, event: { type: 'message_stop' } };
    yield {
      type: 'result',
      subtype: 'success',
      is_error: false,
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 3,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
  };
}

async function turnWith(traceparent: string | undefined) {
  const { url, calls } = await controlPlane();
  let worker: Worker | undefined;
  worker = await Worker.start(
    testConfig({ gatewayBaseUrl: url }),
    engine(() => worker as Worker),
  );
  closers.push(() => worker?.stop());
  const client = new Client(`http://127.0.0.1:${worker.port()}`);
  const id = randomUUID();
  await client.open(id);
  const target = `/sessions/${id}/messages`;
  const body = JSON.stringify({ messageId: 'm1', text: 'hi' });
  const headers: Record<string, string> = {
    'x-worker-token': await sign('POST', target, body),
    'content-type': 'application/json',
  };
  if (traceparent !== undefined) {
    headers.traceparent = traceparent;
  }
  assert.equal((await fetch(client.base + target, { method: 'POST', headers, body })).status, 202);
  const events = await client.events(id, (e) => turnEnded(e));
  assert.equal(events.at(-1)?.type, 'turn.completed');
  const wanted = ['mint', 'gateway', 'tool-events', 'usage', 'activity', 'issues'];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !wanted.every((kind) => calls.some((c) => kindOf(c) === kind))) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return calls;
}

function kindOf(call: Call): string {
  if (call.path.endsWith('/token/mint')) return 'mint';
  if (call.path.startsWith('/api/internal/gateway/')) return 'gateway';
  return call.path.replace('/api/internal/worker/', '');
}

test('every call back a turn causes carries the message command traceparent', async () => {
  const calls = await turnWith(TRACE);
  assert.deepEqual([...new Set(calls.map(kindOf))].sort(), [
    'activity',
    'gateway',
    'issues',
    'mint',
    'tool-events',
    'usage',
  ]);
  for (const call of calls) {
    assert.equal(call.headers.traceparent, TRACE, `${call.path} carries the turn's traceparent`);
  }
  // Two tool events (started, completed) and the turn's activity line, each with the header.
  assert.ok(calls.filter((c) => kindOf(c) === 'tool-events').length >= 2);
});

test('a malformed traceparent is passed on to nothing', async () => {
  const calls = await turnWith('00-not-a-trace-01');
  assert.ok(calls.some((c) => kindOf(c) === 'gateway'));
  for (const call of calls) {
    assert.equal(call.headers.traceparent, undefined, call.path);
  }
});

test('only the version-00 form with non-zero ids is valid', () => {
  assert.equal(validTraceparent(TRACE), TRACE);
  for (const bad of [
    undefined,
    ['a'],
    TRACE.toUpperCase(),
    `${TRACE}-extra`,
    '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
  ]) {
    assert.equal(validTraceparent(bad), undefined, String(bad));
  }
});
