import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { asRoot, WORKER_UID } from './engineHarness.js';

/**
 * Where one sandboxed Bash call's time goes (scripts/bench-worker-boundary.sh): the engine's own bubblewrap
 * invocation, captured from a real turn by a `bwrap` first on the engine's PATH that records its arguments,
 * is replayed with one part taken out at a time. Each step runs BENCH_STEP_RUNS times, interleaved with the
 * others so that the machine's load falls on all alike, as uid 10001 with the engine's binary on fd 3 as the
 * engine passes it (its seccomp helper). Wall time is the median; CPU the mean of what the step's processes
 * used (this process's own share, spawning and waiting, is in every step alike).
 */
const RUNS = Number(process.env.BENCH_STEP_RUNS ?? 20);
const ENGINE = createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const SECCOMP = /SRT_ALLOW_NESTED_USERNS=\d ARGV0=apply-seccomp \/proc\/self\/fd\/3 /;
const REPOSITORY = resolve(import.meta.dirname, '..', '..', '..');

/** A directory to put first on the worker's PATH: its `bwrap` records each sandboxed command in `dir`. */
export function bwrapRecorder(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const real = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim();
  // Only the command wrappers (they carry `--unshare-net`), not the engine's `--version` probes.
  writeFileSync(
    join(bin, 'bwrap'),
    `#!/bin/sh\ncase " $* " in *" --unshare-net "*) printf '%s\\0' "$@" >"${dir}/call-$$" ;; esac\nexec ${real} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  chmodSync(dir, 0o777);
  chmodSync(join(bin, 'bwrap'), 0o755);
  return bin;
}

/** The arguments of the last recorded bubblewrap call whose command runs through the seccomp helper. */
export function recordedCall(dir: string): string[] {
  const calls = readdirSync(dir)
    .filter((f) => f.startsWith('call-'))
    .map((f) => readFileSync(join(dir, f), 'utf8').split('\0').slice(0, -1))
    .filter((argv) => SECCOMP.test(argv.at(-1) ?? ''));
  const call = calls.at(-1);
  if (!call) throw new Error(`no sandboxed Bash call recorded in ${dir}`);
  return call;
}

interface Step {
  name: string;
  command: string;
  args: string[];
  /** Exit codes that mean it ran (ripgrep answers 1 when it lists nothing). */
  ok?: number[];
}

/** The steps, from the engine's exact call down to a plain shell; `cwd` is the working tree of the call. */
export function steps(call: string[], cwd: string): Step[] {
  const split = call.indexOf('--');
  // The engine's synchronisation pipes are not ours to pass on.
  const options = dropOptions(
    call.slice(0, split),
    new Map([
      ['--sync-fd', 1],
      ['--info-fd', 1],
    ]),
  );
  const [shell, dashC, script] = call.slice(split + 1) as [string, string, string];
  const seccomp = SECCOMP.exec(script)?.[0] ?? '';
  const noBridges = dropOptions(options, new Map(), (o, a) => o === '--bind' && a.endsWith('.sock'));
  const noPlaceholders = dropOptions(noBridges, new Map(), (o, a) => o === '--ro-bind' && a === '/dev/null');
  const namespaces = options.filter(
    (o) => o.startsWith('--unshare') || o === '--new-session' || o === '--die-with-parent',
  );
  const proc = options.includes('--proc') ? ['--proc', '/proc'] : ['--bind', '/proc', '/proc'];
  const bwrap = 'bwrap';
  const scan = (tree: string) => [
    ...['--files', '--hidden', '--no-ignore', '--no-config', '--line-buffered', '--max-depth', '4'],
    ...[
      '.gitconfig',
      '.gitmodules',
      '.bashrc',
      '.bash_profile',
      '.zshrc',
      '.zprofile',
      '.profile',
      '.ripgreprc',
    ]
      .concat(['.mcp.json', '**/.vscode/**', '**/.idea/**', '**/.claude/commands/**', '**/.claude/agents/**'])
      .concat(['**/.git/hooks/**', '**/.git/HEAD', '**/.git/config'])
      .flatMap((glob) => ['--iglob', glob]),
    ...['-g', '!**/node_modules/**', tree],
  ];
  return [
    {
      name: 'the engine’s call (`true`, network bridges, seccomp helper, all mounts)',
      command: bwrap,
      args: [...options, '--', shell, dashC, script],
    },
    {
      name: 'without the seccomp helper',
      command: bwrap,
      args: [...options, '--', shell, dashC, script.replace(SECCOMP, '')],
    },
    {
      name: 'without the network bridges (seccomp helper kept)',
      command: bwrap,
      args: [...noBridges, '--', shell, dashC, `${seccomp}${shell} -c true`],
    },
    {
      name: 'without bridges and seccomp helper',
      command: bwrap,
      args: [...noBridges, '--', shell, dashC, 'true'],
    },
    {
      name: 'without the deny placeholders (`--ro-bind /dev/null …`) too',
      command: bwrap,
      args: [...noPlaceholders, '--', shell, dashC, 'true'],
    },
    {
      name: 'namespaces only (`--ro-bind / /`, /dev, /proc)',
      command: bwrap,
      args: [...namespaces, '--ro-bind', '/', '/', '--dev', '/dev', ...proc, '--', shell, dashC, 'true'],
    },
    {
      name: 'the seccomp helper alone (the engine’s binary again)',
      command: shell,
      args: [dashC, `${seccomp}${shell} -c true`],
    },
    { name: 'no sandbox (`bash -c true`)', command: shell, args: [dashC, 'true'] },
    { name: 'ripgrep scan of the working tree (empty)', command: 'rg', args: scan(cwd), ok: [0, 1] },
    {
      name: 'ripgrep scan of this repository as the working tree',
      command: 'rg',
      args: scan(REPOSITORY),
      ok: [0, 1],
    },
  ];
}

/**
 * Runs the steps interleaved; one Markdown row per step: wall median, and the mean CPU the step's processes
 * used when `cpu` (this process's cgroup's usage, cpuGroup.ts) is given.
 */
export function measureSteps(
  list: Step[],
  cwd: string,
  env: Record<string, string>,
  cpu: (() => number) | undefined,
): string[] {
  const engine = openSync(ENGINE, 'r');
  const walls = list.map(() => [] as number[]);
  const cpus = list.map(() => 0);
  try {
    for (let i = 0; i < RUNS; i++) {
      list.forEach((step, s) => {
        const cpuBefore = cpu?.() ?? 0;
        const started = performance.now();
        const result = spawnSync(step.command, step.args, {
          cwd,
          env,
          stdio: ['ignore', 'pipe', 'pipe', engine],
          ...(asRoot ? { uid: WORKER_UID, gid: WORKER_UID } : {}),
        });
        walls[s]?.push(performance.now() - started);
        cpus[s] = (cpus[s] ?? 0) + (cpu?.() ?? 0) - cpuBefore;
        if (!(step.ok ?? [0]).includes(result.status ?? -1)) {
          throw new Error(
            `${step.name}: exit ${result.status}: ${result.error ?? result.stderr?.toString().slice(0, 500)}`,
          );
        }
      });
    }
  } finally {
    closeSync(engine);
  }
  return list.map(
    (step, s) =>
      `| ${step.name} | ${median(walls[s] ?? []).toFixed(1)} ms | ${cpu ? `${((cpus[s] ?? 0) / RUNS).toFixed(1)} ms` : 'n/a'} |`,
  );
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Removes options with their arguments: `counts` by name, or pairs `--opt a b` that `pair` selects. */
function dropOptions(
  args: string[],
  counts: Map<string, number>,
  pair?: (option: string, source: string) => boolean,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = args[i] as string;
    const skip = counts.get(option);
    if (skip !== undefined) {
      i += skip;
    } else if (pair && ARITY[option] === 2 && pair(option, args[i + 1] as string)) {
      i += 2;
    } else {
      const arity = ARITY[option] ?? 0;
      out.push(...args.slice(i, i + arity + 1));
      i += arity;
    }
  }
  return out;
}

/** How many arguments each bubblewrap option the engine uses takes. */
const ARITY: Record<string, number> = {
  '--bind': 2,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--dev-bind': 2,
  '--symlink': 2,
  '--setenv': 2,
  '--tmpfs': 1,
  '--dev': 1,
  '--proc': 1,
  '--unsetenv': 1,
  '--hostname': 1,
  '--remount-ro': 1,
  '--cap-drop': 1,
  '--sync-fd': 1,
  '--info-fd': 1,
  '--chdir': 1,
};

export const hasBubblewrap = () =>
  existsSync('/usr/bin/bwrap') || spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;
