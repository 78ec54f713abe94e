import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuGroup } from './cpuGroup.js';
import { asRoot, standInControlPlane, startWorker, writable } from './engineHarness.js';
import { bwrapRecorder, hasBubblewrap, measureSteps, median, recordedCall, steps } from './sandboxSteps.js';
import { Client, KEY } from './support.js';

/**
 * What the tool boundary costs (scripts/bench-worker-boundary.sh), in one run: the built worker with the
 * real engine against a stand-in model that answers at once, once per sandbox mode (`off` is no boundary):
 * the first turn of a conversation (engine start), a follow-up turn (warm engine), both without tools, and
 * a follow-up with one Bash call (`true`) with its round trip from `tool.started` to `tool.completed` on the
 * stream. Medians over BENCH_TURNS per conversation × 3 conversations; beside them the CPU the worker and
 * everything it started used per turn (cpuGroup.ts), which the machine's load barely changes. Then
 * each mode against `off`, and where one sandboxed call's time goes (sandboxSteps.ts).
 */
const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const MODES = (process.env.BENCH_MODES ?? 'off,on,nested,engine,engine-nested').split(',');

interface Timed {
  ms: number;
  /** To the first model call the turn made. */
  firstCall: number;
  /** tool.started → tool.completed as the stream delivered them; -1 without a tool call. */
  round: number;
  /** CPU of the worker and everything it started during the turn, and of that the engines' own. */
  cpu: number;
  engineCpu: number;
  lastId: string | undefined;
}

interface Figures {
  mode: string;
  first: number;
  firstCall: number;
  followUp: number;
  followUpCall: number;
  toolTurn: number;
  round: number;
  cpuFollowUp: number;
  cpuToolTurn: number;
  engineFollowUp: number;
  engineToolTurn: number;
}

interface Cpu {
  all(): number;
  engines(): number;
}

async function timedTurn(
  cpu: Cpu,
  modelCalls: number[],
  client: Client,
  id: string,
  text: string,
  after: string | undefined,
): Promise<Timed> {
  const cpuBefore = cpu.all();
  const engineBefore = cpu.engines();
  const started = performance.now();
  const arrivals: number[] = [];
  const streamed = client.events(
    id,
    (e) => {
      while (arrivals.length < e.length) arrivals.push(performance.now());
      return e.some((x) => x.type === 'turn.completed' || x.type === 'turn.failed');
    },
    after,
    120_000,
  );
  const answer = await client.message(id, randomUUID(), text);
  if (answer.status !== 202) throw new Error(`message answered ${answer.status}`);
  const all = await streamed;
  const ms = performance.now() - started;
  const mine = all.filter((e) => e.type !== 'session.status');
  const end = mine.find((e) => e.type === 'turn.completed' || e.type === 'turn.failed');
  if (end?.type !== 'turn.completed') throw new Error(`turn ended ${JSON.stringify(end)}`);
  const toolStart = all.findIndex((e) => e.type === 'tool.started');
  const toolEnd = all.findIndex((e) => e.type === 'tool.completed');
  const round = toolStart >= 0 && toolEnd >= 0 ? (arrivals[toolEnd] ?? 0) - (arrivals[toolStart] ?? 0) : -1;
  return {
    ms,
    firstCall: (modelCalls.find((t) => t >= started) ?? Number.NaN) - started,
    round,
    cpu: cpu.all() - cpuBefore,
    engineCpu: cpu.engines() - engineBefore,
    lastId: all.at(-1)?.id ?? after,
  };
}

function pod(mode: string, extraPath?: string) {
  const root = mkdtempSync(join(tmpdir(), 'talkide-bench-'));
  if (asRoot) chmodSync(root, 0o755);
  const tmp = writable(root, 'tmp');
  const workspace = writable(root, 'workspace');
  return {
    root,
    workspace,
    env: {
      HOME: join(tmp, 'home'),
      TMPDIR: tmp,
      ...(extraPath ? { PATH: `${extraPath}:${process.env.PATH}` } : {}),
      CLAUDE_CONFIG_DIR: writable(root, 'sessions'),
      TALKIDE_WORKSPACE_DIR: workspace,
      TALKIDE_TENANT: 'acme',
      TALKIDE_ENV: 'dev',
      TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_bench',
      TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
      TALKIDE_WORKER_PORT: '0',
      TALKIDE_WORKER_HOST: '127.0.0.1',
      TALKIDE_WORKER_STOP_GRACE: 'PT0S',
      TALKIDE_WORKER_SANDBOX: mode,
    },
  };
}

