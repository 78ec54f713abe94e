import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { ENGINE_MODEL_PORT, type ProxyGrant } from './gatewayProxy.js';
import type { RemoteMcpServer } from './mcp.js';
import { FIRST_MCP_PORT, relayMcpServer } from './mcpRelay.js';
import { SessionFiles } from './sessionFiles.js';

/**
 * The engine sandbox (`TALKIDE_WORKER_SANDBOX=engine`, docs/security.md): the engine and everything it runs
 * inside one bubblewrap sandbox the worker starts with it, instead of a sandbox per Bash call. Its own user,
 * PID, IPC, UTS and network namespaces; `/` read-only with the sessions, the Secret's files, the worker's
 * home and temporary space hidden under empty tmpfs; writable only the working tree, the conversation's own
 * CLAUDE_CONFIG_DIR and the engine's own `/tmp`. Its one way out is its model socket: the worker's gateway
 * proxy listens on a Unix socket made for this engine alone, bridged by socat to a loopback port of the
 * sandbox's network namespace.
 */
const INSIDE_RUN = '/run/talkide';
const MODEL_SOCKET = 'model.sock';

/** A conversation's own CLAUDE_CONFIG_DIR: in its session directory, mounted without the event log beside it. */
export function conversationConfigDir(configDir: string, conversationId: string): string {
  return join(SessionFiles.directory(configDir, conversationId), 'claude');
}

/**
 * A conversation begun with the shared CLAUDE_CONFIG_DIR (another sandbox mode) keeps its transcript
 * there, under `projects/<working tree>/`; its first engine in a sandbox moves it into the conversation's
 * own directory, the same project name kept, so the engine resumes it with its earlier turns.
 */
export function adoptSharedTranscript(configDir: string, conversationId: string): void {
  const shared = join(configDir, 'projects');
  if (!existsSync(shared)) return;
  const own = join(conversationConfigDir(configDir, conversationId), 'projects');
  for (const project of readdirSync(shared)) {
    // The transcript, and the directory of its subagents' and large tool results, if any.
    for (const name of [`${conversationId}.jsonl`, conversationId]) {
      const from = join(shared, project, name);
      const to = join(own, project, name);
      if (existsSync(from) && !existsSync(to)) {
        mkdirSync(join(own, project), { recursive: true });
        renameSync(from, to);
      }
    }
  }
}

/**
 * One engine's private space on the worker's side: its sockets (`run/`, the model's and one per remote
 * MCP server) and its `/tmp` (home inside); removed, its sockets closed, when the engine's grant is revoked.
 */
export class EngineRuntime {
  readonly dir: string;
  readonly modelSocket: string;
  /** Loopback ports inside the sandbox and the sockets (in `run/`) they are bridged to. */
  readonly bridges: { port: number; socket: string }[] = [];
  private readonly closers: (() => void)[] = [];

  constructor(parent: string = runtimesDir()) {
    // Short on purpose: a Unix socket's path has at most 107 bytes.
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    this.dir = mkdtempSync(join(parent, 'e-'));
    mkdirSync(join(this.dir, 'run'));
    mkdirSync(join(this.dir, 'tmp', 'home'), { recursive: true });
    this.modelSocket = join(this.dir, 'run', MODEL_SOCKET);
    this.bridges.push({ port: ENGINE_MODEL_PORT, socket: MODEL_SOCKET });
  }

  /**
   * The operator's remote MCP servers as the engine is to dial them: each relayed through a socket of
   * this runtime (mcpRelay.ts), credentials added outside. Other entries (in-process servers) are kept.
   */
  relay<T>(servers: Record<string, T | RemoteMcpServer>): Record<string, T | RemoteMcpServer> {
    const relayed: Record<string, T | RemoteMcpServer> = {};
    for (const [name, server] of Object.entries(servers)) {
      if (!isRemote(server)) {
        relayed[name] = server;
        continue;
      }
      const port = FIRST_MCP_PORT + this.bridges.length - 1;
      const socket = `mcp-${this.bridges.length}.sock`;
      const relay = relayMcpServer(server, join(this.dir, 'run', socket), port);
      this.closers.push(relay.close);
      this.bridges.push({ port, socket });
      relayed[name] = relay.config;
    }
    return relayed;
  }

