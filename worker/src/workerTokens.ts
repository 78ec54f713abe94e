import { withTraceparent } from './traceContext.js';

/**
 * Trades the worker's identity token for a WorkerToken scoped to one conversation
 * (`POST /api/v1/worker-gateway/token/mint`). A token is reused while it has at least 30 s left, so it is
 * never sent stale and a busy conversation does not mint for every call.
 */
export class MintFailed extends Error {
  /** 0: the control plane could not be reached. */
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MIN_REMAINING_MS = 30_000;

export class WorkerTokens {
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly controlPlane: URL,
    /** Read on every mint: a rotated identity token is used at once. */
    private readonly identityToken: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** `traceparent`: the turn's context, sent on a mint this call causes (a reused token mints nothing). */
  async token(conversationId: string, traceparent?: string): Promise<string> {
    const cached = this.cache.get(conversationId);
    if (cached && cached.expiresAt - this.now() >= MIN_REMAINING_MS) {
      return cached.token;
    }
    // Concurrent calls of one conversation share one mint.
    let pending = this.inFlight.get(conversationId);
    if (!pending) {
      pending = this.mint(conversationId, traceparent).finally(() => this.inFlight.delete(conversationId));
      this.inFlight.set(conversationId, pending);
    }
    return pending;
  }

  forget(conversationId: string): void {
    this.cache.delete(conversationId);
  }

  private async mint(conversationId: string, traceparent: string | undefined): Promise<string> {
    const requestedAt = this.now();
    let response: Response;
    try {
      response = await fetch(new URL('/api/v1/worker-gateway/token/mint', this.controlPlane), {
        method: 'POST',
        headers: withTraceparent(
          { authorization: `Bearer ${this.identityToken()}`, 'content-type': 'application/json' },
          traceparent,
        ),
        body: JSON.stringify({ conversationId }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw new MintFailed(0, "the control plane's mint endpoint is unreachable");
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new MintFailed(response.status, `minting a WorkerToken failed with ${response.status}`);
    }
    const answer = (await response.json().catch(() => ({}))) as { token?: unknown; expiresIn?: unknown };
    if (typeof answer.token !== 'string') {
      throw new MintFailed(502, 'the mint endpoint answered without a token');
    }
    const lifetimeSeconds = typeof answer.expiresIn === 'number' ? answer.expiresIn : 60;
    // Counted from the request, not the answer: the token may have been issued at any moment in between.
    this.cache.set(conversationId, { token: answer.token, expiresAt: requestedAt + lifetimeSeconds * 1000 });
    return answer.token;
  }
}
