import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { asRoot, standInControlPlane, startWorker, textOf, writable } from './engineHarness.js';
import { Client, KEY, turnEnded } from './support.js';

/**
 * The engine keeps a session's transcript under `projects/<working tree>/` in its config directory. When
 * the working tree moves (it once lived inside the config directory; a pod's volume layout may change
 * again), a conversation started before the move must still resume with its earlier turns, not start over
 * or fail: the real engine, one turn before the move, one after, and the model must see the first. The
 * control run loses the transcript at the move, so the check is not vacuous.
 */
const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `sandboxAfter`: the mode of the worker after the move (`engine`: the transcript moves to the conversation's own directory). */
async function turnAfterMove(keepTranscript: boolean, sandboxAfter = 'off'): Promise<string> {
  const controlPlane = await standInControlPlane();
  cleanups.push(() => controlPlane.close());
  const root = mkdtempSync(join(tmpdir(), 'talkide-move-'));
  if (asRoot) chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const tmp = writable(root, 'pod-tmp');
  const sessions = writable(root, 'sessions');
  const env = (workspace: string, sandbox = 'off'): Record<string, string> => ({
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    CLAUDE_CONFIG_DIR: sessions,
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString(),
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
    TALKIDE_WORKER_IDENTITY_TOKEN: `tkwi_${randomUUID().replaceAll('-', '')}`,
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
    TALKIDE_WORKER_SANDBOX: sandbox,
    TALKIDE_WORKSPACE_DIR: workspace,
  });
  const conversation = randomUUID();
  const marker = `pelican-${randomUUID()}`;

  const before = await startWorker(env(writable(sessions, 'workspace')));
  const first = new Client(`http://127.0.0.1:${before.port}`);
  assert.equal((await first.open(conversation)).status, 201);
  assert.equal((await first.message(conversation, randomUUID(), `Remember ${marker}.`)).status, 202);
  let events = await first.events(conversation, (e) => turnEnded(e), undefined, 180_000);
  assert.equal(events.at(-1)?.type, 'turn.completed', JSON.stringify(events.at(-1)?.data));
  await before.stop();
  const projects = join(sessions, 'projects');
  assert.ok(existsSync(projects), 'the engine kept a transcript');
  if (!keepTranscript) rmSync(projects, { recursive: true });

  const moved = await startWorker(env(writable(root, 'workspace'), sandboxAfter));
  cleanups.push(() => moved.stop());
  const second = new Client(`http://127.0.0.1:${moved.port}`);
  assert.ok((await second.open(conversation)).status < 300);
  const seenBefore = controlPlane.modelRequests.length;
  assert.equal(
    (await second.message(conversation, randomUUID(), 'What did I ask you to remember?')).status,
    202,
  );
  events = await second.events(conversation, (e) => turnEnded(e, 2), undefined, 180_000);
  assert.equal(events.at(-1)?.type, 'turn.completed', JSON.stringify(events.at(-1)?.data));

  const afterMove = controlPlane.modelRequests.slice(seenBefore).filter((r) => r.stream);
  assert.ok(afterMove.length > 0, 'the second turn called the model');
  const sent = (afterMove.at(-1)?.messages ?? []).map((m) => textOf(m.content)).join('\n');
  assert.match(sent, /What did I ask you to remember\?/);
  return sent.includes(marker) ? 'remembered' : 'forgotten';
}

test('a conversation started before the working tree moved resumes with its earlier turns', {
  timeout: 600_000,
}, async () => {
  assert.equal(await turnAfterMove(true), 'remembered');
});

test('a conversation started before the working tree moved resumes with its earlier turns in the engine sandbox', {
  timeout: 600_000,
}, async () => {
  assert.equal(await turnAfterMove(true, 'engine'), 'remembered');
});

test('control: without its transcript the same conversation has no earlier turns', {
  timeout: 600_000,
}, async () => {
  assert.equal(await turnAfterMove(false), 'forgotten');
});
