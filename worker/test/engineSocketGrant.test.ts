import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { GatewayProxy } from '../src/gatewayProxy.js';
import { WorkerTokens } from '../src/workerTokens.js';

/**
 * The gateway proxy for engines in their own sandbox (docs/security.md, engine sandbox): a capability granted
 * on an engine's socket acts there only, never on the shared loopback port, and no other engine's
 * capability acts on that socket; revoking it closes the socket.
 */
function call(
  to: { socketPath: string } | { port: number },
  credential: string,
): Promise<number | 'unreachable'> {
  return new Promise((resolve) => {
    const where = 'socketPath' in to ? { socketPath: to.socketPath } : { host: '127.0.0.1', port: to.port };
    const req = request(
      {
        ...where,
        method: 'POST',
        path: '/v1/messages',
        headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve('unreachable'));
    req.end('{"model":"m"}');
  });
}

test("an engine's socket grant acts on its socket only, and nobody else's capability acts there", async () => {
  const forwarded: string[] = [];
  const controlPlane = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
        return;
      }
      forwarded.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => controlPlane.listen(0, '127.0.0.1', r));
  const url = new URL(`http://127.0.0.1:${(controlPlane.address() as AddressInfo).port}`);
  const proxy = new GatewayProxy(url, new WorkerTokens(url, () => 'tkwi_identity'));
  const port = await proxy.listen();
  const dir = mkdtempSync(join(tmpdir(), 'talkide-socket-'));
  try {
    const socketPath = join(dir, 'model.sock');
    const boxed = proxy.grantOnSocket('0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10', socketPath);
    const shared = proxy.grant('7d1c1f3e-2a4b-4c5d-8e9f-0a1b2c3d4e5f');
    assert.equal(boxed.socket, socketPath);
    assert.equal(await call({ socketPath }, boxed.credential), 200);
    assert.equal(await call({ port }, boxed.credential), 401, 'not on the shared port');
    assert.equal(await call({ socketPath }, shared.credential), 401, "not another engine's capability");
    assert.equal(await call({ port }, shared.credential), 200);
    assert.equal(forwarded.length, 2);
    boxed.revoke();
    assert.equal(await call({ socketPath }, boxed.credential), 'unreachable');
    assert.equal(proxy.liveGrants(), 1);
    assert.ok(!existsSync(socketPath), 'the socket is gone with the grant');
  } finally {
    await proxy.close();
    controlPlane.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
