import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Reports } from '../src/reports.js';
import { TurnTraces } from '../src/traceContext.js';
import { WorkerTokens } from '../src/workerTokens.js';

/** Reports reach the control plane in the background, retried while it answers 503, each once by id. */
test('a report is retried with backoff until stored, and carries its own id', async () => {
  const received: { url: string; token: string; body: Record<string, unknown> }[] = [];
  let refusals = 2;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
        return;
      }
      if (refusals-- > 0) {
        res.writeHead(503).end();
        return;
      }
      received.push({
        url: req.url ?? '',
        token: String(req.headers['x-worker-token']),
        body: JSON.parse(body),
      });
      res.writeHead(201).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const reports = new Reports(url, new WorkerTokens(url, () => 'tkwi'), new TurnTraces(), () => 10);
  const conversation = '0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10';
  reports.toolEvent(conversation, 'toolu_1', 'Bash', 'completed', false, 42);
  reports.usage(conversation, {
    messageId: 'msg_1',
    model: 'claude-x',
    inputTokens: 1,
    outputTokens: 2,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
  });
  const deadline = Date.now() + 10_000;
  // The server has the second report before the worker has read its answer: wait for both sides.
  while ((received.length < 2 || reports.pending() > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  server.close();
  assert.deepEqual(
    received.map((r) => [r.url, r.body.id, r.token]),
    [
      ['/api/internal/worker/tool-events', 'toolu_1:completed', 'wt'],
      ['/api/internal/worker/usage', 'usage:msg_1', 'wt'],
    ],
  );
  assert.equal(received[0]?.body.durationMs, 42);
  assert.equal(reports.pending(), 0);
});
