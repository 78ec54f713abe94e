import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineProcesses } from '../src/engineProcesses.js';

/** An engine stand-in: exits `exitMs` after its input ends, or never when `exitMs` is negative. */
function engine(processes: EngineProcesses, exitMs: number) {
  const script =
    exitMs < 0
      ? 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); process.stdin.resume();'
      : `process.stdin.resume(); process.stdin.on('end', () => setTimeout(() => process.exit(0), ${exitMs}));`;
  return processes.spawn({
    command: process.execPath,
    args: ['-e', script],
    env: { PATH: process.env.PATH },
    signal: new AbortController().signal,
  });
}

test('exited waits until every engine has exited after its input ends', async () => {
  const processes = new EngineProcesses();
  const engines = [engine(processes, 300), engine(processes, 600)];
  assert.equal(processes.count(), 2);
  for (const e of engines) e.stdin.end();
  await processes.exited(10_000);
  assert.equal(processes.count(), 0);
  for (const e of engines) assert.equal(e.exitCode, 0);
});

test('an engine that outlives the bound is killed, and exited still waits for its end', async () => {
  const processes = new EngineProcesses();
  const stubborn = engine(processes, -1);
  const started = Date.now();
  await processes.exited(300);
  assert.equal(processes.count(), 0);
  assert.equal(stubborn.signalCode, 'SIGKILL');
  assert.ok(Date.now() - started >= 300);
});

test('with no engine running, exited returns at once', async () => {
  const processes = new EngineProcesses();
  const started = Date.now();
  await processes.exited(5_000);
  assert.ok(Date.now() - started < 1_000);
});
