import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { BuildApi } from '../src/buildApi.js';
import { buildStatus, runBuild, TurnSignals } from '../src/buildTools.js';
import { WorkerTokens } from '../src/workerTokens.js';

/**
 * run_build and build_status against a fake control plane: the calls carry the minted WorkerToken, the
 * log streams into progress as it arrives, the result carries the outcome and the log's tail, and an
 * aborted turn cancels the build.
 */
const CONVERSATION = '0b6f7a54-3c1e-4c4e-9d43-1f7a2b6c9d10';
const BUILD = '5d0f6a54-3c1e-4c4e-9d43-1f7a2b6c9d10';

interface Fake {
  url: URL;
  calls: { method: string; path: string; token: string; body: string; lastEventId?: string }[];
  logs?: ServerResponse;
  close: () => void;
}

async function fakeControlPlane(onLogs: (res: ServerResponse) => void): Promise<Fake> {
  const fake = { calls: [] } as unknown as Fake;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      if (path === '/api/v1/worker-gateway/token/mint') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"wt-1","expiresIn":120}');
        return;
      }
      fake.calls.push({
        method: req.method ?? '',
        path,
        token: String(req.headers['x-worker-token']),
        body,
        lastEventId: req.headers['last-event-id'] as string | undefined,
      });
      const view = (state: string) =>
        JSON.stringify({
          id: BUILD,
          kind: 'gradle',
          state,
          queuePosition: 0,
          reason: null,
          durationMs: 1500,
        });
      if (req.method === 'POST' && path === '/api/internal/worker/builds') {
        res.writeHead(202, { 'content-type': 'application/json' }).end(view('running'));
      } else if (req.method === 'GET' && path === `/api/internal/worker/builds/${BUILD}/logs`) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        onLogs(res);
      } else if (req.method === 'GET' && path === `/api/internal/worker/builds/${BUILD}`) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(view('running'));
      } else if (req.method === 'DELETE') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(view('cancelled'));
      } else {
        res
          .writeHead(404, { 'content-type': 'application/problem+json' })
          .end('{"detail":"No such build in this conversation."}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  fake.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return fake;
}

function api(fake: Fake): BuildApi {
  return new BuildApi(fake.url, new WorkerTokens(fake.url, () => 'tkwi'));
}

test('run_build starts the build, streams its log as progress and returns the outcome with the tail', async () => {
  const progress: string[] = [];
  let sendRest: () => void = () => {};
  const fake = await fakeControlPlane((res) => {
    res.write(': heartbeat\n\n');
    res.write('id: 1\nevent: line\ndata: > Task :compileJava\n\n');
    sendRest = () => {
      res.write('id: 2\nevent: line\ndata: BUILD SUCCESSFUL\n\n');
      res.end('event: end\ndata: {"state":"succeeded","reason":null,"durationMs":1500}\n\n');
    };
  });
  const result = runBuild(
    api(fake),
    CONVERSATION,
    { kind: 'gradle', tasks: ['test'] },
    new AbortController().signal,
    (line) => {
      progress.push(line);
      // The first line arrived before the build ended: progress is live, not replayed at the end.
      if (line === '> Task :compileJava') sendRest();
    },
  );
  const outcome = await result;
  fake.close();

  assert.deepEqual(progress, [`build ${BUILD} started`, '> Task :compileJava', 'BUILD SUCCESSFUL']);
  assert.equal(outcome.isError, undefined);
  const text = outcome.content[0]?.text ?? '';
  assert.match(text, new RegExp(`^Build ${BUILD} succeeded in 1.5 s\\.`));
  assert.match(text, /Last 2 of 2 log lines:\n> Task :compileJava\nBUILD SUCCESSFUL$/);
  const start = fake.calls[0];
  assert.equal(start?.method, 'POST');
  assert.equal(start?.token, 'wt-1');
  assert.deepEqual(JSON.parse(start?.body ?? '{}'), { kind: 'gradle', tasks: ['test'] });
});

test('a log stream that ends with its WorkerToken is resumed after the last line, however often', async () => {
  const progress: string[] = [];
  let streams = 0;
  const fake = await fakeControlPlane((res) => {
    streams++;
    // Seven token lifetimes, more than the retries allowed for errors: each one just ends, no end event.
    if (streams <= 7) {
      res.end(`id: ${streams}\nevent: line\ndata: line ${streams}\n\n`);
    } else if (streams === 8) {
      // Then one broken connection: still retried, since those ends were no failures.
      res.destroy();
    } else {
      res.end('event: end\ndata: {"state":"succeeded","reason":null,"durationMs":1500}\n\n');
    }
  });
  const outcome = await runBuild(
    api(fake),
    CONVERSATION,
    { kind: 'gradle', tasks: ['test'] },
    new AbortController().signal,
    (line) => progress.push(line),
  );
  fake.close();

  assert.equal(outcome.isError, undefined);
  assert.deepEqual(progress.slice(1), ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6', 'line 7']);
  const resumes = fake.calls.filter((c) => c.path.endsWith('/logs')).map((c) => c.lastEventId);
  assert.deepEqual(resumes, [undefined, '1', '2', '3', '4', '5', '6', '7', '7']);
});

test('a failed build is a tool error naming the reason', async () => {
  const fake = await fakeControlPlane((res) => {
    res.write('id: 1\nevent: line\ndata: FAILURE: Build failed\n\n');
    res.end(
      'event: end\ndata: {"state":"failed","reason":"the build failed with exit code 1","durationMs":900}\n\n',
    );
  });
  const outcome = await runBuild(
    api(fake),
    CONVERSATION,
    { kind: 'gradle', tasks: ['test'] },
    AbortSignal.timeout(10_000),
    () => {},
  );
  fake.close();
  assert.equal(outcome.isError, true);
  assert.match(outcome.content[0]?.text ?? '', /failed in 0.9 s: the build failed with exit code 1\./);
});

test('cancelling the turn cancels the build', async () => {
  const fake = await fakeControlPlane((res) => {
    res.write('id: 1\nevent: line\ndata: > Task :test\n\n');
  });
  const turn = new AbortController();
  const outcome = runBuild(
    api(fake),
    CONVERSATION,
    { kind: 'gradle', tasks: ['test'] },
    turn.signal,
    (line) => {
      if (line === '> Task :test') turn.abort();
    },
  );
  const result = await outcome;
  const deadline = Date.now() + 5000;
  while (!fake.calls.some((c) => c.method === 'DELETE') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  fake.close();
  assert.equal(result.isError, true);
  assert.match(result.content[0]?.text ?? '', /cancelled with the turn/);
  const cancel = fake.calls.find((c) => c.method === 'DELETE');
  assert.equal(cancel?.path, `/api/internal/worker/builds/${BUILD}`);
  assert.equal(cancel?.token, 'wt-1');
});

test('build_status reads the state; an unknown build gives the control plane’s reason', async () => {
  const fake = await fakeControlPlane(() => {});
  const known = await buildStatus(api(fake), CONVERSATION, BUILD);
  const unknown = await buildStatus(api(fake), CONVERSATION, '00000000-0000-4000-8000-000000000000');
  fake.close();
  assert.equal(known.content[0]?.text, `Build ${BUILD} (gradle) is running, 1.5 s.`);
  assert.equal(unknown.isError, true);
  assert.match(unknown.content[0]?.text ?? '', /No such build in this conversation/);
});

test('TurnSignals hands the running turn’s signal to the tools of its conversation', async () => {
  const signals = new TurnSignals();
  const turn = new AbortController();
  const agent = signals.track(async function* () {});
  agent({ conversationId: CONVERSATION, text: 'hi', signal: turn.signal });
  assert.equal(signals.current(CONVERSATION), turn.signal);
  assert.equal(signals.current('other'), undefined);
});
