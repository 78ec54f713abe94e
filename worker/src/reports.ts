import { randomUUID } from 'node:crypto';
import { logger } from './log.js';
import { TurnTraces, withTraceparent } from './traceContext.js';
import type { CallUsage } from './turnEvents.js';
import type { WorkerTokens } from './workerTokens.js';

const log = logger('reports');

/**
 * Reports to `/api/internal/worker/*` (docs/worker-contract.md). Each carries its own id, so a retry
 * after a lost answer is stored once. They are sent in the background, retried with backoff while the
 * control plane is away, and never hold up a turn; a full queue drops the oldest.
 */
export type ReportKind = 'tool-events' | 'usage' | 'activity' | 'issues';

interface Pending {
  kind: ReportKind;
  body: Record<string, unknown>;
  attempts: number;
  /** The turn's trace context when the report was made; its retries, even after the turn, keep it. */
  traceparent: string | undefined;
}

const MAX_QUEUE = 1000;
const MAX_ATTEMPTS = 8;

export class Reports {
  private readonly queue: Pending[] = [];
  private draining = false;
  private stopped = false;

  constructor(
    private readonly controlPlane: URL,
    private readonly tokens: WorkerTokens,
    private readonly traces: TurnTraces = new TurnTraces(),
    private readonly backoffMs: (attempt: number) => number = (n) => Math.min(30_000, 250 * 2 ** n),
  ) {}

  toolEvent(
    conversationId: string,
    toolUseId: string,
    tool: string,
    phase: 'started' | 'completed',
    isError: boolean,
    durationMs: number,
  ): void {
    this.send('tool-events', {
      id: `${toolUseId}:${phase}`,
      conversationId,
      toolUseId,
      tool,
      phase,
      isError,
      durationMs,
      occurredAt: new Date().toISOString(),
    });
  }

  usage(conversationId: string, call: CallUsage): void {
    this.send('usage', {
      id: call.messageId ? `usage:${call.messageId}` : `usage:${randomUUID()}`,
      conversationId,
      model: call.model || 'unknown',
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      cacheCreationInputTokens: call.cacheCreationInputTokens,
      cacheReadInputTokens: call.cacheReadInputTokens,
      occurredAt: new Date().toISOString(),
    });
  }

  /** A line of Mara's activity log; `id` makes a retried one count once. */
  activity(conversationId: string, id: string, activity: string, message: string): void {
    this.send('activity', {
      id,
      conversationId,
      activity,
      message: message.slice(0, 4000),
      occurredAt: new Date().toISOString(),
    });
  }

  /** Resolves once the report is stored (the MCP tool tells Mara so); rejects when it was refused. */
  issue(
    conversationId: string,
    issue: { title: string; body?: string; severity?: string; labels?: string[] },
  ): Promise<string> {
    const body = {
      id: `issue:${randomUUID()}`,
      conversationId,
      ...issue,
      occurredAt: new Date().toISOString(),
    };
    return this.post('issues', body, this.traces.of(conversationId)).then((status) => {
      if (status >= 300) {
        throw new Error(`the control plane refused the issue (${status})`);
      }
      return String(body.id);
    });
  }

  send(kind: ReportKind, body: Record<string, unknown>): void {
    if (this.stopped) {
      return;
    }
    if (this.queue.length >= MAX_QUEUE) {
      this.queue.shift();
    }
    this.queue.push({ kind, body, attempts: 0, traceparent: this.traces.of(String(body.conversationId)) });
    void this.drain();
  }

  /** Waits (at most `timeoutMs`) until every queued report is sent: a stopping worker loses none it can send. */
  async flush(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 && !this.stopped && Date.now() < deadline) {
      void this.drain();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.queue.length > 0) {
      log.warn('reports not sent before the stop', { count: this.queue.length });
    }
    this.queue.length = 0;
  }

  pending(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    if (this.draining) {
      return;
    }
    this.draining = true;
    try {
      while (this.queue.length > 0 && !this.stopped) {
        const next = this.queue[0] as Pending;
        const status = await this.post(next.kind, next.body, next.traceparent).catch(() => 0);
        if (status === 0 || status >= 500 || status === 401 || status === 429) {
          next.attempts++;
          if (next.attempts >= MAX_ATTEMPTS) {
            log.warn('report dropped after retries', { kind: next.kind, id: String(next.body.id), status });
            this.queue.shift();
          } else {
            await new Promise((resolve) => setTimeout(resolve, this.backoffMs(next.attempts)).unref?.());
          }
          continue;
        }
        if (status >= 400) {
          log.warn('report refused', { kind: next.kind, id: String(next.body.id), status });
        }
        this.queue.shift();
      }
    } finally {
      this.draining = false;
    }
  }

  private async post(
    kind: ReportKind,
    body: Record<string, unknown>,
    traceparent: string | undefined,
  ): Promise<number> {
    const conversationId = String(body.conversationId);
    const token = await this.tokens.token(conversationId, traceparent);
    const response = await fetch(new URL(`/api/internal/worker/${kind}`, this.controlPlane), {
      method: 'POST',
      headers: withTraceparent({ 'x-worker-token': token, 'content-type': 'application/json' }, traceparent),
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    if (response.status === 401) {
      this.tokens.forget(conversationId);
    }
    return response.status;
  }
}
