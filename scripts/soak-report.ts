/**
 * Merges the reliability parts' figures (one JSON file a part, written by
 * test/reliability/support/figures.ts) into one flat `soak-results.json`, prints the table, and
 * exits 1 when a figure misses its target or a count is below what `npm run soak` promises.
 *
 *   node dist/scripts/soak-report.js <figures-dir> <out.json>
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Each key of soak-results.json: what it counts and the target it must meet. */
const expectations: { key: string; what: string; target: string; ok: (value: number) => boolean }[] = [
  { key: "checkoutRuns", what: "checkout runs under a fault", target: ">= 200", ok: (v) => v >= 200 },
  { key: "doubleCharges", what: "double charges on the ledger", target: "0", ok: (v) => v === 0 },
  {
    key: "checkoutExtraRecovery",
    what: "runs needing more than the documented recovery",
    target: "0",
    ok: (v) => v === 0,
  },
  { key: "syncRuns", what: "recipient list edits under faults", target: ">= 200", ok: (v) => v >= 200 },
  { key: "syncMismatches", what: "duplicate, lost or stale recipients", target: "0", ok: (v) => v === 0 },
  { key: "maxRerunsToConverge", what: "reruns to converge", target: "<= 2", ok: (v) => v <= 2 },
  { key: "killRestarts", what: "sandbox kill -9 restarts", target: ">= 50", ok: (v) => v >= 50 },
  { key: "lostCommittedWrites", what: "committed writes lost", target: "0", ok: (v) => v === 0 },
  { key: "failedRestarts", what: "failed or corrupt restarts", target: "0", ok: (v) => v === 0 },
  { key: "schemathesisCases", what: "Schemathesis cases", target: "> 0", ok: (v) => v > 0 },
  { key: "schemathesisServerErrors", what: "Schemathesis 5xx", target: "0", ok: (v) => v === 0 },
  {
    key: "schemathesisSchemaViolations",
    what: "Schemathesis schema violations",
    target: "0",
    ok: (v) => v === 0,
  },
  {
    key: "fuzzCases",
    what: "fuzzed campaign and recipient files",
    target: ">= 10000",
    ok: (v) => v >= 10_000,
  },
  { key: "fuzzCrashes", what: "fuzz crashes", target: "0", ok: (v) => v === 0 },
  { key: "fuzzHangs", what: "fuzz inputs over 2 s", target: "0", ok: (v) => v === 0 },
  { key: "fuzzInternalErrors", what: "fuzz stack traces", target: "0", ok: (v) => v === 0 },
  { key: "fuzzPeakRssMiB", what: "fuzz peak memory of the CLI (MiB)", target: "<= 512", ok: (v) => v <= 512 },
  {
    key: "sandboxAttackCases",
    what: "hostile requests to the sandbox process",
    target: ">= 1000",
    ok: (v) => v >= 1_000,
  },
  {
    key: "sandboxHangs",
    what: "requests after which /v1/me took over 100 ms",
    target: "0",
    ok: (v) => v === 0,
  },
  { key: "sandboxBricks", what: "restarts that did not serve", target: "0", ok: (v) => v === 0 },
  {
    key: "clockWentBack",
    what: "restarts whose clock read earlier than before",
    target: "0",
    ok: (v) => v === 0,
  },
  { key: "frozenClockMoved", what: "restarts that moved a frozen clock", target: "0", ok: (v) => v === 0 },
  { key: "controlCsrfProbes", what: "web-page writes to the control API", target: "> 0", ok: (v) => v > 0 },
  { key: "controlCsrfAccepted", what: "web-page writes accepted", target: "0", ok: (v) => v === 0 },
  { key: "crossAccountProbes", what: "cross-account probes", target: "> 0", ok: (v) => v > 0 },
  { key: "crossAccountLeaks", what: "cross-account leaks", target: "0", ok: (v) => v === 0 },
  { key: "secretOccurrences", what: "API key occurrences", target: "0", ok: (v) => v === 0 },
  { key: "secretSearches", what: "places searched for the key", target: "> 0", ok: (v) => v > 0 },
  { key: "loadSeconds", what: "load duration (s)", target: ">= 30", ok: (v) => v >= 30 },
  { key: "loadErrors", what: "load errors", target: "0", ok: (v) => v === 0 },
  { key: "loadP99Ms", what: "load p99 (ms)", target: "reported", ok: () => true },
];

function main() {
  const [dir = "test-results/soak", out = "soak-results.json"] = process.argv.slice(2);
  const results: Record<string, number> = {};
  if (fs.existsSync(dir)) {
    for (const name of fs
      .readdirSync(dir)
      .filter((n) => n.endsWith(".json"))
      .sort()) {
      Object.assign(results, JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")));
    }
  }
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);

  let missed = 0;
  const rows = expectations.map(({ key, what, target, ok }) => {
    const value = results[key];
    const verdict = value === undefined ? "MISSING" : ok(value) ? "ok" : "MISSED";
    if (verdict !== "ok") missed++;
    return [key, what, value === undefined ? "-" : String(value), target, verdict];
  });
  // Figures a part recorded beyond the expected keys (peak memory, throughput…) are shown too.
  for (const [key, value] of Object.entries(results)) {
    if (!expectations.some((e) => e.key === key)) rows.push([key, "", String(value), "reported", "ok"]);
  }
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length), 6));
  const line = (cells: string[]) => console.log(cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  "));
  line(["figure", "what", "value", "target", "verdict"]);
  for (const r of rows) line(r);
  console.log(
    `\n${missed === 0 ? "every figure at its target" : `${missed} figures missed or missing`}; written to ${out}`,
  );
  if (missed > 0) process.exitCode = 1;
}

main();
