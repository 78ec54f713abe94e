import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { conversationConfigDir } from '../src/engineSandbox.js';
import {
  asRoot,
  environOf,
  hasVariable,
  processesWith,
  type StandIn,
  standInControlPlane,
  startWorker,
  WORKER_UID,
  writable,
} from './engineHarness.js';
import { Client, KEY, type Sse, turnEnded } from './support.js';

/**
 * The boundary between Mara's tools and the worker, tried the way a prompt-injected command would: with
 * the real engine, the worker in its own process (uid 10001 when run as root), a second conversation
 * whose engine is warm. One Bash call reads the worker's environment and every other process's, the
 * Secret's files and the other conversation's transcript and event log, and calls the proxy with the
 * other engine's capability and with a `..` climb. With the boundary every attempt is refused and the
 * refusal is in the tool's output; without it (the control run) the same command reads the token, so
 * the probe is not vacuous.
 */
const IDENTITY = `tkwi_${randomUUID().replaceAll('-', '')}`;
const COMMAND_KEY = `k1:${Buffer.from(KEY).toString('base64url')}`;
const MARKER = `other-conversation-${randomUUID()}`;
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Pod {
  root: string;
  /** The worker's own temporary space (no permission rule covers it). */
  tmp: string;
  sessions: string;
  secrets: string;
  env: Record<string, string>;
}

type Boundary = 'on' | 'nested' | 'engine' | 'engine-nested';
const isEngineMode = (boundary: Boundary | undefined) => boundary?.startsWith('engine') ?? false;

function pod(controlPlane: StandIn, boundary: Boundary | undefined): Pod {
  const root = mkdtempSync(join(tmpdir(), 'talkide-boundary-'));
  if (asRoot) chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const tmp = writable(root, 'pod-tmp');
  const sessions = writable(root, 'sessions');
  const secrets = join(root, 'secret');
  writable(root, 'secret');
  for (const [name, value] of [
    ['identity-token', IDENTITY],
    ['command-key', COMMAND_KEY],
  ] as const) {
    writeFileSync(join(secrets, name), value);
    if (asRoot) chownSync(join(secrets, name), WORKER_UID, WORKER_UID);
  }
  const env: Record<string, string> = {
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    CLAUDE_CONFIG_DIR: sessions,
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString(),
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
  };
  if (boundary) {
    Object.assign(env, {
      TALKIDE_WORKSPACE_DIR: writable(root, 'workspace'),
      TALKIDE_WORKER_SECRETS_DIR: secrets,
      TALKIDE_WORKER_SANDBOX: boundary,
    });
  } else {
    // Before the boundary: secrets in the environment, the working tree inside the sessions, no sandbox.
    Object.assign(env, {
      TALKIDE_WORKSPACE_DIR: writable(sessions, 'workspace'),
      TALKIDE_WORKER_IDENTITY_TOKEN: IDENTITY,
      TALKIDE_WORKER_COMMAND_KEY: COMMAND_KEY,
      TALKIDE_WORKER_SANDBOX: 'off',
    });
  }
  writeFileSync(join(tmp, 'worker-only'), MARKER);
  if (asRoot) chownSync(join(tmp, 'worker-only'), WORKER_UID, WORKER_UID);
  return { root, tmp, sessions, secrets, env };
}

async function turn(client: Client, id: string, text: string): Promise<Sse[]> {
  assert.equal((await client.open(id)).status, 201);
  assert.equal((await client.message(id, randomUUID(), text)).status, 202);
  const events = await client.events(id, (e) => turnEnded(e), undefined, 180_000);
  assert.equal(events.at(-1)?.type, 'turn.completed', JSON.stringify(events.at(-1)?.data));
  return events;
}

function toolOutput(events: Sse[]): string {
  const done = events.filter((e) => e.type === 'tool.completed');
  assert.equal(done.length, 1, `one Bash call: ${JSON.stringify(events.map((e) => e.type))}`);
  return String(done[0]?.data.output);
}

