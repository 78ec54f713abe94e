import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  adoptSharedTranscript,
  boxedCommand,
  conversationConfigDir,
  EngineRuntime,
  removeStaleRuntimes,
  runtimesDir,
} from '../src/engineSandbox.js';

/** The engine sandbox's layout, without starting it (toolBoundary.test.ts tries it with the real engine). */
const ID = '0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10';

test("a transcript in the shared projects/ moves into the conversation's own directory, and only its", () => {
  const configDir = mkdtempSync(join(tmpdir(), 'talkide-adopt-'));
  try {
    const project = join(configDir, 'projects', '-data-workspace');
    mkdirSync(join(project, ID), { recursive: true });
    writeFileSync(join(project, `${ID}.jsonl`), 'mine\n');
    writeFileSync(join(project, ID, 'agent.jsonl'), 'subagent\n');
    writeFileSync(join(project, 'other.jsonl'), 'theirs\n');
    adoptSharedTranscript(configDir, ID);
    const own = join(conversationConfigDir(configDir, ID), 'projects', '-data-workspace');
    assert.equal(readFileSync(join(own, `${ID}.jsonl`), 'utf8'), 'mine\n');
    assert.equal(readFileSync(join(own, ID, 'agent.jsonl'), 'utf8'), 'subagent\n');
    assert.ok(!existsSync(join(project, `${ID}.jsonl`)));
    assert.ok(existsSync(join(project, 'other.jsonl')), "another conversation's transcript stays");
    adoptSharedTranscript(configDir, ID); // nothing left to move: a no-op
    assert.equal(readFileSync(join(own, `${ID}.jsonl`), 'utf8'), 'mine\n');
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
});

test('the sandbox hides the sessions and the Secret before it mounts what the engine may write', () => {
  const root = mkdtempSync(join(tmpdir(), 'talkide-box-'));
  const runtime = new EngineRuntime();
  try {
    const sessions = join(root, 'sessions');
    const secrets = join(root, 'secret');
    const home = join(root, 'home');
    const workspace = join(root, 'workspace');
    for (const dir of [sessions, secrets, join(home, 'app'), workspace]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(home, 'app', 'claude'), '');
    const configDir = conversationConfigDir(sessions, ID);
    const argv = boxedCommand(
      { freshProc: true, runtime, configDir, workspaceDir: workspace, hidden: [secrets, sessions, home] },
      join(home, 'app', 'claude'),
      ['--print'],
    );
    const line = argv.join(' ');
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-net', '--die-with-parent']) {
      assert.ok(argv.includes(flag), flag);
    }
    assert.match(line, /--ro-bind \/ \/ --dev \/dev --proc \/proc/);
    const at = (text: string) => line.indexOf(text);
    assert.ok(at(`--tmpfs ${sessions}`) > 0 && at(`--tmpfs ${secrets}`) > 0);
    assert.ok(at(`--tmpfs ${sessions}`) < at(`--bind ${configDir} ${configDir}`), 'hidden, then its own dir');
    assert.ok(!line.includes(`--tmpfs ${home}`), "the directory holding the engine's executable stays");
    assert.ok(at(`--bind ${workspace} ${workspace}`) > 0);
    const app = join(realpathSync(home), 'app');
    assert.ok(
      at(`--ro-bind ${app} ${app}`) > at(`${runtime.dir}/tmp /tmp`),
      'an engine under /tmp is bound back over the sandbox’s own /tmp',
    );
    assert.match(
      line,
      /socat TCP-LISTEN:4180,bind=127\.0\.0\.1,fork,reuseaddr UNIX-CONNECT:\/run\/talkide\/model\.sock/,
    );
    assert.deepEqual(argv.slice(-2), [join(home, 'app', 'claude'), '--print']);
    const nested = boxedCommand(
      { freshProc: false, runtime, configDir, workspaceDir: workspace, hidden: [] },
      'claude',
      [],
    );
    assert.match(nested.join(' '), /--bind \/proc \/proc/);
  } finally {
    runtime.remove();
    rmSync(root, { recursive: true, force: true });
  }
});

test("a worker's start removes the engine runtimes of workers that are gone, and only theirs", () => {
  const base = mkdtempSync(join(tmpdir(), 'talkide-runtimes-'));
  try {
    const gone = new EngineRuntime(runtimesDir(base, 2_000_000_000)); // no such pid
    const mine = new EngineRuntime(runtimesDir(base, process.pid)); // a previous worker with this pid
    const live = new EngineRuntime(runtimesDir(base, process.ppid)); // another worker still running
    assert.ok(existsSync(gone.dir) && existsSync(mine.dir) && existsSync(live.dir));
    writeFileSync(join(base, 'unrelated'), '');
    removeStaleRuntimes(base, process.pid);
    assert.ok(!existsSync(gone.dir), "a gone worker's runtime");
    assert.ok(!existsSync(mine.dir), "a previous incarnation's, with this worker's pid");
    assert.ok(existsSync(live.dir), "a live worker's stays");
    assert.ok(existsSync(join(base, 'unrelated')));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
