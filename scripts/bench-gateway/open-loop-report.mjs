// Reads the results of scripts/bench-gateway-open-loop.sh ("run <rate> <target> <json>" lines)
// and prints one table per rate, then the target: at the highest rate where the bare proxy adds at most
// 2 ms to the per-event p99 over direct, the gateway adds at most 2 ms too.
//   node open-loop-report.mjs <results file>
import fs from "node:fs";

const runs = {}; // rate -> target -> figures
for (const line of fs.readFileSync(process.argv[2], "utf8").trim().split("\n")) {
  const [label, rate, target, ...json] = line.split(" ");
  if (label !== "run") continue;
  (runs[rate] ??= {})[target] = JSON.parse(json.join(" "));
}
const f = (x, d = 2) => (x == null || Number.isNaN(x) ? "n/a" : Number(x).toFixed(d));
const three = (r, add = { delay_p50: 0, delay_p99: 0, delay_p999: 0 }) =>
  `${f(r.delay_p50 - add.delay_p50)} / ${f(r.delay_p99 - add.delay_p99)} / ${f(r.delay_p999 - add.delay_p999)}`;
const names = { direct: "direct (the stand-in)", bare: "bare Java proxy", gateway: "gateway", portkey: "Portkey (Node 22)" };
const added99 = (rate, target) => runs[rate][target] && runs[rate][target].delay_p99 - runs[rate].direct.delay_p99;

const rates = Object.keys(runs).map(Number).sort((a, b) => a - b);
for (const rate of rates) {
  const r = runs[rate];
  console.log(`\n${rate} calls/s (about ${rate} streams open; 50 deltas 20 ms apart per call):`);
  console.log("| target | calls ok / failed | open at most | per-event delay p50 / p99 / p99.9 ms | added over direct p50 / p99 / p99.9 ms | call p50 / p99 ms | CPU per call, ms | heap peak / kept MB (GCs, ms) | RSS peak MB | generator late p99 ms |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const [target, name] of Object.entries(names)) {
    const t = r[target];
    if (!t) continue;
    const cpu = ((t.cpu_s - t.cpu_s_before) * 1000) / t.started;
    const heap = t.heap_peak_mb == null ? "n/a" : `${t.heap_peak_mb} / ${t.heap_kept_mb} (${t.gcs}, ${t.gc_ms})`;
    const added = target === "direct" ? "—" : three(t, r.direct);
    console.log(`| ${name} | ${t.completed} / ${t.failed} | ${t.max_open} | ${three(t)} | ${added} | ${f(t.call_p50, 0)} / ${f(t.call_p99, 0)} | ${f(cpu, 3)} | ${heap} | ${t.rss_peak_mb} | ${f(t.start_late_p99)} |`);
  }
  // A generator that starts calls late, or a direct p99 far above the target's 2 ms, means the machine
  // (other work, or the load's own processes) sets these figures, not the proxies.
  const late = Math.max(...Object.values(r).map((t) => t.start_late_p99 ?? 0));
  if (late > 5 || r.direct.delay_p99 > 2) {
    console.log(`Caution: the generator started calls up to ${f(late)} ms late (p99) and direct's own per-event p99 is ${f(r.direct.delay_p99)} ms: the machine, not the proxies, sets the figures at this rate.`);
  }
}

const held = rates.filter((rate) => added99(rate, "bare") <= 2);
if (!held.length) {
  console.log("\nThe bare proxy added more than 2 ms per-event p99 at every rate swept: sweep lower rates (OPEN_LOOP_RATES).");
} else {
  const rate = held[held.length - 1];
  const gw = added99(rate, "gateway");
  console.log(`\nHighest rate where the bare proxy adds ≤ 2 ms per-event p99: ${rate} calls/s (it adds ${f(added99(rate, "bare"))} ms). The gateway adds ${f(gw)} ms there (target ≤ 2 ms): ${gw <= 2 ? "met" : "not met"}.`);
}
