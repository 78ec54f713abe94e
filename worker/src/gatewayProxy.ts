import { randomBytes } from 'node:crypto';
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
import { anthropicError, digest, errorType, readAll } from './proxyHelpers.js';
import { TRACEPARENT, TurnTraces } from './traceContext.js';
import { MintFailed, type WorkerTokens } from './workerTokens.js';

const log = logger('gateway-proxy');

/**
 * The in-worker gateway proxy: each engine talks to `http://127.0.0.1:<port>/v1/messages`
 * with its own capability as credential (a random secret granted when the engine starts, revoked when it
 * ends); this proxy takes the conversation from that capability alone, drops it, attaches the
 * conversation's WorkerToken and forwards to the control plane's gateway, streaming the answer back byte
 * for byte. It serves exactly `POST /v1/messages` and `POST /v1/messages/count_tokens`. The worker never
 * holds an Anthropic key.
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
/** The only requests an engine needs: exactly these paths, POST only, optionally with a query. */
const ROUTES = new Set(['/v1/messages', '/v1/messages/count_tokens']);
/** A query as the engine sends it (`beta=true`): plain key=value pairs, nothing a URL parser would reinterpret. */
const QUERY = /^[A-Za-z0-9_.~-]+=[A-Za-z0-9_.~-]*(?:&[A-Za-z0-9_.~-]+=[A-Za-z0-9_.~-]*)*$/;

/** A running engine's grant: its base URL and credential, and how to withdraw them once it is gone. */
export interface ProxyGrant {
  baseUrl: string;
  credential: string;
  /** The engine's own Unix socket (engine sandbox): its only way to the proxy. */
  socket?: string;
  revoke(): void;
}

/** Where an engine in its own sandbox finds the proxy: a loopback port of its network namespace, bridged. */
export const ENGINE_MODEL_PORT = 4180;

interface Grant {
  conversationId: string;
  /** Granted on an engine's own socket: good there only, never on the shared loopback port. */
  socket: boolean;
}

export class GatewayProxy {
  private readonly server: Server;
  /** Conversations whose last gateway answer was a spending-limit denial: their turn is budget_exceeded. */
  private readonly denied = new Set<string>();
  /** SHA-256 of each live engine's capability → its conversation. */
  private readonly grants = new Map<string, Grant>();
  /** The engines' own sockets (engine sandbox), closed with the proxy. */
  private readonly engineServers = new Set<Server>();
  /** Called when the engine's request reaches the proxy (the benchmark's "first model call"). */
  onCall: ((conversationId: string) => void) | undefined;

  constructor(
    private readonly controlPlane: URL,
    private readonly tokens: WorkerTokens,
    private readonly traces: TurnTraces = new TurnTraces(),
  ) {
    this.server = this.serverFor((key) => {
      const grant = this.grants.get(key);
      return grant && !grant.socket ? grant.conversationId : undefined;
    });
  }

