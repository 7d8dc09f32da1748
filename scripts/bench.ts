/**
 * `npm run bench`: runs every benchmark part (scripts/bench/<part>.ts) one after another, each in its
 * own process, prints one table of figures with their floors, ratios and targets, and writes the
 * same figures to `bench-results.json` (a flat object, one key a figure, and beside each figure measured
 * against a floor, `<figure>Floor`: the floor of the same run). Not a test: CI runs only
 * the smoke run of each part (test/bench). Parts: pass names to run some, `--smoke` for tiny sizes
 * (scripts/bench/sizes.ts), each figure measured once, several parts at once.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
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

/** Runs a part's script in its own process, its stderr shown as it comes: what it printed on stdout. */
function runPart(part: string, script: string, smoke: boolean): Promise<string> {
  const child = spawn(process.execPath, ["--expose-gc", script, "--json", ...(smoke ? ["--smoke"] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new Error(`bench: part ${part} failed (${signal ?? `exit code ${code}`}); its output is above`),
          ),
    );
  });
}

/**
 * Runs `parts`, each in its own process, and gives their figures in the order of `parts`; a part
 * this checkout lacks goes into `skipped`. The full run runs one part at a time, on a machine left
 * to it, as its times need; the smoke run, whose times mean nothing, runs as many at once as the
 * machine has cores.
 */
async function runParts(parts: string[], smoke: boolean, skipped: string[]): Promise<BenchFigure[]> {
  const figuresOf = new Map<string, BenchFigure[]>();
  const queue = [...parts];
  const lane = async () => {
    for (let part = queue.shift(); part !== undefined; part = queue.shift()) {
      const script = path.join(__dirname, "bench", `${part}.js`);
      if (!fs.existsSync(script)) {
        // A part this checkout does not have (yet): said in the summary, never silently dropped.
        process.stderr.write(`bench: no part ${part} (${path.relative(process.cwd(), script)}); skipped\n`);
        skipped.push(part);
        continue;
      }
      process.stderr.write(`bench: ${part}…\n`);
      figuresOf.set(part, parseFigures(await runPart(part, script, smoke)));
    }
  };
  const lanes = smoke ? Math.min(os.availableParallelism(), parts.length) : 1;
  await Promise.all(Array.from({ length: lanes }, lane));
  return parts.flatMap((part) => figuresOf.get(part) ?? []);
}

async function main() {
  const args = process.argv.slice(2);
  const smoke = args.includes("--smoke");
  const chosen = args.filter((a) => !a.startsWith("--"));
  const parts = chosen.length > 0 ? chosen : benchParts;
  const skipped: string[] = [];
  const started = performance.now();
  const figures = await runParts(parts, smoke, skipped);
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

if (require.main === module)
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
