import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type McpServerConfig,
  type Options,
  query,
  type SpawnedProcess,
  type SpawnOptions,
} from '@anthropic-ai/claude-agent-sdk';
import { isEngineSandbox, type SandboxMode } from './config.js';
import {
  adoptSharedTranscript,
  BOXED_ENVIRONMENT,
  type BoxedGrant,
  boxedSpawn,
  conversationConfigDir,
} from './engineSandbox.js';
import type { ProxyGrant } from './gatewayProxy.js';

/**
 * Mara's engine. A turn is one SDK `query()`: the conversation id is the SDK session id (resumed on later
 * turns from the transcript under `CLAUDE_CONFIG_DIR`), the working tree is its cwd, partial messages are
 * on so text streams as it is generated. Headless: the allowed tools are listed and anything else is
 * denied (`dontAsk`), never asked about. The engine reaches the model only through the local gateway
 * proxy, with a capability of its own.
 */
export interface AgentTurn {
  conversationId: string;
  text: string;
  signal: AbortSignal;
}

/** Yields the SDK's messages for one turn; throws when the engine fails. */
export type Agent = (turn: AgentTurn) => AsyncIterable<unknown>;

export const DEFAULT_TOOLS = [
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'Glob',
  'Grep',
  'LS',
  'Bash',
  'TodoWrite',
];

export interface SdkAgentSettings {
  configDir: string;
  workspaceDir: string;
  model: string;
  /** A capability for one engine of the conversation at the local gateway proxy. */
  grant: (conversationId: string) => ProxyGrant;
  mcpServers: (conversationId: string) => Record<string, McpServerConfig>;
  /** Changes when the operator's MCP servers may have: a warm engine started with an older list is replaced. */
  mcpVersion?: () => number;
  /** How Bash is confined, and what no tool may read. */
  boundary: ToolBoundary;
  /** Starts the engine's process; the worker's own, so that its stop can wait for every engine. */
  spawnEngine?: (options: SpawnOptions) => SpawnedProcess;
}

/**
 * The boundary between Mara's tools and the worker (docs/security.md): Bash runs in Claude Code's own
 * sandbox (bubblewrap: its own PID, network and mount namespaces; writes only to the working tree and
 * temporary space; no network but the listed hosts through the sandbox's proxy, so neither the worker's
 * port, nor this proxy, nor the control plane is reachable), and no tool reads the sessions or the
 * Secret's files: the sandbox denies them to Bash, permission rules to Read/Edit/Write/Glob/Grep. In the
 * `engine` modes the engine itself runs in one such sandbox instead (engineSandbox.ts).
 */
export interface ToolBoundary {
  sandbox: SandboxMode;
  allowedDomains: string[];
  /** Directories no tool may read: the sessions (CLAUDE_CONFIG_DIR), the Secret's files. */
  deniedDirs: string[];
  /**
   * A ripgrep binary for the sandbox's scan of the working tree before each command. Without one the
   * engine runs its own embedded copy by starting its whole 400 MB executable again, ~100 ms per command.
   */
  ripgrep?: string | undefined;
}

export function boundaryOptions(boundary: ToolBoundary): Pick<Options, 'sandbox' | 'disallowedTools'> {
  // `//` starts an absolute path in a permission rule.
  const disallowedTools = [...boundary.deniedDirs, '/proc'].flatMap((dir) => [
    `Read(/${dir}/**)`,
    `Edit(/${dir}/**)`,
  ]);
  if (boundary.sandbox === 'off' || isEngineSandbox(boundary.sandbox)) {
    // In the engine modes the whole engine is in the worker's sandbox; Claude Code's own would only cost.
    return { disallowedTools };
  }
  return {
    disallowedTools,
    sandbox: {
      enabled: true,
      failIfUnavailable: true, // never run a hostile command unconfined because bubblewrap went missing
      allowUnsandboxedCommands: false, // the model cannot ask for a command outside it
      enableWeakerNestedSandbox: boundary.sandbox === 'nested',
      network: { allowedDomains: boundary.allowedDomains },
      filesystem: { denyRead: boundary.deniedDirs },
      ...(boundary.ripgrep ? { ripgrep: { command: boundary.ripgrep } } : {}),
    },
  };
}

/** One engine per turn: started for the turn, ended with it (see warmEngines.ts for the warm one). */
export function sdkAgent(settings: SdkAgentSettings): Agent {
  return (turn) => {
    const abortController = new AbortController();
    turn.signal.addEventListener('abort', () => abortController.abort(), { once: true });
    const grant = settings.grant(turn.conversationId);
    const messages = query({
      prompt: turn.text,
      options: sdkOptions(settings, turn.conversationId, abortController, grant),
    });
    return (async function* oneTurn() {
      try {
        yield* messages;
      } finally {
        grant.revoke(); // the engine is gone: its capability acts for no one any more
      }
    })();
  };
}

