import type { WorkerTokens } from './workerTokens.js';

/**
 * The control plane's build API (`/api/internal/worker/builds`, docs/builds.md): the worker asks, the
 * control plane runs the Job. Every call carries a WorkerToken minted for the conversation, so a build
 * belongs to the conversation it was started in. The worker itself holds no Kubernetes credentials.
 */
export interface BuildRequest {
  kind: 'gradle' | 'image';
  tasks?: string[];
  arguments?: string[];
  dockerfile?: string;
  context?: string;
  destination?: string;
}

export interface BuildView {
  id: string;
  kind: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  queuePosition: number;
  reason: string | null;
  durationMs: number | null;
}

export interface LogEnd {
  state: string;
  reason: string | null;
  durationMs: number | null;
}

export class BuildApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class BuildApi {
  constructor(
    private readonly controlPlane: URL,
    private readonly tokens: WorkerTokens,
  ) {}

  start(conversationId: string, request: BuildRequest): Promise<BuildView> {
    return this.call(conversationId, 'POST', '', request);
  }

  get(conversationId: string, buildId: string): Promise<BuildView> {
    return this.call(conversationId, 'GET', `/${encodeURIComponent(buildId)}`);
  }

  cancel(conversationId: string, buildId: string): Promise<BuildView> {
    return this.call(conversationId, 'DELETE', `/${encodeURIComponent(buildId)}`);
  }

  /**
   * Follows the build's log (SSE) and hands each line over; resolves with the `end` event. A broken
   * stream is resumed after the last line it delivered (`Last-Event-ID`).
   */
  async followLog(
    conversationId: string,
    buildId: string,
    onLine: (line: string) => void,
    signal: AbortSignal,
  ): Promise<LogEnd> {
    let lastId = '';
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      try {
        const response = await fetch(this.url(`/${encodeURIComponent(buildId)}/logs`), {
          headers: {
            'x-worker-token': await this.tokens.token(conversationId),
            accept: 'text/event-stream',
            ...(lastId ? { 'last-event-id': lastId } : {}),
          },
          signal,
        });
        if (response.status !== 200 || !response.body) {
          throw new BuildApiError(response.status, await problemDetail(response));
        }
        const end = await readEvents(response.body, (event) => {
          if (event.type === 'line') {
            lastId = event.id ?? lastId;
            onLine(event.data);
          }
        });
        if (end) {
          return end;
        }
        // Ended without an end event: the WorkerToken expired (the control plane ends the stream then).
        // Reconnect shortly with a fresh token, resuming after the last line; not a failure.
        attempt = -1;
      } catch (e) {
        if (
          signal.aborted ||
          (e instanceof BuildApiError && e.status >= 400 && e.status < 500) ||
          attempt >= 5
        ) {
          throw e;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
    }
  }

  private async call(
    conversationId: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<BuildView> {
    const response = await fetch(this.url(path), {
      method,
      headers: {
        'x-worker-token': await this.tokens.token(conversationId),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status >= 300) {
      throw new BuildApiError(response.status, await problemDetail(response));
    }
    return (await response.json()) as BuildView;
  }

  private url(path: string): URL {
    return new URL(`/api/internal/worker/builds${path}`, this.controlPlane);
  }
}

/** The problem's detail (RFC 9457) for the model to read, or the status alone. */
async function problemDetail(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const problem = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (typeof problem.detail === 'string') {
      return problem.detail;
    }
  } catch {
    // not a problem document
  }
  return `the control plane answered ${response.status}`;
}

interface SseEvent {
  id?: string;
  type: string;
  data: string;
}

/** Reads SSE events until the `end` event (returned) or the stream's end (undefined). */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: SseEvent) => void,
): Promise<LogEnd | undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let split = buffer.indexOf('\n\n');
    while (split >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      split = buffer.indexOf('\n\n');
      const event: SseEvent = { type: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('event: ')) event.type = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length === 0) {
        continue; // a heartbeat comment
      }
      event.data = data.join('\n');
      if (event.type === 'end') {
        return JSON.parse(event.data) as LogEnd;
      }
      onEvent(event);
    }
  }
  return undefined;
}
