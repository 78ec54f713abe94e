import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Agent } from '../src/agent.js';
import { Reports } from '../src/reports.js';
import { SessionStore } from '../src/sessionStore.js';
import { TurnTraces } from '../src/traceContext.js';
import { TurnRunner } from '../src/turnRunner.js';
import { WorkerTokens } from '../src/workerTokens.js';
import { testConfig } from './support.js';

/** How a turn ends, with the SDK's query replaced by a scripted one. */
async function endOf(agent: Agent, budgetDenied = false) {
  const store = new SessionStore(testConfig().configDir);
  const { session } = store.open(randomUUID(), 'u1');
  const events: { type: string; data: Record<string, unknown> }[] = [];
  session.subscribe(undefined, { send: (e) => events.push(e), end: () => {} });
  const reports = new Reports(
    new URL('http://127.0.0.1:9'),
    new WorkerTokens(new URL('http://127.0.0.1:9'), () => 'x'),
  );
  reports.stop(); // reports are not what this test is about
  const runner = new TurnRunner(
    agent,
    { takeBudgetDenial: () => budgetDenied, clearDenial: () => {} },
    reports,
    new TurnTraces(),
  );
  const { turn } = session.accept('m1');
  assert.ok(turn);
  await runner.run(session, turn, 'hello');
  assert.equal(session.runningTurn(), undefined);
  return events.at(-1);
}

test('an engine that throws ends the turn upstream_error', async () => {
  // biome-ignore lint/correctness/useYield: an engine that fails before its first message
  const failing: Agent = async function* () {
    throw new Error('spawn failed');
  };
  const end = await endOf(failing);
  assert.equal(end?.type, 'turn.failed');
  assert.deepEqual((end?.data.error as { type: string } | undefined)?.type, 'upstream_error');
});

test('a gateway spending-limit denial ends the turn budget_exceeded', async () => {
  const denied: Agent = async function* () {
    yield { type: 'result', subtype: 'success', is_error: true, result: 'API Error: 429' };
  };
  const end = await endOf(denied, true);
  assert.deepEqual((end?.data.error as { type: string } | undefined)?.type, 'budget_exceeded');
});

test('an engine that ends without a result is a failure, not a completion', async () => {
  const silent: Agent = async function* () {
    yield { type: 'system', subtype: 'init' };
  };
  const end = await endOf(silent);
  assert.equal(end?.type, 'turn.failed');
});