/** The engine's options for a conversation; the same for a one-turn and a warm engine. */
export function sdkOptions(
  settings: SdkAgentSettings,
  conversationId: string,
  abortController: AbortController,
  grant: ProxyGrant,
): Options {
  const boxed = isEngineSandbox(settings.boundary.sandbox);
  const runtime = (grant as Partial<BoxedGrant>).runtime;
  if (boxed && !runtime) throw new Error('an engine in a sandbox needs a grant on its own socket');
  // In the sandbox the remote servers are dialled through the worker's relay, which adds their credentials.
  const servers = runtime
    ? runtime.relay(settings.mcpServers(conversationId))
    : settings.mcpServers(conversationId);
  // In a sandbox each conversation has a config directory of its own: no engine sees another's transcript.
  const configDir = boxed ? conversationConfigDir(settings.configDir, conversationId) : settings.configDir;
  if (boxed) adoptSharedTranscript(settings.configDir, conversationId);
  const options: Options = {
    abortController,
    cwd: settings.workspaceDir,
    model: settings.model,
    includePartialMessages: true,
    permissionMode: 'dontAsk',
    allowedTools: [...DEFAULT_TOOLS, ...Object.keys(servers).map((name) => `mcp__${name}`)],
    mcpServers: servers,
    // Over the engine's stdin, never its command line: `/proc/<pid>/cmdline` is readable by every process
    // that can see the engine (in `nested` mode, its own tools), and the servers' headers are credentials.
    mcpServersDelivery: 'initialize',
    ...boundaryOptions(settings.boundary),
    // No settings from the working tree or a home directory: what Mara may do is decided here.
    settingSources: [],
    env: {
      ...engineEnvironment(settings, grant),
      CLAUDE_CONFIG_DIR: configDir,
      ...(boxed ? BOXED_ENVIRONMENT : {}),
    },
    stderr: () => {}, // the engine's own diagnostics; its failures surface as result messages
  };
  if (runtime) {
    options.spawnClaudeCodeProcess = boxedSpawn(
      {
        freshProc: settings.boundary.sandbox === 'engine',
        runtime,
        configDir,
        workspaceDir: settings.workspaceDir,
        hidden: [...settings.boundary.deniedDirs, process.env.HOME ?? '/root', tmpdir()],
      },
      settings.spawnEngine,
    );
  } else if (settings.spawnEngine) {
    options.spawnClaudeCodeProcess = settings.spawnEngine;
  }
  if (hasTranscript(configDir, conversationId)) {
    options.resume = conversationId;
  } else {
    options.sessionId = conversationId;
  }
  return options;
}

/** The engine's environment: the worker's, minus anything secret, plus where to find the model. */
export function engineEnvironment(settings: SdkAgentSettings, grant: ProxyGrant): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('TALKIDE_') && !name.startsWith('ANTHROPIC_')) {
      env[name] = value;
    }
  }
  env.CLAUDE_CONFIG_DIR = settings.configDir;
  // The engine's own capability at the proxy: it acts for this conversation only, while this engine runs.
  env.ANTHROPIC_BASE_URL = grant.baseUrl;
  env.ANTHROPIC_AUTH_TOKEN = grant.credential;
  // Nothing leaves the pod except model calls through the gateway.
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.DISABLE_AUTOUPDATER = '1';
  env.DISABLE_TELEMETRY = '1';
  env.DISABLE_ERROR_REPORTING = '1';
  return env;
}

/** Whether the SDK already keeps a transcript for the session (then the turn resumes it). */
export function hasTranscript(configDir: string, sessionId: string): boolean {
  const projects = join(configDir, 'projects');
  if (!existsSync(projects)) {
    return false;
  }
  return readdirSync(projects).some((project) => existsSync(join(projects, project, `${sessionId}.jsonl`)));
}

/**
 * A canned agent for contract tests and local smoke runs without the engine: it streams a short answer
 * in the SDK's message shapes after `delayMs`, so every other part of the worker runs for real.
 */
export function scriptedAgent(delayMs: number): Agent {
  return async function* scripted(turn) {
    await pause(delayMs, turn.signal);
    const words = ['Scripted ', 'answer.'];
    yield streamEvent({
      type: 'message_start',
      message: { id: 'msg_scripted', model: 'scripted', usage: { input_tokens: 5 } },
    });
    for (const text of words) {
      yield streamEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
      await pause(10, turn.signal);
    }
    yield streamEvent({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 2 },
    });
    yield streamEvent({ type: 'message_stop' });
    yield {
      type: 'result',
      subtype: 'success',
      is_error: false,
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 5,
        output_tokens: 2,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
  };
}

function streamEvent(event: Record<string, unknown>): Record<string, unknown> {
  return { type: 'stream_event', parent_tool_use_id: null, event };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('aborted'));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}