/** Runs the other conversation, then the probe in a second one; returns the probe's output. */
async function probe(
  boundary: Boundary | undefined,
): Promise<{ output: string; reads: string[]; pod: Pod; controlPlane: StandIn; otherCapability: string }> {
  const controlPlane = await standInControlPlane();
  cleanups.push(() => controlPlane.close());
  const p = pod(controlPlane, boundary);
  const worker = await startWorker(p.env);
  cleanups.push(() => worker.stop());
  const client = new Client(`http://127.0.0.1:${worker.port}`);

  const other = randomUUID();
  controlPlane.commands.set('other', `echo ${MARKER}`);
  assert.match(toolOutput(await turn(client, other, 'RUN other')), new RegExp(MARKER));
  // The other conversation's engine stays warm: its capability is in its environment. In the engine sandbox
  // each conversation has a config directory of its own.
  const otherConfig = isEngineMode(boundary) ? conversationConfigDir(p.sessions, other) : p.sessions;
  const [engine] = processesWith(`CLAUDE_CONFIG_DIR=${otherConfig}`).filter((pid) =>
    hasVariable(pid, 'ANTHROPIC_AUTH_TOKEN'),
  );
  assert.ok(engine, 'the other conversation has a warm engine');
  const otherCapability = environOf(engine, 'ANTHROPIC_AUTH_TOKEN');
  const proxy = environOf(engine, 'ANTHROPIC_BASE_URL');
  const id = randomUUID();
  controlPlane.commands.set(
    'probe',
    [
      'echo "== pid1"; tr "\\0" "\\n" </proc/1/environ | grep -E "TALKIDE_WORKER|tkwi_" || echo "pid1: nothing"',
      'echo "== every process"; { for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" <"$f"; done; } 2>/dev/null | grep -E "TALKIDE_WORKER_IDENTITY|tkwi_|tkcap_" | sort -u || echo "processes: nothing"',
      `echo "== secret files"; cat ${p.secrets}/identity-token ${p.secrets}/command-key 2>&1`,
      `echo "== transcript"; cat ${p.sessions}/projects/*/${other}.jsonl ${otherConfig}/projects/*/${other}.jsonl 2>&1 | grep -o "${MARKER}" | head -n 1; ls ${p.sessions}/projects 2>&1`,
      `echo "== events"; cat ${p.sessions}/talkide/sessions/${other}/events.jsonl 2>&1 | head -c 200`,
      `echo "== proxy"; curl -sS -m 5 -o /dev/null -w "other capability: %{http_code}\\n" -X POST ${proxy}/v1/messages -H "authorization: Bearer ${otherCapability}" -d "{}" 2>&1`,
      `curl -sS -m 5 --path-as-is -o /dev/null -w "climb: %{http_code}\\n" -X POST "${proxy}/v1/messages/../../../api/internal/worker/issues" -d "{}" 2>&1`,
      `curl -sS -m 5 -o /dev/null -w "worker port: %{http_code}\\n" http://127.0.0.1:${worker.port}/healthz 2>&1`,
      'echo "== end"',
    ].join('\n'),
  );
  const output = toolOutput(await turn(client, id, 'RUN probe'));
  // The file tools: Read of the Secret's file and of the other conversation's event log.
  const reads: string[] = [];
  for (const file of [
    join(p.secrets, 'identity-token'),
    join(p.sessions, 'talkide', 'sessions', other, 'events.jsonl'),
    // No permission rule covers the worker's temporary space: in the engine sandbox its mounts keep it out
    // (the control run reads it).
    ...(isEngineMode(boundary) || boundary === undefined ? [join(p.tmp, 'worker-only')] : []),
  ]) {
    const readId = randomUUID();
    reads.push(toolOutput(await turn(client, readId, `READ ${file}`)));
  }
  return { output, reads, pod: p, controlPlane, otherCapability: String(otherCapability) };
}

for (const mode of ['on', 'nested', 'engine', 'engine-nested'] as const) {
  test(`with the boundary (sandbox ${mode}), Bash reads no secret, no other session, and cannot act through the proxy`, {
    timeout: 300_000,
  }, async () => {
    const { output, reads, controlPlane, otherCapability } = await probe(mode);
    const section = (name: string) => output.split(`== ${name}`)[1]?.split('\n== ')[0] ?? '';
    assert.match(output, /== end/, output);
    assert.doesNotMatch(output, new RegExp(IDENTITY), output);
    assert.doesNotMatch(output, new RegExp(Buffer.from(KEY).toString('base64url')), output);
    assert.doesNotMatch(output, new RegExp(otherCapability), output);
    assert.doesNotMatch(output, new RegExp(MARKER), output);
    assert.match(section('pid1'), /pid1: nothing/, output);
    assert.match(section('secret files'), /No such file|Permission denied|Operation not permitted/, output);
    assert.match(section('transcript'), /No such file|Permission denied|Operation not permitted/, output);
    assert.match(section('events'), /No such file|Permission denied|Operation not permitted/, output);
    if (isEngineMode(mode)) {
      // The sandbox's one way out is its own engine's socket: another engine's capability is refused there
      // (401), a climb is not found (404), and the worker's port is not reachable at all.
      assert.match(section('proxy'), /other capability: 401/, output);
      assert.match(section('proxy'), /climb: 404/, output);
      assert.match(section('proxy'), /worker port: 000/, output);
    } else {
      // No route to the proxy or the worker from inside the sandbox: curl reports 000 (or the sandbox's 403).
      for (const line of ['other capability', 'climb', 'worker port']) {
        assert.match(section('proxy'), new RegExp(`${line}: (000|403)`), output);
      }
    }
    assert.ok(!controlPlane.paths.some((p) => p.includes('/issues')), JSON.stringify(controlPlane.paths));
    for (const read of reads.slice(0, 2)) {
      assert.doesNotMatch(read, new RegExp(`${IDENTITY}|${MARKER}`), read);
      assert.match(read, /denied|not allowed|permission/i, read);
    }
    if (isEngineMode(mode)) {
      assert.equal(reads.length, 3);
      assert.doesNotMatch(reads[2] as string, new RegExp(MARKER), reads[2]);
      assert.match(reads[2] as string, /does not exist|no such file/i, reads[2]);
    }
  });
}

test('without the boundary the same probe reads the identity token (the probe is not vacuous)', {
  timeout: 300_000,
}, async () => {
  const { output, reads, otherCapability } = await probe(undefined);
  assert.match(reads.join('\n'), new RegExp(IDENTITY), 'Read reaches the Secret without the boundary');
  assert.match(reads[2] as string, new RegExp(MARKER), "Read reaches the worker's temporary space");
  assert.match(output, new RegExp(IDENTITY), output);
  assert.match(output, new RegExp(MARKER), output);
  assert.match(output, new RegExp(otherCapability), output);
  assert.match(output, /other capability: 200/, output);
});
