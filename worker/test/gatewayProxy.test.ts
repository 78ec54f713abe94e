import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { GatewayProxy } from '../src/gatewayProxy.js';
import { WorkerTokens } from '../src/workerTokens.js';

/** The local gateway proxy against a fake control plane on a real socket. */
const CONVERSATION = '0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10';
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

interface Seen {
  mints: number;
  mintAuth: string[];
  gateway: { headers: IncomingMessage['headers']; body: string; url: string }[];
}

async function controlPlane(
  answer: (res: import('node:http').ServerResponse) => void,
  mintStatus = 200,
  expiresIn = 120,
): Promise<{ url: URL; seen: Seen }> {
  const seen: Seen = { mints: 0, mintAuth: [], gateway: [] };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        seen.mints++;
        seen.mintAuth.push(String(req.headers.authorization));
        res.writeHead(mintStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ token: `wt-${seen.mints}`, expiresIn }));
        return;
      }
      seen.gateway.push({ headers: req.headers, body, url: req.url ?? '' });
      answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), seen };
}

async function proxyFor(url: URL, now = () => Date.now()) {
  const proxy = new GatewayProxy(url, new WorkerTokens(url, 'tkwi_identity', now));
  await proxy.listen();
  return proxy;
}

const post = (base: string, body = '{"model":"m","stream":true}') =>
  fetch(`${base}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer inert',
      'x-api-key': 'inert',
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    },
    body,
  });

test('the inert credential is dropped, a WorkerToken attached, and the answer streamed byte for byte', async () => {
  const chunks = ['event: message_start\ndata: {"a":1}\n\n', 'event: ping\ndata: {"b":"é☃"}\n\n'];
  const { url, seen } = await controlPlane((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1', 'set-cookie': 'x=y' });
    res.write(chunks[0]);
    setTimeout(() => res.end(chunks[1]), 20);
  });
  const proxy = await proxyFor(url);
  const response = await post(proxy.baseUrlFor(CONVERSATION), '{"model":"m","stream":true,"x":"☃"}');
  assert.equal(response.status, 200);
  assert.equal(Buffer.from(await response.arrayBuffer()).toString('utf8'), chunks.join(''));
  assert.equal(response.headers.get('request-id'), 'req_1');
  assert.equal(response.headers.get('set-cookie'), null);
  const call = seen.gateway[0];
  assert.equal(call?.url, '/api/internal/gateway/anthropic/v1/messages?beta=true');
  assert.equal(call?.headers['x-worker-token'], 'wt-1');
  assert.equal(call?.headers.authorization, undefined);
  assert.equal(call?.headers['x-api-key'], undefined);
  assert.equal(call?.headers['anthropic-version'], '2023-06-01');
  assert.equal(call?.body, '{"model":"m","stream":true,"x":"☃"}');
  assert.deepEqual(seen.mintAuth, ['Bearer tkwi_identity']);
  await proxy.close();
});

test('a minted token is reused while it has 30 s left, then minted afresh', async () => {
  let now = 1_000_000;
  const { url, seen } = await controlPlane((res) => res.end('{}'), 200, 60);
  const proxy = await proxyFor(url, () => now);
  await (await post(proxy.baseUrlFor(CONVERSATION))).text();
  now += 29_000;
  await (await post(proxy.baseUrlFor(CONVERSATION))).text();
  assert.equal(seen.mints, 1);
  now += 2_000; // 29 s left
  await (await post(proxy.baseUrlFor(CONVERSATION))).text();
  assert.equal(seen.mints, 2);
  assert.deepEqual(
    seen.gateway.map((g) => g.headers['x-worker-token']),
    ['wt-1', 'wt-1', 'wt-2'],
  );
  await proxy.close();
});

test('a mint refusal and an unreachable control plane become Anthropic-shaped errors', async () => {
  const { url } = await controlPlane((res) => res.end('{}'), 403);
  const proxy = await proxyFor(url);
  const refused = await post(proxy.baseUrlFor(CONVERSATION));
  assert.equal(refused.status, 403);
  assert.deepEqual(
    ((await refused.json()) as { type: string; error: { type: string } }).error.type,
    'permission_error',
  );
  await proxy.close();

  const gone = await proxyFor(new URL('http://127.0.0.1:9'));
  const unreachable = await post(gone.baseUrlFor(CONVERSATION));
  assert.equal(unreachable.status, 502);
  const body = (await unreachable.json()) as { type: string; error: { type: string; message: string } };
  assert.equal(body.type, 'error');
  assert.equal(body.error.type, 'api_error');
  assert.doesNotMatch(JSON.stringify(body), /tkwi_identity/);
  await gone.close();
});

test('a spending-limit 429 is remembered for the turn as a budget denial', async () => {
  const { url } = await controlPlane((res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'x-talkide-denial-reason': 'spending_limit' });
    res.end('{"type":"error","error":{"type":"rate_limit_error","message":"limit"}}');
  });
  const proxy = await proxyFor(url);
  const denied = await post(proxy.baseUrlFor(CONVERSATION));
  assert.equal(denied.status, 429);
  assert.equal(denied.headers.get('x-talkide-denial-reason'), 'spending_limit');
  await denied.text();
  assert.equal(proxy.takeBudgetDenial(CONVERSATION), true);
  assert.equal(proxy.takeBudgetDenial(CONVERSATION), false);
  assert.equal((await post(`http://127.0.0.1:${proxy.port()}/not-a-conversation`)).status, 404);
  await proxy.close();
});