  /** A server acting for the conversation `conversationOf` finds for a capability's digest. */
  private serverFor(conversationOf: (key: string) => string | undefined): Server {
    return createServer((req, res) => {
      this.handle(req, res, conversationOf).catch((e: unknown) => {
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

  /**
   * A fresh capability for one engine of the conversation: the engine sends it as its API key. The proxy
   * acts for a conversation only on a request carrying a capability granted for it; the conversation is
   * never taken from the request. Revoked when the engine is closed.
   */
  grant(conversationId: string): ProxyGrant {
    const credential = `tkcap_${randomBytes(32).toString('base64url')}`;
    const key = digest(credential);
    this.grants.set(key, { conversationId, socket: false });
    return {
      baseUrl: `http://127.0.0.1:${this.port()}`,
      credential,
      revoke: () => {
        this.grants.delete(key);
      },
    };
  }

  /**
   * A capability for one engine in its own sandbox, good only on `socketPath`, a Unix socket only that
   * engine can reach (bridged to `ENGINE_MODEL_PORT` inside its network namespace): the socket is the
   * capability, the credential only names the engine on it. Revoking closes the socket.
   */
  grantOnSocket(conversationId: string, socketPath: string): ProxyGrant {
    const credential = `tkcap_${randomBytes(32).toString('base64url')}`;
    const key = digest(credential);
    this.grants.set(key, { conversationId, socket: true });
    const server = this.serverFor((presented) =>
      presented === key && this.grants.has(key) ? conversationId : undefined,
    );
    // Bound before this returns (a Unix socket binds synchronously); a failure shows as the engine's.
    server.on('error', (e) => log.error('engine socket failed', { conversationId, error: String(e) }));
    server.listen(socketPath);
    this.engineServers.add(server);
    return {
      baseUrl: `http://127.0.0.1:${ENGINE_MODEL_PORT}`,
      credential,
      socket: socketPath,
      revoke: () => {
        this.grants.delete(key);
        this.engineServers.delete(server);
        server.closeAllConnections();
        server.close();
      },
    };
  }

  /** How many engine capabilities are live (each engine holds one). */
  liveGrants(): number {
    return this.grants.size;
  }

  /** True once per spending-limit denial seen for the conversation since the last call. */
  takeBudgetDenial(conversationId: string): boolean {
    return this.denied.delete(conversationId);
  }

  clearDenial(conversationId: string): void {
    this.denied.delete(conversationId);
  }

  async close(): Promise<void> {
    for (const server of this.engineServers) {
      server.closeAllConnections();
      server.close();
    }
    this.engineServers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The digest of the request's capability (`Authorization: Bearer` or `x-api-key`). */
  private capabilityOf(req: IncomingMessage): string | undefined {
    const authorization = req.headers.authorization;
    const presented =
      typeof authorization === 'string' && authorization.startsWith('Bearer ')
        ? authorization.slice(7)
        : req.headers['x-api-key'];
    if (typeof presented !== 'string' || presented.length > 200) {
      return undefined;
    }
    return digest(presented);
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    conversationOf: (key: string) => string | undefined,
  ): Promise<void> {
    // Judged on the raw request target, before any decoding or dot-segment folding: a path is served only
    // when it is spelled exactly as one of the two routes (so `/v1/messages/../../x`, `%2e%2e`, `%2f`,
    // `//`, absolute-form and anything else are simply not found).
    const target = req.url ?? '';
    const question = target.indexOf('?');
    const path = question < 0 ? target : target.slice(0, question);
    const query = question < 0 ? '' : target.slice(question + 1);
    if (!ROUTES.has(path) || (question >= 0 && !QUERY.test(query))) {
      req.resume();
      anthropicError(res, 404, 'not_found_error', 'the worker proxies only POST /v1/messages[/count_tokens]');
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('allow', 'POST');
      anthropicError(res, 405, 'invalid_request_error', `${path} takes only POST`);
      return;
    }
    const key = this.capabilityOf(req);
    const conversationId = key === undefined ? undefined : conversationOf(key);
    if (conversationId === undefined) {
      req.resume();
      anthropicError(res, 401, 'authentication_error', 'no capability of a running engine');
      return;
    }
    this.onCall?.(conversationId);
    const body = await readAll(req);
    if (body === undefined) {
      anthropicError(res, 413, 'request_too_large', 'the request is larger than the worker forwards');
      return;
    }
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
    // The engine's capability (authorization / x-api-key) is dropped here: it means nothing past this proxy.
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
    // Built from an exact route and a checked query: nothing here can climb out of the gateway's path.
    const forward = new URL(
      `${GATEWAY_PATH}${path}${question < 0 ? '' : `?${query}`}`,
      this.controlPlane.origin,
    );
    const send = forward.protocol === 'https:' ? httpsRequest : httpRequest;
    await new Promise<void>((resolve) => {
      const upstream = send(forward, { method: 'POST', headers }, (answer) => {
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
