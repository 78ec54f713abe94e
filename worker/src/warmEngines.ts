import {
  type Options,
  type Query,
  query,
  type SDKUserMessage,
  type SpawnedProcess,
} from '@anthropic-ai/claude-agent-sdk';
import { type Agent, type SdkAgentSettings, sdkOptions } from './agent.js';
import type { ProxyGrant } from './gatewayProxy.js';
import { logger } from './log.js';

const log = logger('engines');

/**
 * Keeps a conversation's engine running between turns (the SDK's streaming input): the first turn pays
 * the engine's start, a follow-up only its own model calls. Each turn writes one user message into the
 * engine and reads until its `result`. Engines idle longer than `idleMs` are closed, and at most
 * `maxEngines` stay open (the least recently used goes first), since each is a process with its own memory.
 */
export interface WarmAgent extends Agent {
  close(): void;
  open(): number;
}

class Inbox implements AsyncIterable<SDKUserMessage> {
  private readonly waiting: ((m: IteratorResult<SDKUserMessage>) => void)[] = [];
  private readonly queued: SDKUserMessage[] = [];
  private ended = false;

  push(message: SDKUserMessage): void {
    const next = this.waiting.shift();
    if (next) next({ value: message, done: false });
    else this.queued.push(message);
  }

  end(): void {
    this.ended = true;
    for (const next of this.waiting.splice(0)) next({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    return {
      next: () => {
        const message = this.queued.shift();
        if (message) return Promise.resolve({ value: message, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.waiting.push(resolve));
      },
    };
  }
}

interface Engine {
  inbox: Inbox;
  grant: ProxyGrant;
  /** Its processes, once the SDK spawned them (during `query()`, before the engine object exists). */
  spawned: SpawnedProcess[];
  query: Query;
  busy: boolean;
  lastUsed: number;
  /** The operator's MCP list it was started with (`settings.mcpVersion`). */
  mcpVersion: number;
}

/** How long a new engine waits for a closed one's process to exit before the turn fails instead. */
const ROOM_WAIT_MS = 30_000;

export function warmSdkAgent(
  settings: SdkAgentSettings,
  idleMs: number,
  maxEngines: number,
  /** Engine processes still alive (a closed engine takes a moment to exit). */
  liveProcesses: () => number = () => 0,
): WarmAgent {
  const engines = new Map<string, Engine>();

  const discard = (id: string) => {
    const engine = engines.get(id);
    if (engine) {
      engines.delete(id);
      engine.inbox.end();
      engine.query.close();
      engine.grant.revoke();
      // An idle engine has nothing left to write; its end of input is not always enough to stop it
      // promptly, and its memory is wanted for the next one.
      for (const child of engine.spawned) {
        if (child.exitCode !== null) continue;
        child.kill('SIGTERM');
        setTimeout(() => {
          if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL');
        }, 3000).unref();
      }
    }
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, engine] of engines) {
        if (!engine.busy && now - engine.lastUsed > idleMs) {
          log.debug('closing idle engine', { conversationId: id });
          discard(id);
        }
      }
    },
    Math.max(1000, Math.min(idleMs, 60_000)),
  );
  sweep.unref();

  const mcpVersion = () => settings.mcpVersion?.() ?? 0;

  const engineFor = async (conversationId: string): Promise<Engine> => {
    const existing = engines.get(conversationId);
    if (existing && existing.mcpVersion === mcpVersion()) {
      return existing;
    }
    if (existing) {
      // Started with an MCP list the operator has changed since: a removed server (perhaps with a revoked
      // credential) must not stay reachable, so the next turn starts a fresh engine on the transcript.
      log.info('replacing an engine started with an older MCP server list', { conversationId });
      discard(conversationId);
    }
    // Never more than maxEngines engines, counted both in this pool and as live processes (a closed one
    // takes a moment to exit): close the least recently used idle engine and wait, until there is room.
    // Admission keeps running turns below the limit, so an engine becomes idle in time.
    const deadline = Date.now() + ROOM_WAIT_MS;
    while (engines.size >= maxEngines || liveProcesses() >= maxEngines) {
      if (engines.has(conversationId)) break; // another turn of this conversation made it meanwhile
      const idle = [...engines.entries()]
        .filter(([, e]) => !e.busy)
        .sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      // Close one only if waiting for closed ones to exit would not make room.
      const exiting = liveProcesses() - engines.size;
      if (idle && (engines.size >= maxEngines || exiting <= 0)) {
        discard(idle[0]);
        continue;
      }
      if (Date.now() > deadline) throw new Error('no engine became free');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const raced = engines.get(conversationId);
    if (raced) {
      return raced;
    }
    const inbox = new Inbox();
    const version = mcpVersion();
    const grant = settings.grant(conversationId);
    const options: Options = sdkOptions(settings, conversationId, new AbortController(), grant);
    const spawned: SpawnedProcess[] = [];
    const spawn = options.spawnClaudeCodeProcess;
    if (spawn) {
      options.spawnClaudeCodeProcess = (spawnOptions) => {
        const child = spawn(spawnOptions);
        spawned.push(child);
        return child;
      };
    }
    const engine: Engine = {
      inbox,
      grant,
      spawned,
      query: query({ prompt: inbox, options }),
      busy: false,
      lastUsed: Date.now(),
      mcpVersion: version,
    };
    engines.set(conversationId, engine);
    return engine;
  };

  const run = async function* warm(turn: Parameters<Agent>[0]) {
    const engine = await engineFor(turn.conversationId);
    engine.busy = true;
    let finished = false;
    const onAbort = () => {
      // Stop the engine's current work; it answers with a result and stays warm. If it does not, drop it.
      engine.query.interrupt().catch(() => discard(turn.conversationId));
      setTimeout(() => {
        if (!finished) discard(turn.conversationId);
      }, 10_000).unref();
    };
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      engine.inbox.push({
        type: 'user',
        message: { role: 'user', content: turn.text },
        parent_tool_use_id: null,
        session_id: turn.conversationId,
      } as SDKUserMessage);
      while (true) {
        const next = await engine.query.next();
        if (next.done) {
          throw new Error('the engine ended');
        }
        yield next.value;
        if (next.value.type === 'result') {
          finished = true;
          return;
        }
      }
    } catch (e) {
      discard(turn.conversationId);
      throw e;
    } finally {
      finished = true;
      engine.busy = false;
      engine.lastUsed = Date.now();
      turn.signal.removeEventListener('abort', onAbort);
    }
  };
  return Object.assign(run, {
    close: () => {
      clearInterval(sweep);
      for (const id of [...engines.keys()]) discard(id);
    },
    open: () => engines.size,
  });
}
