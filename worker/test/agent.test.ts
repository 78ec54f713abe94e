import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { engineEnvironment, hasTranscript, sdkOptions } from '../src/agent.js';
import { testConfig } from './support.js';

const settings = (configDir: string) => ({
  configDir,
  workspaceDir: join(configDir, 'workspace'),
  model: 'claude-x',
  grant: () => GRANT,
  boundary: { sandbox: 'on' as const, allowedDomains: [], deniedDirs: [configDir] },
  mcpServers: () => ({}),
});
const ID = '0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10';
const GRANT = { baseUrl: 'http://127.0.0.1:4321', credential: 'tkcap_engine', revoke: () => {} };

test("the engine's environment holds no worker secret and points at the local proxy", () => {
  process.env.TALKIDE_WORKER_IDENTITY_TOKEN = 'tkwi_must_not_leak';
  process.env.ANTHROPIC_API_KEY = 'sk-ant-must-not-leak';
  try {
    const env = engineEnvironment(settings('/cfg'), GRANT);
    assert.equal(env.ANTHROPIC_BASE_URL, 'http://127.0.0.1:4321');
    assert.equal(env.ANTHROPIC_AUTH_TOKEN, 'tkcap_engine');
    assert.equal(env.CLAUDE_CONFIG_DIR, '/cfg');
    assert.doesNotMatch(JSON.stringify(env), /must_not_leak|must-not-leak/);
  } finally {
    delete process.env.TALKIDE_WORKER_IDENTITY_TOKEN;
    delete process.env.ANTHROPIC_API_KEY;
  }
});

test('a first turn starts the SDK session under the conversation id; a later one resumes it', () => {
  const dir = testConfig().configDir;
  const first = sdkOptions(settings(dir), ID, new AbortController(), GRANT);
  assert.equal(first.sessionId, ID);
  assert.equal(first.resume, undefined);
  assert.equal(first.permissionMode, 'dontAsk');
  assert.equal(first.includePartialMessages, true);
  assert.deepEqual(first.settingSources, []);
  assert.ok(first.allowedTools?.includes('Bash'));
  mkdirSync(join(dir, 'projects', '-work-tree'), { recursive: true });
  writeFileSync(join(dir, 'projects', '-work-tree', `${ID}.jsonl`), '{}\n');
  assert.equal(hasTranscript(dir, ID), true);
  const later = sdkOptions(settings(dir), ID, new AbortController(), GRANT);
  assert.equal(later.resume, ID);
  assert.equal(later.sessionId, undefined);
});
