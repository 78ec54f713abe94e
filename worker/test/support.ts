import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { bodyHash } from '../src/commandToken.js';
import type { WorkerConfig } from '../src/config.js';
import { fixedSecrets } from '../src/secrets.js';

/** Test helpers: a worker config on a temp dir, and a signer playing the control plane. */
export const KEY = new Uint8Array(32).fill(7);

export function testConfig(overrides: Partial<WorkerConfig> = {}): WorkerConfig {
  const dir = mkdtempSync(join(tmpdir(), 'talkide-worker-'));
  return {
    tenant: 'acme',
    env: 'dev',
    gatewayBaseUrl: new URL('http://127.0.0.1:9'),
    secrets: fixedSecrets('tkwi_test', [{ kid: 'k1', key: KEY }]),
    configDir: dir,
    workspaceDir: `${dir}-workspace`,
    port: 0,
    host: '127.0.0.1',
    model: 'claude-test',
    heartbeatMs: 200,
    stopGraceMs: 0,
    drainMs: 0,
    sessionLeaseMs: 30_000,
    clockSkewSeconds: 30,
    agent: 'scripted',
    scriptedDelayMs: 50,
    engineIdleMs: 0,
    maxEngines: 2,
    mcpConfigFile: undefined,
    sandbox: 'off',
    sandboxAllowedDomains: [],
    secretsDir: undefined,
    ...overrides,
  };
}

export async function sign(method: string, target: string, body: string | Uint8Array = ''): Promise<string> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tid: 'acme', eid: 'dev', htm: method, htu: target, bsh: bodyHash(bytes) })
    .setProtectedHeader({ alg: 'HS256', typ: 'cmd+jwt', kid: 'k1' })
    .setAudience('talkide-worker')
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(randomUUID())
    .sign(KEY);
}

export class Client {
  constructor(readonly base: string) {}

  async call(
    method: string,
    target: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const text = body === undefined ? '' : JSON.stringify(body);
    const response = await fetch(this.base + target, {
      method,
      headers: { 'x-worker-token': await sign(method, target, text), 'content-type': 'application/json' },
      body: method === 'GET' || method === 'DELETE' ? undefined : text,
    });
    const raw = await response.text();
    return { status: response.status, json: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
  }

  open(conversationId: string, userId = 'u1') {
    return this.call('POST', '/sessions', { conversationId, userId, resume: true });
  }

  message(conversationId: string, messageId: string, text = 'hello') {
    return this.call('POST', `/sessions/${conversationId}/messages`, { messageId, text });
  }

  /** Reads the stream until `until` is true of the events so far (or the timeout), then closes it. */
  async events(
    conversationId: string,
    until: (events: Sse[]) => boolean,
    lastEventId?: string,
    timeoutMs = 10_000,
  ): Promise<Sse[]> {
    const target = `/sessions/${conversationId}/stream`;
    const headers: Record<string, string> = { 'x-worker-token': await sign('GET', target) };
    if (lastEventId) {
      headers['last-event-id'] = lastEventId;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    const events: Sse[] = [];
    try {
      const response = await fetch(this.base + target, { headers, signal: abort.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let buffer = '';
      while (!until(events)) {
        const { value, done } = await reader.read();
        if (done) {
          break;
        }
        buffer += Buffer.from(value).toString('utf8');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const parsed = parseFrame(frame);
          if (parsed) {
            events.push(parsed);
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch (e) {
      if (!abort.signal.aborted) {
        throw e;
      }
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
    return events;
  }
}

export interface Sse {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

function parseFrame(frame: string): Sse | undefined {
  let id = '';
  let type = '';
  let data = '';
  for (const line of frame.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) type = line.slice(7);
    else if (line.startsWith('data: ')) data = line.slice(6);
  }
  return type ? { id, type, data: JSON.parse(data) as Record<string, unknown> } : undefined;
}

export const turnEnded = (events: Sse[], count = 1) =>
  events.filter((e) => e.type === 'turn.completed' || e.type === 'turn.failed').length >= count;

import { setLogLevel } from '../src/log.js';

setLogLevel('error');
