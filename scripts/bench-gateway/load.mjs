// Closed-loop load generator for scripts/bench-gateway.sh, in a process of its own:
//   node load.mjs <url> <clients> <seconds | -calls> <stream|json> [header=value ...]
// Each client sends the next call once the previous answer ended, on a keep-alive connection of its
// own. Prints one JSON line: calls, errors, req/s, and percentiles (ms) of the time to first byte and
// of the whole call. A call counts if it started and ended inside the measured window.
import http from "node:http";

const [url, clientsArg, durationArg, mode, ...headerArgs] = process.argv.slice(2);
const clients = Number(clientsArg);
const byCount = durationArg.startsWith("-");
const limit = Math.abs(Number(durationArg));
const target = new URL(url);
const headers = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
for (const h of headerArgs) {
  const i = h.indexOf("=");
  headers[h.slice(0, i)] = h.slice(i + 1);
}
const content = "Explain this repository's build in a few words. ".repeat(34); // ~1.7 KB body
const body = JSON.stringify({
  model: "claude-sonnet-4-5-20250929",
  max_tokens: mode === "stream" ? 128000 : 1024,
  stream: mode === "stream",
  messages: [{ role: "user", content }],
});
headers["content-length"] = Buffer.byteLength(body);

const ttfb = [];
const total = [];
let errors = 0;
let started = 0;
const t0 = performance.now();
const end = byCount ? Number.POSITIVE_INFINITY : t0 + limit * 1000;

function once(agent) {
  return new Promise((resolve) => {
    const start = performance.now();
    let first = 0;
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: "POST", headers, agent },
      (res) => {
        res.on("data", () => {
          if (!first) first = performance.now();
        });
        res.on("end", () => {
          const done = performance.now();
          if (res.statusCode !== 200) errors++;
          else if (done <= end) {
            ttfb.push(first - start);
            total.push(done - start);
          }
          resolve();
        });
      },
    );
    req.on("error", () => {
      errors++;
      resolve();
    });
    req.end(body);
  });
}

async function client() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (performance.now() < end && (!byCount || started < limit)) {
    started++;
    await once(agent);
  }
  agent.destroy();
}

await Promise.all(Array.from({ length: clients }, client));
const elapsed = ((byCount ? performance.now() : end) - t0) / 1000;
const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(3));
};
console.log(
  JSON.stringify({
    calls: total.length,
    started,
    errors,
    rps: Number((total.length / elapsed).toFixed(1)),
    ttfb_p50: pct(ttfb, 50),
    ttfb_p99: pct(ttfb, 99),
    total_p50: pct(total, 50),
    total_p99: pct(total, 99),
  }),
);
