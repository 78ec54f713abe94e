import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The gateway proxy's plumbing: reading a bounded body, naming a capability, answering in Anthropic's shape. */

/** Larger than any request the engine sends (its context window as JSON), small enough not to exhaust the heap. */
const MAX_BODY = 32 * 1024 * 1024;

export function readAll(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        chunks.length = 0;
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function digest(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

export function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 429:
      return 'rate_limit_error';
    default:
      return 'api_error';
  }
}

export function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: 'error', error: { type, message } });
  // A refusal (4xx) will not change on retry; an unreachable control plane may be back in a moment.
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-should-retry': status < 500 ? 'false' : 'true',
  });
  res.end(body);
}
