import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { Client, KEY, turnEnded } from './support.js';

/**
 * The image runs with a read-only root filesystem as uid 10001 (worker/Dockerfile): only the session
 * volume (CLAUDE_CONFIG_DIR), the working tree and /tmp (HOME and TMPDIR; an emptyDir, empty at start)
 * can be written. Here the built worker runs the real engine under the same conditions: as uid 10001
 * against this install directory, which that uid cannot write (run as root; otherwise as this user
 * against a copy without write permission), with HOME not yet existing. A turn must complete through a
 * stand-in control plane, and nothing owned by the worker may appear in the other world-writable places.
 */
const WORKER_UID = 10001;
const INSTALL = resolve(import.meta.dirname, '..', '..');
const asRoot = process.getuid?.() === 0;
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  // Every cleanup runs even when one fails: a server left open would keep the test process alive.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length > 0) throw failures[0];
});

async function standInControlPlane(): Promise<URL> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
      } else if (req.url?.startsWith('/api/internal/worker/')) {
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      } else {
        answer(res, JSON.parse(body || '{}') as { model?: string; stream?: boolean });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** A minimal Anthropic Messages answer, streamed when asked to. */
function answer(res: import('node:http').ServerResponse, request: { model?: string; stream?: boolean }) {
  const message = { id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', model: request.model };
  const usage = { input_tokens: 10, output_tokens: 2 };
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ ...message, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...message, content: [], stop_reason: null, usage } });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Read-only works.' } });
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } });
  event('message_stop', {});
  res.end();
}

/** The install directory the worker runs from, which its user cannot write. */
function installDir(): string {
  if (asRoot) {
    for (const dir of [INSTALL, join(INSTALL, 'dist'), join(INSTALL, 'node_modules')]) {
      const stat = statSync(dir);
      assert.ok(
        stat.uid !== WORKER_UID && (stat.mode & 0o022) === 0,
        `${dir} must not be writable by the worker`,
      );
    }
    return INSTALL;
  }
  const copy = mkdtempSync(join(tmpdir(), 'talkide-ro-install-'));
  for (const part of ['package.json', 'dist', 'node_modules']) {
    cpSync(join(INSTALL, part), join(copy, part), { recursive: true });
  }
  execFileSync('chmod', ['-R', 'a-w', copy]);
  cleanups.push(() => {
    execFileSync('chmod', ['-R', 'u+w', copy]);
    rmSync(copy, { recursive: true, force: true });
  });
  return copy;
}

/** Writable for the worker, as a volume or an emptyDir is in the pod. */
function writable(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (asRoot) chownSync(dir, WORKER_UID, WORKER_UID);
  return dir;
}

function startWorker(
  install: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const command = asRoot
    ? ['setpriv', `--reuid=${WORKER_UID}`, `--regid=${WORKER_UID}`, '--clear-groups', process.execPath]
    : [process.execPath];
  const child = spawn(command[0] as string, [...command.slice(1), 'dist/src/main.js'], {
    cwd: install,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A pod's stop: SIGTERM, and the worker closes its engines before it exits.
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          done();
        });
        child.kill('SIGTERM');
      }),
  );
  let output = '';
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start: ${output}`)), 60_000);
    timer.unref();
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"message":"TalkIDE worker listening".*"port":(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(match[1]) });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`the worker exited (${code}): ${output}`)));
  });
}

function ownedByWorker(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: false })
    .map((entry) => join(dir, String(entry)))
    .filter((path) => {
      try {
        return statSync(path).uid === WORKER_UID;
      } catch {
        return false;
      }
    });
}

test('a turn runs on the real engine with only the volumes, HOME and TMPDIR writable', {
  timeout: 120_000,
}, async () => {
  const controlPlane = await standInControlPlane();
  const root = mkdtempSync(join(tmpdir(), 'talkide-ro-'));
  if (asRoot) chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const pod = writable(root, 'pod-tmp'); // the pod's /tmp emptyDir
  const sessions = writable(root, 'sessions');
  const conversationId = randomUUID();
  const { child, port } = await startWorker(installDir(), {
    HOME: join(pod, 'home'), // not there yet, as in a fresh pod
    TMPDIR: pod,
    CLAUDE_CONFIG_DIR: sessions,
    TALKIDE_WORKSPACE_DIR: writable(root, 'workspace'),
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.toString(),
    TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_test',
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
  });
  const client = new Client(`http://127.0.0.1:${port}`);
  assert.equal((await client.open(conversationId)).status, 201);
  assert.equal((await client.message(conversationId, 'm1', 'Say hi.')).status, 202);
  const events = await client.events(conversationId, (e) => turnEnded(e), undefined, 180_000);
  assert.equal(events.at(-1)?.type, 'turn.completed', JSON.stringify(events.at(-1)?.data));
  assert.ok(events.some((e) => e.type === 'text.delta' && e.data.text === 'Read-only works.'));
  if (asRoot) {
    // Outside /tmp, nothing else on a read-only root would take the worker's writes.
    for (const dir of ['/var/tmp', '/dev/shm', '/run/lock']) {
      assert.deepEqual(ownedByWorker(dir), [], `the worker wrote under ${dir}`);
    }
  }
  // A pod's stop: the worker exits only once its engines have, so none is left writing to the volume.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  // In the engine sandbox each conversation's CLAUDE_CONFIG_DIR is a directory inside this one.
  assert.deepEqual(processesWith(`CLAUDE_CONFIG_DIR=${sessions}`), [], 'an engine outlived its worker');
});

/** The processes whose environment holds `entry` (or a path below it): the engines this test's worker started. */
function processesWith(entry: string): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1')
          .split('\0')
          .some((line) => line === entry || line.startsWith(`${entry}/`));
      } catch {
        return false; // gone, or not ours to read
      }
    });
}
