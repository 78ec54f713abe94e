import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { logger } from './log.js';
import { TRACEPARENT, TurnTraces } from './traceContext.js';
import { MintFailed, type WorkerTokens } from './workerTokens.js';

const log = logger('gateway-proxy');

/**
 * The seed's LocalGatewayProxyServer (§6.3): the engine talks to
 * `http://127.0.0.1:<port>/<conversationId>/v1/...` with an inert credential; this proxy drops that
 * credential, attaches the conversation's WorkerToken and forwards to the control plane's gateway,
 * streaming the answer back byte for byte. The worker never holds an Anthropic key.
 */
export const GATEWAY_PATH = '/api/internal/gateway/anthropic';
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'anthropic-version',
  'anthropic-beta',
  'user-agent',
];
const FORWARDED_RESPONSE_HEADERS = new Set([
  'content-type',
  'retry-after',
  'x-should-retry',
  'x-talkide-denial-reason',
  'request-id',
  'anthropic-ratelimit-requests-remaining',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class GatewayProxy {
  private readonly server: Server;
  /** Conversations whose last gateway answer was a spending-limit denial: their turn is budget_exceeded. */
  private readonly denied = new Set<string>();
  /** Called when the engine's request reaches the proxy (the benchmark's "first model call"). */
  onCall: ((conversationId: string) => void) | undefined;

  constructor(
    private readonly controlPlane: URL,
    private readonly tokens: WorkerTokens,
    private readonly traces: TurnTraces = new TurnTraces(),
  ) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        log.error('proxy failure', { error: String(e) });
        if (!res.headersSent) {
          anthropicError(res, 502, 'api_error', 'the worker could not forward the request');
        } else {
          res.destroy();
        }
      });
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this.port();
  }

  port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  baseUrlFor(conversationId: string): string {
    return `http://127.0.0.1:${this.port()}/${conversationId}`;
  }

  /** True once per spending-limit denial seen for the conversation since the last call. */
  takeBudgetDenial(conversationId: string): boolean {
    return this.denied.delete(conversationId);
  }

  clearDenial(conversationId: string): void {
    this.denied.delete(conversationId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const slash = url.indexOf('/', 1);
    const conversationId = url.slice(1, slash < 0 ? url.length : slash);
    if (!UUID.test(conversationId) || slash < 0) {
      anthropicError(res, 404, 'not_found_error', 'expected /<conversationId>/v1/...');
      return;
    }
    this.onCall?.(conversationId);
    const rest = url.slice(slash);
    const body = await readAll(req);
    // The engine cannot send the turn's trace context; the proxy knows the conversation's running turn.
    const traceparent = this.traces.of(conversationId);
    let token: string;
    try {
      token = await this.tokens.token(conversationId, traceparent);
    } catch (e) {
      const status = e instanceof MintFailed && e.status !== 0 ? e.status : 502;
      anthropicError(res, status, errorType(status), e instanceof Error ? e.message : 'minting failed');
      return;
    }
    // The incoming authorization / x-api-key (an inert placeholder) is dropped here.
    const headers: Record<string, string> = {
      'x-worker-token': token,
      'content-length': String(body.length),
    };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') {
        headers[name] = value;
      }
    }
    if (traceparent) {
      headers[TRACEPARENT] = traceparent;
    }
    const target = new URL(GATEWAY_PATH + rest, this.controlPlane);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    await new Promise<void>((resolve) => {
      const upstream = send(target, { method: req.method, headers }, (answer) => {
        const status = answer.statusCode ?? 502;
        if (status === 429 && answer.headers['x-talkide-denial-reason'] === 'spending_limit') {
          this.denied.add(conversationId);
        }
        if (status === 401) {
          this.tokens.forget(conversationId); // a revoked or rotated token: mint afresh next time
        }
        for (const [name, value] of Object.entries(answer.headers)) {
          if (FORWARDED_RESPONSE_HEADERS.has(name) && value !== undefined) {
            res.setHeader(name, value);
          }
        }
        res.writeHead(status);
        res.flushHeaders();
        answer.on('data', (chunk: Buffer) => res.write(chunk));
        answer.on('end', () => {
          res.end();
          resolve();
        });
        answer.on('error', () => {
          res.destroy();
          resolve();
        });
      });
      upstream.on('error', () => {
        if (!res.headersSent) {
          anthropicError(res, 502, 'api_error', "the control plane's gateway is unreachable");
        } else {
          res.destroy();
        }
        resolve();
      });
      // The engine hung up (interrupt): cancel the gateway call, so only what was generated is billed.
      res.on('close', () => {
        if (!res.writableFinished) {
          upstream.destroy();
          resolve();
        }
      });
      upstream.end(body);
    });
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function errorType(status: number): string {
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

function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: 'error', error: { type, message } });
  // A refusal (4xx) will not change on retry; an unreachable control plane may be back in a moment.
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-should-retry': status < 500 ? 'false' : 'true',
  });
  res.end(body);
}
