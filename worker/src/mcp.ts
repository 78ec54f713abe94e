import { readFileSync } from 'node:fs';
import { createSdkMcpServer, type McpServerConfig, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { BUILD_SERVER } from './buildTools.js';
import { ConfigError } from './config.js';
import type { Reports } from './reports.js';
import { WatchedFile } from './secrets.js';

/**
 * Mara's MCP servers. `talkide-issue-tracking` (UC-09) runs in-process: its one tool files an issue with
 * the control plane for the conversation it runs in.
 *
 * Per-tenant-environment servers come only from the operator: a JSON file the control plane provisions
 * (`TALKIDE_WORKER_MCP_CONFIG`, mounted read-only next to the Secret), never from the working tree — the
 * tree is written by Mara and by the user's prompts, so a `.mcp.json` there would let a prompt add a
 * server. Only remote servers (`http`, `sse`) with an https URL (or loopback) are accepted: a `stdio`
 * entry would run an arbitrary command inside the pod. The kubelet updates the mounted file when the
 * operator changes the list; the worker re-reads it (at most once a second) and the turns that start after
 * get the new list, without a restart.
 */
export const ISSUE_SERVER = 'talkide-issue-tracking';

export function issueTrackingServer(conversationId: string, reports: Reports): McpServerConfig {
  return createSdkMcpServer({
    name: ISSUE_SERVER,
    version: '1.0.0',
    tools: [
      tool(
        'report_issue',
        'Report a problem in the project or the environment to the TalkIDE operators (it appears in their admin view).',
        {
          title: z.string().min(1).max(300),
          body: z.string().max(20_000).optional(),
          severity: z.enum(['low', 'medium', 'high', 'critical']).optional(),
          labels: z.array(z.string().min(1).max(50)).max(20).optional(),
        },
        async (args) => {
          try {
            const id = await reports.issue(conversationId, args);
            return { content: [{ type: 'text', text: `Issue reported (${id}).` }] };
          } catch (e) {
            return {
              content: [{ type: 'text', text: `The issue could not be reported: ${String(e)}` }],
              isError: true,
            };
          }
        },
        // Offered with every request, not deferred behind tool search: Mara should know she can report.
        { alwaysLoad: true },
      ),
    ],
  });
}

export type RemoteMcpServer = { type: 'http' | 'sse'; url: string; headers?: Record<string, string> };

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The worker's own in-process servers: an operator's entry of the same name would be silently replaced by
 * one of them (worker.ts puts them last), so it is refused where the list is read.
 */
export const RESERVED_SERVER_NAMES: ReadonlySet<string> = new Set([ISSUE_SERVER, BUILD_SERVER]);

/** The operator's MCP servers as they are now, and a version that changes whenever they may have. */
export interface OperatorMcpServers {
  current(): { value: Record<string, RemoteMcpServer>; version: number };
}

/**
 * The operator's list from `file`, re-read when the kubelet swaps it; a bad file at start stops the start,
 * a bad new version keeps the last good list (logged, never its content).
 */
export function watchOperatorMcpServers(file: string | undefined, recheckMs = 1000): OperatorMcpServers {
  if (!file) {
    return { current: () => ({ value: {}, version: 0 }) };
  }
  return new WatchedFile(
    file,
    (text) => parseOperatorMcpServers(file, text),
    recheckMs,
    Date.now,
    'MCP server list',
  );
}

/** Reads and checks the operator's MCP server list; a bad file stops the start, naming what is wrong. */
export function loadOperatorMcpServers(file: string | undefined): Record<string, RemoteMcpServer> {
  if (!file) {
    return {};
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`the MCP server list ${file} is not readable JSON`);
  }
  return parseOperatorMcpServers(file, text);
}

function parseOperatorMcpServers(file: string, text: string): Record<string, RemoteMcpServer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`the MCP server list ${file} is not readable JSON`);
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ConfigError(`the MCP server list ${file} needs an object "mcpServers"`);
  }
  const result: Record<string, RemoteMcpServer> = {};
  for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
    if (!NAME.test(name) || RESERVED_SERVER_NAMES.has(name)) {
      throw new ConfigError(`MCP server name "${name}" is not allowed`);
    }
    const entry = value as { type?: unknown; url?: unknown; headers?: unknown };
    if (entry?.type !== 'http' && entry?.type !== 'sse') {
      throw new ConfigError(`MCP server "${name}": only type http or sse is allowed`);
    }
    if (typeof entry.url !== 'string' || !allowedUrl(entry.url)) {
      throw new ConfigError(`MCP server "${name}": url must be https (or http on loopback)`);
    }
    const server: RemoteMcpServer = { type: entry.type, url: entry.url };
    if (entry.headers !== undefined) {
      if (
        entry.headers === null ||
        typeof entry.headers !== 'object' ||
        Object.values(entry.headers).some((h) => typeof h !== 'string')
      ) {
        throw new ConfigError(`MCP server "${name}": headers must map names to strings`);
      }
      server.headers = entry.headers as Record<string, string>;
    }
    result[name] = server;
  }
  return result;
}

function allowedUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    );
  } catch {
    return false;
  }
}
