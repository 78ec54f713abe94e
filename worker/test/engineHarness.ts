import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * The built worker as a pod runs it (its own process, as uid 10001 when the tests run as root), the real
 * engine, and a stand-in control plane whose model plays a script: a user message `RUN <key>` is answered
 * with one Bash tool use running the command registered under that key, the tool's result with a short
 * text. Everything the engine sends to the model is kept, so a test can read what a tool printed.
 */
export const WORKER_UID = 10001;
export const asRoot = process.getuid?.() === 0;
const INSTALL = resolve(import.meta.dirname, '..', '..');

export interface StandIn {
  url: URL;
  /** Commands by key: `RUN <key>` in a user message makes the model call Bash with it. */
  commands: Map<string, string>;
  /** Every gateway request path the control plane saw (anything else reaching it shows up here). */
  paths: string[];
  /** Every model request's body, in order. */
  modelRequests: ModelRequest[];
  /** When each model call (`/v1/messages`) arrived, by `performance.now()`. */
  modelCalls: number[];
  close(): void;
}

export async function standInControlPlane(): Promise<StandIn> {
  const commands = new Map<string, string>();
  const paths: string[] = [];
  const modelRequests: ModelRequest[] = [];
  const modelCalls: number[] = [];
  const server: Server = createServer((req, res) => {
    if (
      req.url?.startsWith('/api/internal/gateway/anthropic/v1/messages?') ||
      req.url === '/api/internal/gateway/anthropic/v1/messages'
    ) {
      modelCalls.push(performance.now());
    }
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      paths.push(`${req.method} ${req.url}`);
      if (req.url === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt","expiresIn":120}');
      } else if (req.url?.startsWith('/api/internal/gateway/anthropic/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
      } else if (req.url?.startsWith('/api/internal/gateway/anthropic/v1/messages')) {
        const request = JSON.parse(body || '{}') as ModelRequest;
        modelRequests.push(request);
        model(res, request, commands);
      } else {
        res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    commands,
    paths,
    modelRequests,
    modelCalls,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export interface ModelRequest {
  model?: string;
  stream?: boolean;
  tools?: { name?: string }[];
  messages?: { role: string; content: unknown }[];
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : ''))
    .join('');
}

function model(res: ServerResponse, request: ModelRequest, commands: Map<string, string>): void {
  const messages = request.messages ?? [];
  const last = messages.at(-1);
  const answeredTool =
    Array.isArray(last?.content) && last.content.some((b: { type?: string }) => b.type === 'tool_result');
  // Only the message this turn answers: an earlier turn's RUN must not make a later turn call a tool.
  const key = last?.role === 'user' ? /RUN (\S+)/.exec(textOf(last.content))?.[1] : undefined;
  const command = key ? commands.get(key) : undefined;
  // `READ <path>`: one Read tool use of that file.
  const readPath = last?.role === 'user' ? /READ (\S+)/.exec(textOf(last.content))?.[1] : undefined;
  if (!answeredTool && readPath && request.tools?.some((t) => t.name === 'Read')) {
    stream(
      res,
      request,
      {
        type: 'tool_use',
        id: `toolu_${randomUUID().replaceAll('-', '')}`,
        name: 'Read',
        input: { file_path: readPath },
      },
      'tool_use',
    );
    return;
  }
  const wantsTool = !answeredTool && command !== undefined && request.tools?.some((t) => t.name === 'Bash');
  const blocks = wantsTool
    ? [
        {
          type: 'tool_use',
          id: `toolu_${randomUUID().replaceAll('-', '')}`,
          name: 'Bash',
          input: { command, description: 'probe' },
        },
      ]
    : [{ type: 'text', text: 'Done.' }];
  const stopReason = wantsTool ? 'tool_use' : 'end_turn';
  stream(res, request, blocks[0] as Record<string, unknown>, stopReason);
}

function stream(
  res: ServerResponse,
  request: ModelRequest,
  block: Record<string, unknown>,
  stopReason: string,
): void {
  const message = { id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', model: request.model };
  const usage = { input_tokens: 10, output_tokens: 2 };
  const blocks = [block];
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...message, content: [], stop_reason: null, usage } });
  if (block.type === 'tool_use') {
    event('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    event('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
    });
  } else {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: stopReason }, usage: { output_tokens: 3 } });
  event('message_stop', {});
  res.end();
}

/** Writable for the worker, as a volume or an emptyDir is in the pod. */
export function writable(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (asRoot) chownSync(dir, WORKER_UID, WORKER_UID);
  return dir;
}

export interface RunningWorker {
  child: ChildProcess;
  port: number;
  /** Everything the worker logged so far. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts `dist/src/main.js` with exactly `env` (plus PATH), as uid 10001 when run as root. */
export function startWorker(env: Record<string, string>): Promise<RunningWorker> {
  const command = asRoot
    ? ['setpriv', `--reuid=${WORKER_UID}`, `--regid=${WORKER_UID}`, '--clear-groups', process.execPath]
    : [process.execPath];
  const child = spawn(command[0] as string, [...command.slice(1), 'dist/src/main.js'], {
    cwd: INSTALL,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(kill);
        done();
      });
      child.kill('SIGTERM');
    });
  let output = '';
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start: ${output}`)), 60_000);
    timer.unref();
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"message":"TalkIDE worker listening".*"port":(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(match[1]), stop, log: () => output });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`the worker exited (${code}): ${output}`)));
  });
}

/** The processes whose environment holds `entry` (e.g. this test's engines, by their CLAUDE_CONFIG_DIR). */
export function processesWith(entry: string): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
      } catch {
        return false;
      }
    });
}

/** A variable of a process's initial environment. */
export function environOf(pid: string, name: string): string | undefined {
  const line = readFileSync(`/proc/${pid}/environ`, 'latin1')
    .split('\0')
    .find((l) => l.startsWith(`${name}=`));
  assert.ok(line, `process ${pid} has no ${name}`);
  return line.slice(name.length + 1);
}

export function hasVariable(pid: string, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .some((l) => l.startsWith(`${name}=`));
  } catch {
    return false;
  }
}

/** The engines a worker process started: its children that hold an engine's capability. */
export function enginesOf(workerPid: number): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === workerPid && hasVariable(pid, 'ANTHROPIC_AUTH_TOKEN');
      } catch {
        return false;
      }
    });
}