  remove(): void {
    for (const close of this.closers.splice(0)) close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** This worker process's engine runtimes: one directory, so a later worker can tell them from live ones. */
export function runtimesDir(base: string = tmpdir(), pid: number = process.pid): string {
  return join(base, `talkide-engines-${pid}`);
}

/**
 * Removes the runtimes of workers that are gone (killed before they could revoke them): a pod's `/tmp`
 * outlives a container restart, and the new worker may even have the old one's pid. Live workers' stay
 * (local mode runs several on one machine).
 */
export function removeStaleRuntimes(base: string = tmpdir(), pid: number = process.pid): void {
  for (const name of readdirSync(base)) {
    const owner = /^talkide-engines-(\d+)$/.exec(name)?.[1];
    if (owner !== undefined && (Number(owner) === pid || !isAlive(Number(owner)))) {
      rmSync(join(base, name), { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

function isRemote(server: unknown): server is RemoteMcpServer {
  const s = server as Partial<RemoteMcpServer>;
  return (s.type === 'http' || s.type === 'sse') && typeof s.url === 'string';
}

/** An engine sandbox's grant: the proxy on the runtime's model socket, revoked with the runtime. */
export interface BoxedGrant extends ProxyGrant {
  runtime: EngineRuntime;
}

export interface EngineBox {
  /** A fresh `/proc` for the sandbox's PID namespace; false binds the pod's (pods that cannot mount one). */
  freshProc: boolean;
  runtime: EngineRuntime;
  /** The conversation's own CLAUDE_CONFIG_DIR. */
  configDir: string;
  workspaceDir: string;
  /** Hidden under an empty tmpfs: the shared sessions, the Secret's files, the worker's home and temp. */
  hidden: string[];
}

/** The environment inside: home and temporary space are the engine's own. */
export const BOXED_ENVIRONMENT = { HOME: '/tmp/home', TMPDIR: '/tmp' } as const;
export const BOXED_MODEL_URL = `http://127.0.0.1:${ENGINE_MODEL_PORT}`;

/** bubblewrap's command line running `command args` in the box, the model bridge started first. */
export function boxedCommand(box: EngineBox, command: string, args: string[]): string[] {
  // Parents before children, so a hidden directory inside another is not mounted over by its parent. A
  // directory holding the engine's own executable (a worker installed under a developer's home) stays.
  const executable = existsSync(command) ? realpathSync(command) : command;
  const hidden = [...new Set(box.hidden.filter((dir) => existsSync(dir)).map((dir) => realpathSync(dir)))]
    .filter((dir) => dir !== '/' && !executable.startsWith(`${dir}/`))
    .sort((a, b) => a.length - b.length);
  const bridges = box.runtime.bridges
    .map(
      ({ port, socket }) =>
        `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${INSIDE_RUN}/${socket} & `,
    )
    .join('');
  return [
    'bwrap',
    ...['--die-with-parent', '--new-session'],
    ...['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-uts'],
    ...['--ro-bind', '/', '/', '--dev', '/dev'],
    ...(box.freshProc ? ['--proc', '/proc'] : ['--bind', '/proc', '/proc']),
    ...hidden.flatMap((dir) => ['--tmpfs', dir]),
    // /run holds runtime sockets and, in a pod, often the service account's and other Secrets.
    ...['--tmpfs', '/run'],
    ...['--bind', join(box.runtime.dir, 'tmp'), '/tmp'],
    // The engine's own /tmp covers the machine's: an engine installed there (a checkout under /tmp) is bound
    // back, read-only, or the sandbox could not start it.
    ...(executable.startsWith('/tmp/') ? ['--ro-bind', dirname(executable), dirname(executable)] : []),
    ...['--bind', join(box.runtime.dir, 'run'), INSIDE_RUN],
    ...['--bind', box.configDir, box.configDir],
    ...['--bind', box.workspaceDir, box.workspaceDir],
    ...['--chdir', box.workspaceDir],
    '--',
    ...['/bin/sh', '-c', `${bridges}exec "$@"`, 'engine', command, ...args],
  ];
}

/** Starts the SDK's engine inside the box, through the worker's own spawn when it has one. */
export function boxedSpawn(
  box: EngineBox,
  spawnEngine: ((options: SpawnOptions) => SpawnedProcess) | undefined,
): (options: SpawnOptions) => SpawnedProcess {
  mkdirSync(box.configDir, { recursive: true });
  return (options) => {
    const [command, ...args] = boxedCommand(box, options.command, options.args);
    const boxed: SpawnOptions = { ...options, command: command as string, args };
    if (spawnEngine) return spawnEngine(boxed);
    return spawn(boxed.command, boxed.args, {
      cwd: boxed.cwd,
      env: boxed.env,
      signal: boxed.signal,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  };
}
