import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asRoot, standInControlPlane, startWorker, writable } from './engineHarness.js';
import { Client, KEY } from './support.js';

/**
 * What the tool boundary costs (scripts/bench-worker-boundary.sh): the built worker with the real engine
 * against a stand-in model that answers at once, per sandbox mode (`off` is no boundary): the first turn
 * of a conversation (engine start), a follow-up turn (warm engine), both without tools, and a Bash tool
 * round trip (`true`), from `tool.started` to `tool.completed` on the stream. Medians over BENCH_TURNS.
 */
const TURNS = Number(process.env.BENCH_TURNS ?? 10);
const MODES = (process.env.BENCH_MODES ?? 'off,on,nested').split(',');

interface Timed {
  ms: number;
  /** tool.started → tool.completed as the stream delivered them; -1 without a tool call. */
  round: number;
  lastId: string | undefined;
}

async function timedTurn(
  client: Client,
  id: string,
  text: string,
  after: string | undefined,
): Promise<Timed> {
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
  const mine = all.filter((e) => e.type !== 'session.status');
  const end = mine.find((e) => e.type === 'turn.completed' || e.type === 'turn.failed');
  if (end?.type !== 'turn.completed') throw new Error(`turn ended ${JSON.stringify(end)}`);
  const toolStart = all.findIndex((e) => e.type === 'tool.started');
  const toolEnd = all.findIndex((e) => e.type === 'tool.completed');
  const round = toolStart >= 0 && toolEnd >= 0 ? (arrivals[toolEnd] ?? 0) - (arrivals[toolStart] ?? 0) : -1;
  return { ms: performance.now() - started, round, lastId: all.at(-1)?.id ?? after };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function bench(mode: string): Promise<string> {
  const controlPlane = await standInControlPlane();
  controlPlane.commands.set('true', 'true');
  const root = mkdtempSync(join(tmpdir(), 'talkide-bench-'));
  if (asRoot) chmodSync(root, 0o755);
  const tmp = writable(root, 'tmp');
  const worker = await startWorker({
    HOME: join(tmp, 'home'),
    TMPDIR: tmp,
    CLAUDE_CONFIG_DIR: writable(root, 'sessions'),
    TALKIDE_WORKSPACE_DIR: writable(root, 'workspace'),
    TALKIDE_TENANT: 'acme',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: controlPlane.url.toString(),
    TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_bench',
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(KEY).toString('base64url')}`,
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
    TALKIDE_WORKER_STOP_GRACE: 'PT0S',
    TALKIDE_WORKER_SANDBOX: mode,
  });
  try {
    const client = new Client(`http://127.0.0.1:${worker.port}`);
    const first: number[] = [];
    const followUps: number[] = [];
    const rounds: number[] = [];
    const toolTurns: number[] = [];
    for (let c = 0; c < 3; c++) {
      const id = randomUUID();
      await client.open(id);
      let turn = await timedTurn(client, id, 'Say hi.', undefined);
      first.push(turn.ms);
      for (let i = 0; i < TURNS; i++) {
        turn = await timedTurn(client, id, 'Say hi again.', turn.lastId);
        followUps.push(turn.ms);
        turn = await timedTurn(client, id, 'RUN true', turn.lastId);
        toolTurns.push(turn.ms);
        rounds.push(turn.round);
      }
    }
    const f = (v: number) => `${v.toFixed(0)} ms`;
    return `| ${mode} | ${f(median(first))} | ${f(median(followUps))} | ${f(median(toolTurns))} | ${f(median(rounds))} |`;
  } finally {
    await worker.stop();
    controlPlane.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const rows: string[] = [];
for (const mode of MODES) rows.push(await bench(mode));
process.stdout.write(
  [
    `Tool boundary, real engine, stand-in model answering at once; medians, 3 conversations × ${TURNS} turns`,
    '| sandbox | first turn | follow-up turn | follow-up with one Bash call | Bash round trip (tool.started → tool.completed) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
process.exit(0);
