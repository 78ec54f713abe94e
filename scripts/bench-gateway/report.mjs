// Reads the results of scripts/bench-gateway.sh and prints one table per round, then the medians over the
// rounds, per upstream client.  node report.mjs <results file> <client>...
import fs from "node:fs";

const [file, ...clients] = process.argv.slice(2);
const rounds = {};
for (const line of fs.readFileSync(file, "utf8").trim().split("\n")) {
  const space = line.indexOf(" ");
  const [round, name] = line.slice(0, space).split(".");
  const rest = line.slice(space + 1);
  rounds[round] ??= {};
  rounds[round][name] = name.startsWith("commits")
    ? Object.fromEntries(rest.trim().split(" ").map((kv) => kv.split("=")).map(([k, v]) => [k, Number(v)]))
    : name.startsWith("pgcpu")
      ? Number(rest)
      : JSON.parse(rest);
}
const tickMs = 1000 / Number(process.env.CLK_TCK ?? 100);
const f = (x, d = 2) => (x == null || Number.isNaN(x) ? "n/a" : Number(x).toFixed(d));
const pct = (a, b) => `${f((100 * a) / b, 1)} %`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const figures = {}; // name -> values per round, for the medians
const keep = (name, value) => (figures[name] ??= []).push(value);
for (const [round, r] of Object.entries(rounds)) {
  console.log(`\n${round}: 16 clients streaming, direct ${f(r.direct_16_stream.rps, 0)} req/s; non-streaming direct ${f(r.direct_16_json.rps, 0)}, Portkey ${f(r.portkey_16_json.rps, 0)} (p50 / p99 ${f(r.portkey_16_json.total_p50)} / ${f(r.portkey_16_json.total_p99)} ms)`);
  console.log("| client | bare proxy streaming | gateway streaming | of direct | of its bare proxy | gateway non-streaming | × Portkey | p50 / p99 ms | 1 client first byte added p50 / p99 ms | 1 client last byte p50 / p99 ms | commits per call | PostgreSQL CPU ms per call |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const c of clients) {
    const bare = r[`bare_${c}_16_stream`].rps;
    const gw = r[`gateway_${c}_16_stream`];
    const json = r[`gateway_${c}_16_json`];
    const one = r[`gateway_${c}_1_stream`];
    const added50 = one.ttfb_p50 - r.direct_1_stream.ttfb_p50;
    const added99 = one.ttfb_p99 - r.direct_1_stream.ttfb_p99;
    const commits = (r.commits_after[c] - r.commits_before[c]) / gw.started;
    const pgCpu = (r[`pgcpu_${c}`] * tickMs) / gw.started;
    keep(`${c}.bare`, bare);
    keep(`${c}.stream`, gw.rps);
    keep(`${c}.ofDirect`, gw.rps / r.direct_16_stream.rps);
    keep(`${c}.ofBare`, gw.rps / bare);
    keep(`${c}.json`, json.rps);
    keep(`${c}.portkey`, json.rps / r.portkey_16_json.rps);
    keep(`${c}.ttfb50`, one.ttfb_p50);
    keep(`${c}.ttfb99`, one.ttfb_p99);
    keep(`${c}.last50`, one.total_p50);
    keep(`${c}.last99`, one.total_p99);
    keep(`${c}.added50`, added50);
    keep(`${c}.added99`, added99);
    keep(`${c}.commits`, commits);
    keep(`${c}.pgcpu`, pgCpu);
    console.log(`| ${c} | ${f(bare, 0)} | ${f(gw.rps, 0)} | ${pct(gw.rps, r.direct_16_stream.rps)} | ${pct(gw.rps, bare)} | ${f(json.rps, 0)} | ${f(json.rps / r.portkey_16_json.rps)} | ${f(json.total_p50)} / ${f(json.total_p99)} | ${f(added50)} / ${f(added99)} (gateway ${f(one.ttfb_p50)} / ${f(one.ttfb_p99)}) | ${f(one.total_p50)} / ${f(one.total_p99)} (direct ${f(r.direct_1_stream.total_p50)}) | ${f(commits, 3)} | ${f(pgCpu, 3)} |`);
  }
}

const n = Object.keys(rounds).length;
console.log(`\nMedian of ${n} round(s):`);
console.log("| client | gateway streaming req/s | of direct | of its bare proxy | non-streaming × Portkey | 1 client first byte p50 / p99 ms | 1 client last byte p50 / p99 ms | commits per call | PostgreSQL CPU ms per call |");
console.log("|---|---|---|---|---|---|---|---|---|");
const m = (name) => median(figures[name]);
for (const c of clients) {
  console.log(`| ${c} | ${f(m(`${c}.stream`), 0)} | ${f(100 * m(`${c}.ofDirect`), 1)} % | ${f(100 * m(`${c}.ofBare`), 1)} % | ${f(m(`${c}.portkey`))} | ${f(m(`${c}.ttfb50`))} / ${f(m(`${c}.ttfb99`))} | ${f(m(`${c}.last50`))} / ${f(m(`${c}.last99`))} | ${f(m(`${c}.commits`), 3)} | ${f(m(`${c}.pgcpu`), 3)} |`);
}
