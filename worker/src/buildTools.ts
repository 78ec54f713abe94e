import { createSdkMcpServer, type McpServerConfig, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import type { Agent } from './agent.js';
import { type BuildApi, BuildApiError, type BuildRequest, type BuildView } from './buildApi.js';

/**
 * Mara's `talkide-builds` MCP server (in-process): `run_build` starts a build the control plane runs as
 * a Kubernetes Job, streams its log as progress and returns the outcome with the log's tail;
 * `build_status` reads a build's state. Cancelling Mara's turn cancels the build it waits for.
 */
export const BUILD_SERVER = 'talkide-builds';
const TAIL_LINES = 60;

/** The running turn's abort signal per conversation, recorded by wrapping the agent (see worker.ts). */
export class TurnSignals {
  private readonly signals = new Map<string, AbortSignal>();

  track(agent: Agent): Agent {
    return (turn) => {
      this.signals.set(turn.conversationId, turn.signal);
      return agent(turn);
    };
  }

  current(conversationId: string): AbortSignal | undefined {
    return this.signals.get(conversationId);
  }
}

export type Progress = (message: string, linesSoFar: number) => void;

export type ToolResult = {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
};

/** Starts a build, follows it to its end and describes the outcome; aborting the signal cancels it. */
export async function runBuild(
  api: BuildApi,
  conversationId: string,
  request: BuildRequest,
  signal: AbortSignal,
  progress: Progress,
): Promise<ToolResult> {
  let build: BuildView;
  try {
    build = await api.start(conversationId, request);
  } catch (e) {
    return error(`The build could not be started: ${message(e)}`);
  }
  progress(
    build.state === 'queued'
      ? `build ${build.id} queued (position ${build.queuePosition})`
      : `build ${build.id} started`,
    0,
  );
  const tail: string[] = [];
  let lines = 0;
  const onAbort = () => {
    // Fire and forget: the turn is ending; the control plane deletes the Job.
    api.cancel(conversationId, build.id).catch(() => {});
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const end = await api.followLog(
      conversationId,
      build.id,
      (line) => {
        lines++;
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        progress(line, lines);
      },
      signal,
    );
    const seconds = end.durationMs === null ? '' : ` in ${(end.durationMs / 1000).toFixed(1)} s`;
    const head = `Build ${build.id} ${end.state}${seconds}${end.reason ? `: ${end.reason}` : ''}.`;
    const text = `${head}\nLast ${tail.length} of ${lines} log lines:\n${tail.join('\n')}`;
    return end.state === 'succeeded' ? { content: [{ type: 'text', text }] } : error(text);
  } catch (e) {
    if (signal.aborted) {
      return error(`Build ${build.id} was cancelled with the turn.`);
    }
    return error(`Build ${build.id}: its log could not be followed (${message(e)}); ask build_status.`);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export async function buildStatus(
  api: BuildApi,
  conversationId: string,
  buildId: string,
): Promise<ToolResult> {
  try {
    const build = await api.get(conversationId, buildId);
    const parts = [`Build ${build.id} (${build.kind}) is ${build.state}`];
    if (build.state === 'queued') parts.push(`position ${build.queuePosition} in the queue`);
    if (build.durationMs !== null) parts.push(`${(build.durationMs / 1000).toFixed(1)} s`);
    if (build.reason) parts.push(build.reason);
    return { content: [{ type: 'text', text: `${parts.join(', ')}.` }] };
  } catch (e) {
    return error(`No status for build ${buildId}: ${message(e)}`);
  }
}

export function buildServer(conversationId: string, api: BuildApi, signals: TurnSignals): McpServerConfig {
  return createSdkMcpServer({
    name: BUILD_SERVER,
    version: '1.0.0',
    tools: [
      tool(
        'run_build',
        'Build and test the project, or build and push a container image, in a separate build Job (not in this ' +
          'sandbox). Waits for the end and returns the outcome with the last log lines. gradle: tasks such as ' +
          '["test"] and optional arguments. image: a Dockerfile and context relative to the working tree and a ' +
          "destination inside the tenant's registry.",
        {
          kind: z.enum(['gradle', 'image']),
          tasks: z.array(z.string().min(1).max(200)).max(20).optional(),
          arguments: z.array(z.string().min(1).max(500)).max(50).optional(),
          dockerfile: z.string().min(1).max(300).optional(),
          context: z.string().min(1).max(300).optional(),
          destination: z.string().min(1).max(250).optional(),
        },
        async (args, extra) => {
          const signal = anySignal([signals.current(conversationId), signalOf(extra)]);
          return runBuild(api, conversationId, args, signal, progressOf(extra));
        },
        { alwaysLoad: true },
      ),
      tool(
        'build_status',
        'The state of a build started with run_build: queued (with its queue position), running, succeeded, failed or cancelled.',
        { buildId: z.string().uuid() },
        async (args) => buildStatus(api, conversationId, args.buildId),
      ),
    ],
  });
}

/** MCP progress notifications, when the client asked for them with a progress token. */
function progressOf(extra: unknown): Progress {
  const e = extra as {
    _meta?: { progressToken?: string | number };
    sendNotification?: (n: { method: string; params: Record<string, unknown> }) => Promise<void>;
  };
  const token = e?._meta?.progressToken;
  if (token === undefined || typeof e.sendNotification !== 'function') {
    return () => {};
  }
  const send = e.sendNotification;
  return (message, progress) => {
    send({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(
      () => {},
    );
  };
}

function signalOf(extra: unknown): AbortSignal | undefined {
  const signal = (extra as { signal?: unknown } | null)?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 0 ? new AbortController().signal : AbortSignal.any(present);
}

function error(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function message(e: unknown): string {
  return e instanceof BuildApiError || e instanceof Error ? e.message : String(e);
}
