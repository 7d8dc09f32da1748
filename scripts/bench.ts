/**
 * `npm run bench`: runs every benchmark part (scripts/bench/<part>.ts) one after another, each in its
 * own process, prints one table of figures with their floors, ratios and targets, and writes the
 * same figures to `bench-results.json` (a flat object, one key a figure, and beside each figure measured
 * against a floor, `<figure>Floor`: the floor of the same run). Not a test: CI runs only
 * the smoke run of each part (test/bench). Parts: pass names to run some, `--smoke` for tiny sizes.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { type BenchFigure, floorKey, parseFigures } from "./bench/result";

/**
 * Every part, in the order it runs: the provider against the bare client (recipients), the
 * sandbox's throughput and its answers during long control operations (sandbox-time), the engine
 * floor at 20 campaigns and at 500 (with the review, status and report of such a stack), the campaign loader's growth on hostile files, a million recipients
 * through validate, preview and review, and the state in an object store against the file backend.
 */
export const benchParts: string[] = [
  "recipients",
  "sandbox",
  "sandbox-time",
  "engine",
  "engine500",
  "validate",
  "big",
  "object-store",
];

function main() {
  const args = process.argv.slice(2);
  const smoke = args.includes("--smoke");
  const chosen = args.filter((a) => !a.startsWith("--"));
  const parts = chosen.length > 0 ? chosen : benchParts;
  const figures: BenchFigure[] = [];
  const skipped: string[] = [];
  const started = performance.now();
  for (const part of parts) {
    const script = path.join(__dirname, "bench", `${part}.js`);
    if (!fs.existsSync(script)) {
      // A part this checkout does not have (yet): said in the summary, never silently dropped.
      process.stderr.write(`bench: no part ${part} (${path.relative(process.cwd(), script)}); skipped\n`);
      skipped.push(part);
      continue;
    }
    process.stderr.write(`bench: ${part}…\n`);
    const stdout = execFileSync(
      process.execPath,
      ["--expose-gc", script, "--json", ...(smoke ? ["--smoke"] : [])],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    figures.push(...parseFigures(stdout));
  }
  const rows = figures.map((f) => [
    f.key,
    `${f.value} ${f.unit}`,
    f.floor ? `${f.floor.value} ${f.floor.unit} (${f.floor.what})` : "-",
    f.target,
    f.ok ? "ok" : "MISSED",
  ]);
  rows.unshift(["figure", "value", "floor", "target", "verdict"]);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  "));
  // A ratio means little without what it was divided by: each floor is written beside its figure.
  const flat = Object.fromEntries(
    figures.flatMap((f) => [[f.key, f.value], ...(f.floor ? [[floorKey(f.key), f.floor.value]] : [])]),
  );
  fs.writeFileSync("bench-results.json", `${JSON.stringify(flat, null, 2)}\n`);
  const missed = figures.filter((f) => !f.ok).length;
  const seconds = Math.round((performance.now() - started) / 1000);
  const notRun = skipped.length > 0 ? `; not run: ${skipped.join(", ")}` : "";
  console.log(
    `\n${missed === 0 ? "every target met" : `${missed} targets missed`} in ${seconds} s${notRun}; written to bench-results.json`,
  );
  // At smoke sizes the figures mean nothing: the run only shows that every part still reports.
  if (missed > 0 && !smoke) process.exitCode = 1;
}

if (require.main === module) main();
