import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { logger } from './log.js';
import type { RemoteMcpServer } from './mcp.js';

const log = logger('mcp-relay');

/**
 * The operator's remote MCP servers for an engine in its sandbox (docs/security.md, engine sandbox). The
 * sandbox has no network, and the servers' header values are credentials an engine's tools could read in
 * its command line; so the engine gets, per server, a loopback port of its own network namespace bridged
 * to a Unix socket of the worker's, and the worker relays each request to that server's origin only,
 * adding the operator's headers itself. Neither the credential nor any other host is in reach from inside.
 */
export const FIRST_MCP_PORT = 4181;
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface RelayedServer {
  /** What the engine is given: the same transport at its loopback port, same path, no headers. */
  config: RemoteMcpServer;
  /** The worker's side of the bridge. */
  socket: string;
  port: number;
  close(): void;
}

/** Starts the relay of one server on `socket`; the engine dials `127.0.0.1:port` inside its sandbox. */
export function relayMcpServer(server: RemoteMcpServer, socket: string, port: number): RelayedServer {
  const target = new URL(server.url);
  const relay: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    // Origin-form only: an absolute or authority form would name another host.
    if (!path.startsWith('/') || path.startsWith('//')) {
      req.resume();
      res.writeHead(400).end();
      return;
    }
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    }
    Object.assign(headers, server.headers ?? {}, { host: target.host });
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(new URL(path, target.origin), { method: req.method, headers }, (answer) => {
      const back: IncomingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_BY_HOP.has(name)) back[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, back);
      res.flushHeaders();
      answer.pipe(res); // event streams go through chunk by chunk
    });
    upstream.on('error', (e) => {
      log.warn('MCP server unreachable', { host: target.host, error: String(e) });
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // The engine hung up: stop the server's stream too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  relay.on('error', (e) => log.error('MCP relay socket failed', { error: String(e) }));
  relay.listen(socket);
  return {
    config: { type: server.type, url: `http://127.0.0.1:${port}${target.pathname}${target.search}` },
    socket,
    port,
    close: () => {
      relay.closeAllConnections();
      relay.close();
    },
  };
}
