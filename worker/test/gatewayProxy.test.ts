import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { GatewayProxy, type ProxyGrant } from '../src/gatewayProxy.js';
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
  const proxy = new GatewayProxy(url, new WorkerTokens(url, () => 'tkwi_identity', now));
  await proxy.listen();
  return proxy;
}

const post = (grant: ProxyGrant, body = '{"model":"m","stream":true}') =>
  fetch(`${grant.baseUrl}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${grant.credential}`,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    },
    body,
  });

test("the engine's capability is dropped, a WorkerToken attached, and the answer streamed byte for byte", async () => {
  const chunks = ['event: message_start\ndata: {"a":1}\n\n', 'event: ping\ndata: {"b":"é☃"}\n\n'];
  const { url, seen } = await controlPlane((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_1', 'set-cookie': 'x=y' });
    res.write(chunks[0]);
    setTimeout(() => res.end(chunks[1]), 20);
  });
  const proxy = await proxyFor(url);
  const response = await post(proxy.grant(CONVERSATION), '{"model":"m","stream":true,"x":"☃"}');
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
  const grant = proxy.grant(CONVERSATION);
  await (await post(grant)).text();
  now += 29_000;
  await (await post(grant)).text();
  assert.equal(seen.mints, 1);
  now += 2_000; // 29 s left
  await (await post(grant)).text();
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
  const refused = await post(proxy.grant(CONVERSATION));
  assert.equal(refused.status, 403);
  assert.deepEqual(
    ((await refused.json()) as { type: string; error: { type: string } }).error.type,
    'permission_error',
  );
  await proxy.close();

  const gone = await proxyFor(new URL('http://127.0.0.1:9'));
  const unreachable = await post(gone.grant(CONVERSATION));
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
  const denied = await post(proxy.grant(CONVERSATION));
  assert.equal(denied.status, 429);
  assert.equal(denied.headers.get('x-talkide-denial-reason'), 'spending_limit');
  await denied.text();
  assert.equal(proxy.takeBudgetDenial(CONVERSATION), true);
  assert.equal(proxy.takeBudgetDenial(CONVERSATION), false);
  await proxy.close();
});

/** A request as a hostile tool would send it: the raw target is written as given, never normalised. */
function raw(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; allow?: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow as string | undefined }),
      );
    });
    req.on('error', reject);
    req.end(method === 'GET' || method === 'HEAD' ? undefined : '{"model":"m"}');
  });
}

test('only POST /v1/messages and /v1/messages/count_tokens are served; every other target is refused unforwarded', async () => {
  const { url, seen } = await controlPlane((res) => res.end('{}'));
  const proxy = await proxyFor(url);
  const grant = proxy.grant(CONVERSATION);
  const auth = { authorization: `Bearer ${grant.credential}`, 'content-type': 'application/json' };
  const port = proxy.port();
  for (const target of [
    `/${CONVERSATION}/../../worker/issues`,
    `/${CONVERSATION}/v1/messages`,
    '/v1/messages/../../../api/internal/worker/issues',
    '/v1/messages/%2e%2e/%2e%2e/worker/issues',
    '/v1/%2e%2e/%2e%2e/api/internal/worker/issues',
    '/v1/messages%2fcount_tokens',
    '/v1/messages%2Fcount_tokens',
    '/v1//messages',
    '//v1/messages',
    '/v1/messages/',
    '/v1/./messages',
    '/V1/messages',
    '/v1/messages;x=1',
    '/v1/messages/batches',
    '/v1/models',
    '/api/internal/worker/issues',
    'http://127.0.0.1:9/v1/messages',
    '/v1/messages?x=../../worker/issues',
    '/v1/messages?a=%2e%2e',
    '/v1/messages?a=b#c',
    '/v1/messages?',
  ]) {
    const answer = await raw(port, 'POST', target, auth);
    assert.equal(answer.status, 404, target);
    const body = JSON.parse(answer.body) as { type: string; error: { type: string } };
    assert.equal(body.type, 'error', target);
    assert.equal(body.error.type, 'not_found_error', target);
  }
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const answer = await raw(port, method, '/v1/messages', auth);
    assert.equal(answer.status, 405, method);
    assert.equal(answer.allow, 'POST');
    assert.equal((JSON.parse(answer.body) as { type: string }).type, 'error');
  }
  assert.equal(seen.gateway.length + seen.mints, 0, 'nothing refused reached the control plane');

  assert.equal((await raw(port, 'POST', '/v1/messages?beta=true', auth)).status, 200);
  assert.equal((await raw(port, 'POST', '/v1/messages/count_tokens?beta=true', auth)).status, 200);
  assert.equal((await raw(port, 'POST', '/v1/messages', auth)).status, 200);
  assert.deepEqual(
    seen.gateway.map((g) => g.url),
    [
      '/api/internal/gateway/anthropic/v1/messages?beta=true',
      '/api/internal/gateway/anthropic/v1/messages/count_tokens?beta=true',
      '/api/internal/gateway/anthropic/v1/messages',
    ],
  );
  await proxy.close();
});

test('the proxy acts only for the conversation of the capability presented, and not once it is revoked', async () => {
  const { url, seen } = await controlPlane((res) => res.end('{}'));
  const proxy = await proxyFor(url);
  const mine = proxy.grant(CONVERSATION);
  const other = '7d1c1f3e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
  const theirs = proxy.grant(other);
  assert.notEqual(mine.credential, theirs.credential);
  const port = proxy.port();
  const json = { 'content-type': 'application/json' };
  for (const headers of [
    json,
    { ...json, authorization: 'Bearer inert' },
    { ...json, 'x-api-key': 'tkcap_guess' },
    { ...json, authorization: `Bearer ${mine.credential}x` },
    { ...json, authorization: mine.credential },
  ]) {
    const answer = await raw(port, 'POST', '/v1/messages', headers);
    assert.equal(answer.status, 401, JSON.stringify(headers));
    assert.equal((JSON.parse(answer.body) as { error: { type: string } }).error.type, 'authentication_error');
  }
  // A conversation id in the path means nothing: only the capability says whose turn this is.
  assert.equal(
    (
      await raw(port, 'POST', `/${other}/v1/messages`, {
        ...json,
        authorization: `Bearer ${mine.credential}`,
      })
    ).status,
    404,
  );
  assert.equal(
    (await raw(port, 'POST', '/v1/messages', { ...json, 'x-api-key': theirs.credential })).status,
    200,
  );
  assert.equal(
    (await raw(port, 'POST', '/v1/messages', { ...json, authorization: `Bearer ${mine.credential}` })).status,
    200,
  );
  assert.deepEqual(
    seen.gateway.map((g) => g.headers['x-worker-token']),
    ['wt-1', 'wt-2'],
  );
  theirs.revoke();
  assert.equal(
    (await raw(port, 'POST', '/v1/messages', { ...json, 'x-api-key': theirs.credential })).status,
    401,
  );
  assert.equal(proxy.liveGrants(), 1);
  await proxy.close();
});
