import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, REQUIRED_ENV } from '../src/config.js';
import { loadOperatorMcpServers } from '../src/mcp.js';
import { testConfig } from './support.js';

const complete = {
  TALKIDE_TENANT: 'acme',
  TALKIDE_ENV: 'dev',
  TALKIDE_GATEWAY_BASE_URL: 'http://cp:8080',
  TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_secret_value',
  TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.alloc(32, 1).toString('base64url')}`,
  CLAUDE_CONFIG_DIR: '/tmp/cfg',
};

test('the config comes from the environment; a missing variable is named, its secret never', () => {
  const config = loadConfig(complete);
  assert.equal(config.port, 8080);
  assert.equal(config.heartbeatMs, 15_000);
  assert.equal(config.agent, 'sdk');
  assert.deepEqual([...REQUIRED_ENV].sort(), Object.keys(complete).sort());
  for (const name of REQUIRED_ENV) {
    const without: Record<string, string> = { ...complete };
    delete without[name];
    assert.throws(
      () => loadConfig(without),
      (e: unknown) => e instanceof ConfigError && e.message.includes(name),
    );
  }
  assert.throws(
    () => loadConfig({ ...complete, TALKIDE_WORKER_COMMAND_KEY: 'nokid' }),
    (e: Error) => !e.message.includes('nokid'),
  );
});

test('an ANTHROPIC_API_KEY in the environment stops the start', () => {
  assert.throws(
    () => loadConfig({ ...complete, ANTHROPIC_API_KEY: 'sk-ant-x' }),
    /ANTHROPIC_API_KEY must not be set/,
  );
});

test('operator MCP servers: only remote https ones, from the provisioned file', () => {
  const dir = testConfig().configDir;
  const file = join(dir, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { docs: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { a: 'b' } } },
    }),
  );
  assert.deepEqual(loadOperatorMcpServers(file), {
    docs: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { a: 'b' } },
  });
  assert.deepEqual(loadOperatorMcpServers(undefined), {});
  const refused = (servers: unknown) => {
    writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    assert.throws(() => loadOperatorMcpServers(file), ConfigError);
  };
  refused({ shell: { command: 'sh', args: ['-c', 'curl evil'] } });
  refused({ plain: { type: 'http', url: 'http://mcp.example.com' } });
  refused({ 'talkide-issue-tracking': { type: 'http', url: 'https://x.example.com' } });
  refused({ 'Bad Name': { type: 'sse', url: 'https://x.example.com' } });
});
