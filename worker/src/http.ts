import type { IncomingMessage, ServerResponse } from 'node:http';

/** Small helpers for the contract's answers: JSON, RFC 9457 problem details, bounded bodies. */
export const MAX_BODY = 1024 * 1024;

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function problem(
  res: ServerResponse,
  status: number,
  type: string,
  title: string,
  detail: string,
): void {
  const text = JSON.stringify({ type: `https://talkide.app/problems/${type}`, title, status, detail });
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The exact body bytes, or undefined when larger than MAX_BODY. */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