async function bench(mode: string): Promise<Figures> {
  const controlPlane = await standInControlPlane();
  controlPlane.commands.set('true', 'true');
  const p = pod(mode);
  const group = CpuGroup.open(mode);
  const worker = await startWorker({ ...p.env, TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString() });
  group?.add(worker.child.pid as number); // before its first engine: the engines and their commands follow it
  const cpu = {
    all: () => group?.usageMs() ?? Number.NaN,
    engines: () => group?.ownCpuMs('claude') ?? Number.NaN, // the engine's executable is called claude
  };
  try {
    const client = new Client(`http://127.0.0.1:${worker.port}`);
    const first: Timed[] = [];
    const followUps: Timed[] = [];
    const toolTurns: Timed[] = [];
    for (let c = 0; c < 3; c++) {
      const id = randomUUID();
      await client.open(id);
      let turn = await timedTurn(cpu, controlPlane.modelCalls, client, id, 'Say hi.', undefined);
      first.push(turn);
      for (let i = 0; i < TURNS; i++) {
        turn = await timedTurn(cpu, controlPlane.modelCalls, client, id, 'Say hi again.', turn.lastId);
        followUps.push(turn);
        turn = await timedTurn(cpu, controlPlane.modelCalls, client, id, 'RUN true', turn.lastId);
        toolTurns.push(turn);
      }
    }
    const mean = (turns: Timed[], of: (t: Timed) => number = (t) => t.cpu) =>
      turns.reduce((sum, t) => sum + of(t), 0) / turns.length;
    return {
      mode,
      first: median(first.map((t) => t.ms)),
      firstCall: median(first.map((t) => t.firstCall)),
      followUp: median(followUps.map((t) => t.ms)),
      followUpCall: median(followUps.map((t) => t.firstCall)),
      toolTurn: median(toolTurns.map((t) => t.ms)),
      round: median(toolTurns.map((t) => t.round)),
      cpuFollowUp: mean(followUps),
      cpuToolTurn: mean(toolTurns),
      engineFollowUp: mean(followUps, (t) => t.engineCpu),
      engineToolTurn: mean(toolTurns, (t) => t.engineCpu),
    };
  } finally {
    await worker.stop();
    group?.close();
    controlPlane.close();
    rmSync(p.root, { recursive: true, force: true });
  }
}

/** One Bash call in `mode` with bubblewrap recorded, then its steps replayed while the engine still runs. */
async function stepsOf(mode: string): Promise<string[]> {
  const record = mkdtempSync(join(tmpdir(), 'talkide-bwrap-'));
  const group = CpuGroup.open('steps');
  const controlPlane = await standInControlPlane();
  controlPlane.commands.set('true', 'true');
  const p = pod(mode, bwrapRecorder(record));
  const worker = await startWorker({ ...p.env, TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString() });
  try {
    const client = new Client(`http://127.0.0.1:${worker.port}`);
    const id = randomUUID();
    await client.open(id);
    const turn = await timedTurn({ all: () => 0, engines: () => 0 }, [], client, id, 'RUN true', undefined);
    if (turn.round < 0) throw new Error('the recording turn made no Bash call');
    const call = recordedCall(record);
    // This process joins the group now: the steps it starts are counted, the worker and its engine are not.
    group?.add(process.pid);
    const cpu = group ? () => group.usageMs() : undefined;
    return measureSteps(
      steps(call, p.workspace),
      p.workspace,
      { PATH: '/usr/bin:/bin', HOME: p.env.HOME },
      cpu,
    );
  } finally {
    group?.close();
    await worker.stop();
    controlPlane.close();
    rmSync(p.root, { recursive: true, force: true });
    rmSync(record, { recursive: true, force: true });
  }
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
const figures: Figures[] = [];
for (const mode of MODES) figures.push(await bench(mode));
const lines = [
  `Tool boundary, real engine, stand-in model answering at once; medians, 3 conversations × ${TURNS} turns;`,
  'CPU: mean per turn of the worker and everything it started (engines, their commands, their sandboxes)',
  'First turn and follow-up: to the first model call / to turn.completed',
  '| sandbox | first turn | follow-up turn | follow-up with one Bash call | Bash round trip | CPU, follow-up | CPU, Bash follow-up |',
  '|---|---|---|---|---|---|---|',
  ...figures.map(
    (f) =>
      `| ${f.mode} | ${ms(f.firstCall)} / ${ms(f.first)} | ${ms(f.followUpCall)} / ${ms(f.followUp)} | ${ms(f.toolTurn)} | ` +
      `${ms(f.round)} | ${ms(f.cpuFollowUp)} | ${ms(f.cpuToolTurn)} |`,
  ),
  '',
];
const off = figures.find((f) => f.mode === 'off');
if (off) {
  const vs = (v: number, base: number) =>
    `${v - base >= 0 ? '+' : ''}${(v - base).toFixed(0)} ms (×${(v / base).toFixed(2)})`;
  lines.push(
    'Against no boundary (off), same run',
    '| sandbox | first turn (to the first model call) | follow-up turn (to the first model call) | Bash round trip | CPU per Bash call | of it in the engine process |',
    '|---|---|---|---|---|---|',
    ...figures
      .filter((f) => f !== off)
      .map(
        (f) =>
          `| ${f.mode} | ${vs(f.firstCall, off.firstCall)} | ${vs(f.followUpCall, off.followUpCall)} | ${vs(f.round, off.round)} | ` +
          `${vs(f.cpuToolTurn - f.cpuFollowUp, off.cpuToolTurn - off.cpuFollowUp)} | ` +
          `${vs(f.engineToolTurn - f.engineFollowUp, off.engineToolTurn - off.engineFollowUp)} |`,
      ),
    '',
  );
}
// The steps of Claude Code's per-command sandbox; the engine modes have none per call.
const sandboxed = MODES.filter((m) => m === 'on' || m === 'nested');
if (sandboxed.length > 0 && hasBubblewrap() && process.env.BENCH_STEPS !== '0') {
  const mode = sandboxed.includes('nested') ? 'nested' : (sandboxed[0] as string);
  lines.push(
    `Where one sandboxed Bash call goes (${mode}): the engine's recorded bubblewrap call replayed, one part taken out at a time`,
    '| step | wall (median) | CPU (mean) |',
    '|---|---|---|',
    ...(await stepsOf(mode)),
    '',
  );
}
process.stdout.write(lines.join('\n'));
process.exit(0);
