import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  asRoot,
  enginesOf,
  standInControlPlane,
  startWorker,
  WORKER_UID,
  writable,
} from './engineHarness.js';
import { Client, KEY, turnEnded } from './support.js';

/**
 * An operator's remote MCP server and its credential (a header value), which Mara's tools must never read.
 * For an engine in its sandbox (`engine`), which has no network, the engine reaches the server through the
 * worker's relay (mcpRelay.ts), which adds the credential outside. With a sandbox per Bash call (`nested`)
 * the engine holds the credential itself, given over its stdin: a command line is readable by every process
 * that can list the engine. Either way the real engine lists the server's tools with the credential
 * attached, the credential is in no process's command line on the machine while the engine runs, and a
 * Bash call finds it in no command line or environment it can read and reaches no other host.
 */
const SECRET = randomUUID();
const CREDENTIAL = `Bearer mcp-${SECRET}`;
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A minimal streamable-HTTP MCP server with one tool; remembers each JSON-RPC method and its headers. */
async function mcpServer(): Promise<{
  port: number;
  calls: { method: string; headers: IncomingHttpHeaders }[];
}> {
  const calls: { method: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const rpc = JSON.parse(body || '{}') as {
        id?: number;
        method?: string;
        params?: { protocolVersion?: string };
      };
      calls.push({ method: String(rpc.method), headers: req.headers });
      if (rpc.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        rpc.method === 'initialize'
          ? {
              protocolVersion: rpc.params?.protocolVersion ?? '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'docs', version: '1.0.0' },
            }
          : rpc.method === 'tools/list'
            ? {
                tools: [
                  {
                    name: 'ping',
                    description: 'Answers pong.',
                    inputSchema: { type: 'object', properties: {} },
                  },
                ],
              }
            : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, calls };
}

const MODES = {
  engine:
    'in the engine sandbox a remote MCP server is reached through the relay, its credential out of reach',
  nested: 'with a sandbox per command the engine holds the credential, in no command line a tool could read',
} as const;

for (const [mode, title] of Object.entries(MODES)) {
  test(title, { timeout: 300_000 }, () => probe(mode));
}

/** Every process's command line on the machine, as this test (outside any sandbox) reads them. */
function commandLines(): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        return '';
      }
    });
}

async function probe(mode: string): Promise<void> {
  const controlPlane = await standInControlPlane();
  cleanups.push(() => controlPlane.close());
  const mcp = await mcpServer();
  const root = mkdtempSync(join(tmpdir(), 'talkide-enginemcp-'));
  if (asRoot) chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const tmp = writable(root, 'pod-tmp');
  const mcpFile = join(writable(root, 'mcp'), 'mcp-servers.json');
  writeFileSync(
    mcpFile,
    JSON.stringify({
      mcpServers: {
        docs: {
          type: 'http',
          url: `http://127.0.0.1:${mcp.port}/mcp`,
          headers: { Authorization: CREDENTIAL },
        },
      },
    }),
  );
  if (asRoot) chownSync(mcpFile, WORKER_UID, WORKER_UID);
  const worker = await startWorker({
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    CLAUDE_CONFIG_DIR: writable(root, 'sessions'),
    TALKIDE_WORKSPACE_DIR: writable(root, 'workspace'),
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString(),
    TALKIDE_WORKER_IDENTITY_TOKEN: `tkwi_${randomUUID().replaceAll('-', '')}`,
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
    TALKIDE_WORKER_MCP_CONFIG: mcpFile,
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
    TALKIDE_WORKER_SANDBOX: mode,
  });
  cleanups.push(() => worker.stop());
  controlPlane.commands.set(
    'probe',
    [
      `echo "== credential"; { for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr "\\0" "\\n" <"$f"; done; } 2>/dev/null | grep -c "mcp[-]${SECRET}" || true`,
      `echo "== direct"; curl -sS -m 5 -o /dev/null -w "mcp server: %{http_code}\\n" http://127.0.0.1:${mcp.port}/mcp 2>&1`,
      `curl -sS -m 5 -o /dev/null -w "control plane: %{http_code}\\n" ${controlPlane.url} 2>&1`,
      'echo "== end"',
    ].join('\n'),
  );
  const client = new Client(`http://127.0.0.1:${worker.port}`);
  const id = randomUUID();
  assert.equal((await client.open(id)).status, 201);
  assert.equal((await client.message(id, randomUUID(), 'RUN probe')).status, 202);
  const events = await client.events(id, (e) => turnEnded(e), undefined, 180_000);
  assert.equal(events.at(-1)?.type, 'turn.completed', JSON.stringify(events.at(-1)?.data));
  const output = String(events.find((e) => e.type === 'tool.completed')?.data.output);

  const listed = mcp.calls.find((c) => c.method === 'tools/list');
  assert.ok(
    listed,
    `the engine listed the server's tools: ${JSON.stringify(mcp.calls.map((c) => c.method))}`,
  );
  assert.equal(listed.headers.authorization, CREDENTIAL, 'the credential reached the server');
  assert.ok(enginesOf(worker.child.pid ?? -1).length > 0, 'the engine still runs (a warm engine)');
  assert.deepEqual(
    commandLines().filter((line) => line.includes(SECRET)),
    [],
    'no command line holds the credential',
  );
  assert.match(output, /== end/, output);
  assert.doesNotMatch(output, new RegExp(CREDENTIAL), output);
  assert.match(output.split('== credential')[1] ?? '', /^\s*0\s*$/m, output);
  assert.match(output, /mcp server: 000/, output);
  assert.match(output, /control plane: 000/, output);
}
