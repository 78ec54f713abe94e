import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { asRoot, standInControlPlane, WORKER_UID, writable } from './engineHarness.js';
import { median } from './sandboxSteps.js';

/**
 * The alternative the per-command sandbox is measured against (docs/security.md, "Cost and the
 * alternatives"): the engine itself inside one bubblewrap sandbox (own user, PID, IPC and network
 * namespaces, `/` read-only, the working tree and its own directories writable, `/proc` bound as in
 * `nested`), Claude Code's sandbox off, its model calls through a socat bridge from the sandbox's loopback
 * to a Unix socket outside. A prototype for the figures only, driven through the SDK directly: it keeps
 * neither the transcripts of other conversations nor remote MCP servers in mind. Per variant 3 engines,
 * each given BENCH_TURNS + 1 messages `RUN true` (one Bash call each): engine start to the first model call,
 * and the Bash round trips after the first (the SDK's tool_use message → its tool_result), medians.
 */
const TURNS = Number(process.env.BENCH_TURNS ?? 10);

interface Run {
  firstCall: number;
  /** Bash round trips after the engine's first (which also makes the shell snapshot). */
  rounds: number[];
}

async function engine(wrapped: boolean): Promise<Run> {
  const controlPlane = await standInControlPlane();
  controlPlane.commands.set('true', 'true');
  const root = mkdtempSync(join(tmpdir(), 'talkide-enginebox-'));
  if (asRoot) chmodSync(root, 0o755);
  const tmp = writable(root, 'tmp');
  const home = writable(root, 'home');
  const sessions = writable(root, 'sessions');
  const workspace = writable(root, 'workspace');
  const socket = join(tmp, 'model.sock');
  const port = controlPlane.url.port;
  const children: ChildProcess[] = [];
  const asWorker = asRoot
    ? ['setpriv', `--reuid=${WORKER_UID}`, `--regid=${WORKER_UID}`, '--clear-groups']
    : [];
  if (wrapped) {
    // Outside: the Unix socket the sandbox's bridge reaches, forwarded to the model.
    const outer = [...asWorker, 'socat', `UNIX-LISTEN:${socket},fork`, `TCP:127.0.0.1:${port}`];
    children.push(spawn(outer[0] as string, outer.slice(1), { stdio: 'ignore' }));
  }
  const spawnEngine = (options: SpawnOptions) => {
    const sandbox = [
      ...['bwrap', '--die-with-parent', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-net'],
      ...['--ro-bind', '/', '/', '--dev', '/dev', '--bind', '/proc', '/proc'],
      ...[tmp, home, sessions, workspace].flatMap((dir) => ['--bind', dir, dir]),
      '--',
      ...[
        'sh',
        '-c',
        `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${socket} & exec "$@"`,
        'engine',
      ],
    ];
    const argv = [...asWorker, ...(wrapped ? sandbox : []), options.command, ...options.args];
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      signal: options.signal,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    children.push(child);
    return child;
  };
  const started = performance.now();
  let toolUse = Number.NaN;
  const rounds: number[] = [];
  let turnDone: () => void = () => {};
  // One engine, TURNS + 1 messages, each sent once the previous turn has its result.
  async function* messages() {
    for (let i = 0; i <= TURNS; i++) {
      const done = new Promise<void>((resolve) => {
        turnDone = resolve;
      });
      yield {
        type: 'user' as const,
        message: { role: 'user' as const, content: 'RUN true' },
        parent_tool_use_id: null,
        session_id: '',
      };
      await done;
    }
  }
  try {
    for await (const message of query({
      prompt: messages(),
      options: {
        cwd: workspace,
        model: 'claude-sonnet-4-5',
        permissionMode: 'dontAsk',
        allowedTools: ['Bash'],
        settingSources: [],
        spawnClaudeCodeProcess: spawnEngine,
        stderr: () => {},
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          TMPDIR: tmp,
          CLAUDE_CONFIG_DIR: sessions,
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}/api/internal/gateway/anthropic`,
          ANTHROPIC_AUTH_TOKEN: 'bench',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      },
    })) {
      const m = message as { type: string; message?: { content?: { type: string }[] } };
      const has = (type: string) => m.message?.content?.some((b) => b.type === type) ?? false;
      if (m.type === 'assistant' && has('tool_use')) toolUse = performance.now();
      if (m.type === 'user' && has('tool_result')) rounds.push(performance.now() - toolUse);
      if (m.type === 'result') {
        if (rounds.length > TURNS) break;
        turnDone();
      }
    }
    if (rounds.length <= TURNS) throw new Error(`${rounds.length} Bash calls completed`);
    return { firstCall: (controlPlane.modelCalls[0] ?? Number.NaN) - started, rounds: rounds.slice(1) };
  } finally {
    for (const child of children) child.kill();
    controlPlane.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const rows: string[] = [];
const runs: Record<string, Run[]> = { unconfined: [], 'in one bubblewrap': [] };
for (let i = 0; i < 3; i++) {
  runs.unconfined?.push(await engine(false));
  runs['in one bubblewrap']?.push(await engine(true));
}
for (const [name, list] of Object.entries(runs)) {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  rows.push(
    `| engine ${name} | ${ms(median(list.map((r) => r.firstCall)))} | ${ms(median(list.flatMap((r) => r.rounds)))} |`,
  );
}
process.stdout.write(
  [
    `Engine inside one sandbox (prototype): 3 engines per variant, interleaved, ${TURNS} Bash calls each after the first; medians`,
    '| variant | engine start → first model call | Bash round trip (tool_use → tool_result) |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
process.exit(0);
