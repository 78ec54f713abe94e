// Open-loop load generator for scripts/bench-gateway-open-loop.sh, in a process of its own:
//   node open-loop.mjs <url> <calls per second> <seconds> [header=value ...]
// Starts streaming calls at a fixed rate for the given seconds, each on time whether or not earlier
// calls have ended (as independent users do), on a keep-alive pool without a limit. Against the paced
// stand-in (upstream.mjs with 20 ms: 50 deltas, one second per call) the streams open at once settle at
// rate × 1 s. Each delta's text carries its send time (monotonic µs); its delay is the receipt time of
// the read that completed it minus that. Prints one JSON line: calls, per-event delay percentiles (ms),
// whole-call percentiles (ms), and how late the generator itself started calls (its own lag).
// Calls started in the first second are left out of the figures: the streams are still ramping up.
import http from "node:http";

const [url, rateArg, secondsArg, ...headerArgs] = process.argv.slice(2);
const rate = Number(rateArg);
const total = Math.round(rate * Number(secondsArg));
const rampCalls = Math.min(total - 1, Math.round(rate)); // the first second
const target = new URL(url);
const headers = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
for (const h of headerArgs) {
  const i = h.indexOf("=");
  headers[h.slice(0, i)] = h.slice(i + 1);
}
const content = "Explain this repository's build in a few words. ".repeat(34); // ~1.7 KB body, as load.mjs
const body = JSON.stringify({ model: "claude-sonnet-4-5-20250929", max_tokens: 128000, stream: true, messages: [{ role: "user", content }] });
headers["content-length"] = Buffer.byteLength(body);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

const micros = () => Number(process.hrtime.bigint() / 1000n);
const delays = new Float64Array(total * 50); // ms, every measured delta
let delayCount = 0;
const callMs = [];
const lateMs = [];
let completed = 0;
let failed = 0;
let open = 0;
let maxOpen = 0;
const DELTA = /"text":"@(\d+) /g;

function call(index, lateness) {
  return new Promise((resolve) => {
    const measured = index >= rampCalls;
    if (measured) lateMs.push(lateness);
    const start = performance.now();
    open++;
    maxOpen = Math.max(maxOpen, open);
    let finished = false; // a dropped stream can report both its request's and its response's error
    const finish = (ok, events) => {
      if (finished) return;
      finished = true;
      open--;
      if (ok && events === 50) {
        completed++;
        if (measured) callMs.push(performance.now() - start);
      } else failed++;
      resolve();
    };
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: "POST", headers, agent },
      (res) => {
        let pending = "";
        let events = 0;
        res.setEncoding("latin1");
        res.on("data", (chunk) => {
          const now = micros();
          pending += chunk;
          const complete = pending.lastIndexOf("\n\n"); // events are whole up to the last blank line
          if (complete < 0) return;
          for (const m of pending.slice(0, complete).matchAll(DELTA)) {
            events++;
            if (measured) delays[delayCount++] = (now - Number(m[1])) / 1000;
          }
          pending = pending.slice(complete + 2);
        });
        res.on("end", () => finish(res.statusCode === 200, events));
        res.on("error", () => finish(false, 0));
        res.on("close", () => finish(false, 0)); // after "end" when the answer was whole; alone if cut
      },
    );
    req.on("error", () => finish(false, 0));
    req.setTimeout(30_000, () => req.destroy()); // a stream silent for 30 s has stalled
    req.end(body);
  });
}

// Arrivals on a fixed schedule: each tick starts every call that is due, and records how late.
const calls = [];
const interval = 1000 / rate;
const t0 = performance.now();
await new Promise((done) => {
  const tick = () => {
    const now = performance.now();
    while (calls.length < total && t0 + calls.length * interval <= now) {
      calls.push(call(calls.length, now - (t0 + calls.length * interval)));
    }
    if (calls.length < total) setTimeout(tick, Math.max(0, t0 + calls.length * interval - performance.now()));
    else done();
  };
  tick();
});
await Promise.all(calls);
agent.destroy();

const pct = (sorted, n, p) => (n ? Number(sorted[Math.min(n - 1, Math.floor((p / 100) * n))].toFixed(3)) : null);
const d = delays.subarray(0, delayCount).sort();
const c = Float64Array.from(callMs).sort();
const l = Float64Array.from(lateMs).sort();
console.log(
  JSON.stringify({
    rate,
    started: total,
    completed,
    failed,
    max_open: maxOpen,
    events: delayCount,
    delay_p50: pct(d, delayCount, 50),
    delay_p99: pct(d, delayCount, 99),
    delay_p999: pct(d, delayCount, 99.9),
    delay_max: pct(d, delayCount, 100),
    call_p50: pct(c, c.length, 50),
    call_p99: pct(c, c.length, 99),
    start_late_p99: pct(l, l.length, 99),
  }),
);
