import { type Options, type Query, query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
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
  query: Query;
  busy: boolean;
  lastUsed: number;
}

export function warmSdkAgent(settings: SdkAgentSettings, idleMs: number, maxEngines: number): WarmAgent {
  const engines = new Map<string, Engine>();

  const discard = (id: string) => {
    const engine = engines.get(id);
    if (engine) {
      engines.delete(id);
      engine.inbox.end();
      engine.query.close();
      engine.grant.revoke();
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

  const engineFor = (conversationId: string): Engine => {
    const existing = engines.get(conversationId);
    if (existing) {
      return existing;
    }
    if (engines.size >= maxEngines) {
      const idle = [...engines.entries()]
        .filter(([, e]) => !e.busy)
        .sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (idle) discard(idle[0]);
    }
    const inbox = new Inbox();
    const grant = settings.grant(conversationId);
    const options: Options = sdkOptions(settings, conversationId, new AbortController(), grant);
    const engine: Engine = {
      inbox,
      grant,
      query: query({ prompt: inbox, options }),
      busy: false,
      lastUsed: Date.now(),
    };
    engines.set(conversationId, engine);
    return engine;
  };

  const run = async function* warm(turn: Parameters<Agent>[0]) {
    const engine = engineFor(turn.conversationId);
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
