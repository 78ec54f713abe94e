import type { IncomingMessage, ServerResponse } from 'node:http';
import { BUSY_RETRY_AFTER_SECONDS, EngineSlots } from './admission.js';
import { CommandTokenRejected, type CommandTokenVerifier } from './commandToken.js';
import { json, problem, readBody } from './http.js';
import { logger } from './log.js';
import type { Session } from './session.js';
import type { StoredEvent } from './sessionFiles.js';
import { SessionHeldElsewhere } from './sessionLease.js';
import { SessionOwnedByOther, type SessionStore, WorkerStopping } from './sessionStore.js';
import { TRACEPARENT, validTraceparent } from './traceContext.js';
import type { TurnRunner } from './turnRunner.js';

const log = logger('routes');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TEXT = 100_000;
const MAX_ID = 200;
const MAX_BUFFERED = 8 * 1024 * 1024;

class BadRequest extends Error {}

/**
 * The contract's `/sessions` endpoints (docs/worker-contract.openapi.yaml). Every call is authenticated
 * first, with the exact body bytes, before anything is parsed.
 */
export class SessionRoutes {
  constructor(
    private readonly sessions: SessionStore,
    private readonly turns: TurnRunner,
    private readonly verifier: CommandTokenVerifier,
    private readonly heartbeatMs: number,
    private readonly stopping: () => boolean,
    private readonly slots: EngineSlots = new EngineSlots(Number.MAX_SAFE_INTEGER),
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === undefined) {
      problem(res, 413, 'too-large', 'Request too large', 'Commands are at most 1 MiB.');
      return;
    }
    const target = req.url ?? '/';
    try {
      const header = req.headers['x-worker-token'];
      await this.verifier.verify(
        typeof header === 'string' ? header : undefined,
        req.method ?? '',
        target,
        body,
      );
    } catch (e) {
      if (!(e instanceof CommandTokenRejected)) {
        throw e;
      }
      res.setHeader('www-authenticate', 'X-Worker-Token error="invalid_token"');
      problem(
        res,
        401,
        'invalid-command-token',
        'Invalid command token',
        `The X-Worker-Token is missing or not acceptable (${e.reason}).`,
      );
      return;
    }
    try {
      if (this.stopping()) {
        throw new WorkerStopping('the worker is stopping');
      }
      this.route(req, res, body);
    } catch (e) {
      if (e instanceof BadRequest || e instanceof SyntaxError) {
        problem(
          res,
          400,
          'bad-request',
          'Bad request',
          e instanceof SyntaxError ? 'The body is not JSON.' : e.message,
        );
      } else if (e instanceof SessionOwnedByOther) {
        problem(res, 409, 'session-owned-by-other', 'Session belongs to another user', e.message);
      } else if (e instanceof SessionHeldElsewhere) {
        // Another pod still serves it (a rollout's old pod draining, or one that died and whose lease has
        // not expired yet): nothing here may touch it until then.
        res.setHeader('retry-after', '5');
        problem(res, 503, 'session-held-elsewhere', 'Another worker serves this session', e.message);
      } else if (e instanceof WorkerStopping) {
        problem(res, 503, 'worker-stopping', 'The worker is stopping', 'Send the command again later.');
      } else {
        throw e;
      }
    }
  }

  private route(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const parts = path.split('/').filter((p) => p !== '');
    const method = req.method ?? '';
    if (parts.length === 1 && method === 'POST') {
      this.open(res, body);
      return;
    }
    const id = parts[1];
    if (parts.length < 2 || parts.length > 3 || !id || !UUID.test(id)) {
      notFound(res);
      return;
    }
    const key = `${method} ${parts[2] ?? ''}`;
    if (key === 'DELETE ') {
      this.sessions.delete(id.toLowerCase());
      res.writeHead(204).end();
      return;
    }
    const session = ['POST messages', 'POST interrupt', 'GET stream'].includes(key)
      ? this.sessions.find(id.toLowerCase())
      : undefined;
    if (!session) {
      notFound(res);
      return;
    }
    if (key === 'POST messages') {
      this.message(res, session, body, validTraceparent(req.headers[TRACEPARENT]));
    } else if (key === 'POST interrupt') {
      const turn = session.runningTurn();
      if (turn) {
        turn.interrupted = true;
        turn.abort.abort();
      }
      json(res, 202, { interrupted: turn !== undefined });
    } else {
      this.stream(req, res, session);
    }
  }

  private open(res: ServerResponse, body: Buffer): void {
    const request = parseObject(body);
    const conversationId = text(request, 'conversationId', 36);
    if (!UUID.test(conversationId)) {
      throw new BadRequest('conversationId must be a UUID');
    }
    const userId = text(request, 'userId', 255);
    const opened = this.sessions.open(conversationId.toLowerCase(), userId);
    json(res, opened.created ? 201 : 200, {
      id: opened.session.id,
      conversationId: opened.session.id,
      userId,
      created: opened.created,
      resumed: opened.resumed,
    });
  }

  private message(
    res: ServerResponse,
    session: Session,
    body: Buffer,
    traceparent: string | undefined,
  ): void {
    const request = parseObject(body);
    const messageId = text(request, 'messageId', MAX_ID);
    const message = text(request, 'text', MAX_TEXT);
    const { acceptance, turn } = session.accept(messageId, traceparent, () => this.slots.tryTake());
    switch (acceptance) {
      case 'started':
        if (turn) {
          this.turns
            .run(session, turn, message)
            .catch((e: unknown) => {
              log.error('turn runner failed', { conversationId: session.id, error: String(e) });
            })
            .finally(() => this.slots.release());
        }
        json(res, 202, { messageId, status: 'accepted' });
        break;
      case 'duplicate':
        json(res, 202, { messageId, status: 'duplicate' });
        break;
      case 'busy':
        problem(res, 409, 'turn-running', 'A turn is running', 'Send the next message after the turn ends.');
        break;
      case 'fenced':
        this.slots.release(); // admitted, but never started
        res.setHeader('retry-after', '5');
        problem(
          res,
          503,
          'session-held-elsewhere',
          'Another worker serves this session',
          'Send it again later.',
        );
        break;
      case 'saturated':
        res.setHeader('retry-after', String(BUSY_RETRY_AFTER_SECONDS));
        problem(
          res,
          429,
          'worker-busy',
          'Every engine is busy',
          `At most ${this.slots.max} turns run at once here; send the message again after Retry-After.`,
        );
        break;
      default:
        notFound(res);
    }
  }

  private stream(req: IncomingMessage, res: ServerResponse, session: Session): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 1000\n\n');
    let ended = false;
    const heartbeat = setInterval(() => res.write(': ping\n\n'), this.heartbeatMs);
    const subscriber = {
      send: (event: StoredEvent) => {
        if (ended) {
          return;
        }
        if (res.writableLength > MAX_BUFFERED) {
          // A reader this far behind is cut rather than buffered without bound; it reconnects with
          // its Last-Event-ID and loses nothing.
          subscriber.end();
          return;
        }
        res.write(frame(event));
      },
      end: () => {
        ended = true;
        clearInterval(heartbeat);
        res.end();
      },
    };
    const lastEventId = req.headers['last-event-id'];
    const backlog = session.subscribe(typeof lastEventId === 'string' ? lastEventId : undefined, subscriber);
    for (const event of backlog) {
      subscriber.send(event);
    }
    res.on('close', () => {
      ended = true;
      clearInterval(heartbeat);
      session.unsubscribe(subscriber);
    });
  }
}

function frame(event: StoredEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function notFound(res: ServerResponse): void {
  problem(res, 404, 'session-not-found', 'Not found', 'No such session or path.');
}

function parseObject(body: Buffer): Record<string, unknown> {
  const parsed: unknown = JSON.parse(body.toString('utf8'));
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BadRequest('The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

function text(request: Record<string, unknown>, field: string, maxLength: number): string {
  const value = request[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new BadRequest(`${field} is required and must be a non-empty string`);
  }
  if (value.length > maxLength) {
    throw new BadRequest(`${field} is longer than ${maxLength} characters`);
  }
  return value;
}
