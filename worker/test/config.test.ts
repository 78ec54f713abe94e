import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, REQUIRED_ENV } from '../src/config.js';
import { loadOperatorMcpServers } from '../src/mcp.js';
import { secretFiles } from '../src/secrets.js';
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
  assert.equal(config.secrets.identityToken(), 'tkwi_secret_value');
  for (const name of [...REQUIRED_ENV, 'TALKIDE_WORKER_IDENTITY_TOKEN', 'TALKIDE_WORKER_COMMAND_KEY']) {
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

test('the sandbox modes: the five known ones, and no allowed hosts in the engine sandbox, which has no network', () => {
  assert.equal(loadConfig(complete).sandbox, 'engine');
  for (const mode of ['on', 'nested', 'engine', 'engine-nested', 'off']) {
    assert.equal(loadConfig({ ...complete, TALKIDE_WORKER_SANDBOX: mode }).sandbox, mode);
  }
  assert.throws(() => loadConfig({ ...complete, TALKIDE_WORKER_SANDBOX: 'bwrap' }), /must be one of/);
  assert.deepEqual(
    loadConfig({
      ...complete,
      TALKIDE_WORKER_SANDBOX: 'on',
      TALKIDE_WORKER_SANDBOX_ALLOWED_DOMAINS: 'a.example, b.example',
    }).sandboxAllowedDomains,
    ['a.example', 'b.example'],
  );
  assert.throws(
    () =>
      loadConfig({
        ...complete,
        TALKIDE_WORKER_SANDBOX: 'engine',
        TALKIDE_WORKER_SANDBOX_ALLOWED_DOMAINS: 'a.example',
      }),
    /not supported with TALKIDE_WORKER_SANDBOX=engine/,
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
  refused({ 'talkide-builds': { type: 'http', url: 'https://x.example.com' } });
  refused({ 'Bad Name': { type: 'sse', url: 'https://x.example.com' } });
});

/** A Secret volume as the kubelet writes it: files behind a `..data` link that an update swaps atomically. */
function secretVolume(dir: string, version: string, token: string, keyByte: number): void {
  const data = join(dir, `..${version}`);
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'identity-token'), token);
  writeFileSync(join(data, 'command-key'), `k${version}:${Buffer.alloc(32, keyByte).toString('base64url')}`);
  symlinkSync(`..${version}`, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
}

test('secrets from the mounted Secret: read from files, re-read after the kubelet updates them, never from both', () => {
  const dir = join(testConfig().configDir, 'secret');
  secretVolume(dir, '1', 'tkwi_first', 1);
  symlinkSync('..data/identity-token', join(dir, 'identity-token'));
  symlinkSync('..data/command-key', join(dir, 'command-key'));
  const base: Record<string, string> = { ...complete, TALKIDE_WORKER_SECRETS_DIR: dir };
  delete base.TALKIDE_WORKER_IDENTITY_TOKEN;
  delete base.TALKIDE_WORKER_COMMAND_KEY;
  assert.equal(loadConfig(base).secrets.identityToken(), 'tkwi_first');
  assert.throws(
    () => loadConfig({ ...base, TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_env' }),
    (e: unknown) => e instanceof ConfigError && !e.message.includes('tkwi_env'),
  );
  let now = 0;
  const secrets = secretFiles(dir, 1000, () => now);
  assert.equal(secrets.commandKeys()[0]?.kid, 'k1');
  secretVolume(dir, '2', 'tkwi_rotated', 2);
  assert.equal(secrets.identityToken(), 'tkwi_first', 'checked at most once per second');
  now += 1000;
  assert.equal(secrets.identityToken(), 'tkwi_rotated');
  assert.equal(secrets.commandKeys()[0]?.kid, 'k2');
  // A broken update keeps the last good value rather than stopping every command.
  writeFileSync(join(dir, '..2', 'command-key'), 'garbage');
  now += 1000;
  assert.equal(secrets.commandKeys()[0]?.kid, 'k2');
  const empty = join(testConfig().configDir, 'none');
  mkdirSync(empty);
  assert.throws(
    () => secretFiles(empty),
    (e: unknown) => e instanceof ConfigError && e.message.includes('identity-token'),
  );
});
