import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, errors } from 'jose';
import type { CommandKey } from './config.js';

/**
 * The worker's side of the command token (docs/security.md): a call is let through only if it was signed
 * with this tenant-environment's command key, for exactly this method, path with query and body bytes,
 * within its lifetime, and never seen before. Checks run in the same order as the Java verifier, so both
 * name the same reason for the same token (the checked-in vectors prove it).
 */
export type Rejection =
  | 'missing'
  | 'oversized'
  | 'malformed'
  | 'bad_algorithm'
  | 'wrong_type'
  | 'unknown_kid'
  | 'bad_signature'
  | 'wrong_audience'
  | 'wrong_tenant_environment'
  | 'expired'
  | 'issued_in_future'
  | 'method_mismatch'
  | 'path_mismatch'
  | 'body_mismatch'
  | 'replayed';

export class CommandTokenRejected extends Error {
  constructor(readonly reason: Rejection) {
    super(`command token rejected: ${reason}`);
  }
}

export const AUDIENCE = 'talkide-worker';
const MAX_LENGTH = 4096;
/** Longest lifetime accepted; bounds how long the replay cache must remember an id. */
const MAX_LIFETIME_SECONDS = 300;

export function bodyHash(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** Remembers used token ids until they could no longer verify anyway. */
export class ReplayCache {
  private readonly seen = new Map<string, number>();

  firstUse(jti: string, forgetAfterMs: number, nowMs: number): boolean {
    if (this.seen.size > 1000) {
      for (const [id, until] of this.seen) {
        if (until <= nowMs) {
          this.seen.delete(id);
        }
      }
    }
    const until = this.seen.get(jti);
    if (until !== undefined && until > nowMs) {
      return false;
    }
    this.seen.set(jti, forgetAfterMs);
    return true;
  }
}

export interface VerifierOptions {
  /** The current keys (re-read from the Secret's file when it changes). */
  keys: CommandKey[] | (() => CommandKey[]);
  tenant: string;
  env: string;
  clockSkewSeconds: number;
  now?: () => number;
  replays?: ReplayCache;
}

export class CommandTokenVerifier {
  private readonly now: () => number;
  private readonly replays: ReplayCache;

  constructor(private readonly options: VerifierOptions) {
    this.now = options.now ?? Date.now;
    this.replays = options.replays ?? new ReplayCache();
  }

  /** @param target the request path with its query string, exactly as received */
  async verify(token: string | undefined, method: string, target: string, body: Uint8Array): Promise<void> {
    if (!token || token.trim() === '') {
      throw new CommandTokenRejected('missing');
    }
    if (token.length > MAX_LENGTH) {
      throw new CommandTokenRejected('oversized');
    }
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
      throw new CommandTokenRejected('malformed');
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new CommandTokenRejected('malformed');
    }
    if (header.alg !== 'HS256') {
      throw new CommandTokenRejected('bad_algorithm');
    }
    if (header.typ !== 'cmd+jwt') {
      throw new CommandTokenRejected('wrong_type');
    }
    const keys = typeof this.options.keys === 'function' ? this.options.keys() : this.options.keys;
    const key = keys.find((k) => k.kid === header.kid);
    if (!key) {
      throw new CommandTokenRejected('unknown_kid');
    }
    let payload: Uint8Array;
    try {
      payload = (await compactVerify(token, key.key, { algorithms: ['HS256'] })).payload;
    } catch (e) {
      throw new CommandTokenRejected(
        e instanceof errors.JWSSignatureVerificationFailed ? 'bad_signature' : 'malformed',
      );
    }
    const claims = parseClaims(payload);
    const audience = claims.aud;
    if (!(audience === AUDIENCE || (Array.isArray(audience) && audience.includes(AUDIENCE)))) {
      throw new CommandTokenRejected('wrong_audience');
    }
    if (claims.tid !== this.options.tenant || claims.eid !== this.options.env) {
      throw new CommandTokenRejected('wrong_tenant_environment');
    }
    const nowMs = this.now();
    const skewMs = this.options.clockSkewSeconds * 1000;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') {
      throw new CommandTokenRejected('malformed');
    }
    const expMs = claims.exp * 1000;
    if (nowMs >= expMs + skewMs) {
      throw new CommandTokenRejected('expired');
    }
    if (claims.iat * 1000 > nowMs + skewMs) {
      throw new CommandTokenRejected('issued_in_future');
    }
    if (claims.exp - claims.iat > MAX_LIFETIME_SECONDS) {
      throw new CommandTokenRejected('expired');
    }
    if (typeof claims.htm !== 'string' || claims.htm.toUpperCase() !== method.toUpperCase()) {
      throw new CommandTokenRejected('method_mismatch');
    }
    if (claims.htu !== target) {
      throw new CommandTokenRejected('path_mismatch');
    }
    if (claims.bsh !== bodyHash(body)) {
      throw new CommandTokenRejected('body_mismatch');
    }
    if (typeof claims.jti !== 'string') {
      throw new CommandTokenRejected('malformed');
    }
    // Last, so a token refused for any other reason does not use up its id.
    if (!this.replays.firstUse(claims.jti, expMs + skewMs, nowMs)) {
      throw new CommandTokenRejected('replayed');
    }
  }
}

interface Claims {
  aud?: unknown;
  tid?: unknown;
  eid?: unknown;
  exp?: unknown;
  iat?: unknown;
  htm?: unknown;
  htu?: unknown;
  bsh?: unknown;
  jti?: unknown;
}

function parseClaims(payload: Uint8Array): Claims {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('not an object');
    }
    return parsed as Claims;
  } catch {
    throw new CommandTokenRejected('malformed');
  }
}
