// Benchmark of the Node worker (not a test): message accepted (the 202) → the engine's first model call
// reaching the gateway, for a conversation's first turn and for follow-ups (warm engine), and the
// worker's resident memory idle and with open sessions. The worker runs as a child process with the real
// Agent SDK engine; the control plane is a stand-in on a loopback port that mints tokens and answers
// every model call with a short simulator-like stream (so the figures are the worker's and the engine's,
// not the model's). Run through scripts/bench-worker-node.sh.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 5);
const TURNS = Number(process.env.BENCH_TURNS_PER_CONVERSATION ?? 11);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20);
const key = new Uint8Array(32).fill(9);
const modelCalls = []; // when each streaming model call reached the gateway

const gateway = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.url === '/api/v1/worker-gateway/token/mint') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token: 'wt', expiresIn: 120 }));
      return;
    }
    if (req.url.startsWith('/api/internal/worker/')) {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const parsed = JSON.parse(body);
    if (parsed.stream) modelCalls.push(performance.now());
    if (!parsed.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_b', type: 'message', role: 'assistant', model: parsed.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (t, d) => res.write(`event: ${t}\ndata: ${JSON.stringify({ type: t, ...d })}\n\n`);
    ev('message_start', { message: { id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } } });
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Simulated reply.' } });
    ev('content_block_stop', { index: 0 });
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } });
    ev('message_stop', {});
    res.end();
  });
});
await new Promise((r) => gateway.listen(0, '127.0.0.1', r));

const configDir = mkdtempSync(join(tmpdir(), 'bench-worker-'));
const child = spawn('node', ['dist/src/main.js'], {
  env: {
    PATH: process.env.PATH,
    HOME: configDir,
    TALKIDE_TENANT: 'bench',
    TALKIDE_ENV: 'dev',
    TALKIDE_GATEWAY_BASE_URL: `http://127.0.0.1:${gateway.address().port}`,
    TALKIDE_WORKER_IDENTITY_TOKEN: 'tkwi_bench',
    TALKIDE_WORKER_COMMAND_KEY: `k1:${Buffer.from(key).toString('base64url')}`,
    CLAUDE_CONFIG_DIR: configDir,
    TALKIDE_WORKER_PORT: '0',
    TALKIDE_WORKER_HOST: '127.0.0.1',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((resolve) => {
  child.stdout.on('data', (chunk) => {
    const match = /"port":(\d+)/.exec(chunk.toString());
    if (match) resolve(Number(match[1]));
  });
});
const base = `http://127.0.0.1:${port}`;

async function call(method, target, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ tid: 'bench', eid: 'dev', htm: method, htu: target, bsh: createHash('sha256').update(text).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'cmd+jwt', kid: 'k1' })
    .setAudience('talkide-worker').setIssuedAt(now).setExpirationTime(now + 60).setJti(randomUUID()).sign(key);
  const res = await fetch(base + target, { method, headers: { 'x-worker-token': token, 'content-type': 'application/json' }, body: text || undefined });
  return { status: res.status, text: await res.text() };
}

async function turn(id, n) {
  const eventsFile = join(configDir, 'talkide', 'sessions', id, 'events.jsonl');
  const ends = () => readFileSync(eventsFile, 'utf8').split('\n').filter((l) => /"type":"turn\.(completed|failed)"/.test(l)).length;
  const before = ends();
  const callsBefore = modelCalls.length;
  const accepted = await call('POST', `/sessions/${id}/messages`, { messageId: `m${n}`, text: `Turn ${n}: say hi.` });
  const acceptedAt = performance.now();
  if (accepted.status !== 202) throw new Error(`message refused: ${accepted.status} ${accepted.text}`);
  while (ends() === before) await new Promise((r) => setTimeout(r, 20));
  const last = readFileSync(eventsFile, 'utf8').trim().split('\n').at(-1);
  if (!last.includes('turn.completed')) throw new Error(`turn failed: ${last}`);
  return Math.max(0, modelCalls[callsBefore] - acceptedAt);
}

function rssKb(pid) {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  let children = 0;
  let engines = 0;
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) {
        children += rssKb(Number(p)).total;
        engines++;
      }
    } catch {}
  }
  return { own, total: own + children, engines };
}
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

await new Promise((r) => setTimeout(r, 1000));
const idle = rssKb(child.pid);
const first = [];
const followUp = [];
for (let c = 0; c < CONVERSATIONS; c++) {
  const id = randomUUID();
  await call('POST', '/sessions', { conversationId: id, userId: 'bench', resume: true });
  first.push(await turn(id, 0));
  process.stderr.write(`first turn: ${first.at(-1).toFixed(0)} ms\n`);
  for (let t = 1; t < TURNS; t++) {
    followUp.push(await turn(id, t));
    process.stderr.write(`follow-up: ${followUp.at(-1).toFixed(0)} ms\n`);
  }
  process.stderr.write(`conversation ${c + 1}/${CONVERSATIONS} done\n`);
}
// The rest of the open sessions have no turn yet: their cost is the worker's, the engines' is above.
for (let s = CONVERSATIONS; s < SESSIONS; s++) {
  await call('POST', '/sessions', { conversationId: randomUUID(), userId: 'bench', resume: true });
}
const loaded = rssKb(child.pid);
const row = (name, xs) => `| ${name} | ${xs.length} | ${pct(xs, 50).toFixed(0)} ms | ${pct(xs, 99).toFixed(0)} ms |`;
console.log('| message accepted → first model call | turns | p50 | p99 |');
console.log('|---|---|---|---|');
console.log(row('first turn of a conversation (engine starts)', first));
console.log(row('follow-up turn (warm engine)', followUp));
console.log('');
console.log('| resident memory | worker process | worker + warm engines |');
console.log('|---|---|---|');
console.log(`| idle | ${mb(idle.own)} | ${mb(idle.total)} (${idle.engines} engines) |`);
console.log(`| ${SESSIONS} open sessions, ${CONVERSATIONS} of them after turns | ${mb(loaded.own)} | ${mb(loaded.total)} (${loaded.engines} engines) |`);
child.kill('SIGTERM');
gateway.close();
process.exit(0);
