import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { type Agent, scriptedAgent, sdkOptions } from '../src/agent.js';
import { Worker } from '../src/worker.js';
import { Client, testConfig, turnEnded } from './support.js';

/**
 * The operator's MCP server list (a mounted Secret in a pod) changes while the worker runs: the turns that
 * start after the change get the new list in their engine options, the running worker keeps its sessions.
 */
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** As the kubelet updates a mounted Secret: the new content appears under the same name in one rename. */
function publish(file: string, servers: Record<string, unknown>): void {
  const next = `${file}.next`;
  writeFileSync(next, JSON.stringify({ mcpServers: servers }));
  renameSync(next, file);
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a changed MCP server list reaches the next turn’s engine options, without a restart and with the session kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'talkide-mcp-'));
  mkdirSync(join(dir, 'mcp'));
  const file = join(dir, 'mcp', 'mcp-servers.json');
  publish(file, {
    docs: { type: 'http', url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer one' } },
  });

  // Each turn records the options its engine is started with (the production function), then answers.
  const turnOptions: Options[] = [];
  let worker: Worker | undefined;
  const scripted = scriptedAgent(10);
  const recording: Agent = (turn) => {
    const grant = { baseUrl: 'http://127.0.0.1:9', credential: 'c', revoke: () => {} };
    turnOptions.push(
      sdkOptions((worker as Worker).engineSettings, turn.conversationId, new AbortController(), grant),
    );
    return scripted(turn);
  };
  worker = await Worker.start(testConfig({ mcpConfigFile: file }), recording);
  cleanups.push(() => (worker as Worker).stop());
  const client = new Client(`http://127.0.0.1:${worker.port()}`);
  const id = randomUUID();
  assert.equal((await client.open(id)).status, 201);

  assert.equal((await client.message(id, 'm1')).status, 202);
  await client.events(id, (events) => turnEnded(events, 1));
  const first = turnOptions[0] as Options;
  assert.deepEqual(first.mcpServers?.docs, {
    type: 'http',
    url: 'https://docs.example.com/mcp',
    headers: { Authorization: 'Bearer one' },
  });
  assert.ok(first.allowedTools?.includes('mcp__docs'));
  // The list's directory is denied to the tools like the Secret's: the header values are credentials.
  assert.ok(first.disallowedTools?.includes(`Read(/${join(dir, 'mcp')}/**)`), String(first.disallowedTools));

  const versionBefore = worker.engineSettings.mcpVersion?.();
  publish(file, { search: { type: 'sse', url: 'https://search.example.com/sse' } });
  await until(() => worker?.engineSettings.mcpVersion?.() !== versionBefore);

  assert.equal((await client.message(id, 'm2')).status, 202);
  const events = await client.events(id, (all) => turnEnded(all, 2));
  const second = turnOptions[1] as Options;
  assert.equal(second.mcpServers?.docs, undefined, 'a removed server is gone from the next turn');
  assert.deepEqual(second.mcpServers?.search, { type: 'sse', url: 'https://search.example.com/sse' });
  assert.ok(second.allowedTools?.includes('mcp__search'));
  assert.ok(!second.allowedTools?.includes('mcp__docs'));
  // The same session, both turns in its one event log: nothing was restarted or lost.
  assert.equal(events.filter((e) => e.type === 'turn.completed').length, 2);
  assert.equal(events.filter((e) => e.type === 'session.status').length, 1);
});

test('a broken new MCP server list keeps the last good one (the start would have refused it)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'talkide-mcp-'));
  const file = join(dir, 'mcp-servers.json');
  publish(file, { docs: { type: 'http', url: 'https://docs.example.com/mcp' } });
  const worker = await Worker.start(testConfig({ mcpConfigFile: file }));
  cleanups.push(() => worker.stop());
  const options = () =>
    sdkOptions(worker.engineSettings, randomUUID(), new AbortController(), {
      baseUrl: 'http://127.0.0.1:9',
      credential: 'c',
      revoke: () => {},
    });
  const version = worker.engineSettings.mcpVersion?.();
  publish(file, { shell: { type: 'stdio', command: 'sh' } });
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  assert.equal(worker.engineSettings.mcpVersion?.(), version);
  assert.ok(options().mcpServers?.docs);
  assert.equal(options().mcpServers?.shell, undefined);
});
