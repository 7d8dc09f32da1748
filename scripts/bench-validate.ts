/**
 * Benchmark (not a test): the time `directmail validate` takes on each hostile file of
 * scripts/hostile-files.ts at size N and 4N, in this process, with the loader the CLI uses. Prints
 * for each case its times, their ratio (linear time gives about 4, quadratic about 16) and how
 * many times slower than the floor (a valid campaign with a CSV of N and 4N recipients, measured
 * in the same run) it is at 4N.
 *
 *   npm run build && node dist/scripts/bench-validate.js [N]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadCampaignFiles } from "../provider/campaign/loader";
import { type HostileCase, hostile } from "./hostile-files";

/** The best of `runs` times in ms (the machine is shared and noisy), with the last result's problem count. */
async function measure(kind: HostileCase, n: number, runs = 3): Promise<{ ms: number; problems: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-validate-"));
  try {
    for (const [name, text] of Object.entries(hostile[kind](n))) fs.writeFileSync(path.join(dir, name), text);
    let best = Number.POSITIVE_INFINITY;
    let problems = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const result = await loadCampaignFiles([path.join(dir, "campaign.yaml")]);
      best = Math.min(best, performance.now() - started);
      problems = result.problems.length;
    }
    return { ms: best, problems };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const n = Number(process.argv[2] ?? 25_000);
  const floor = { small: await measure("floor", n), large: await measure("floor", 4 * n) };
  const row = (cells: string[]) =>
    console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(18) : cell.padStart(10))).join(""));
  const show = (kind: string, small: number, large: number, problems: number) =>
    row([
      kind,
      String(Math.round(small)),
      String(Math.round(large)),
      (large / small).toFixed(1),
      (large / floor.large.ms).toFixed(1),
      String(problems),
    ]);
  console.log(`N = ${n}; times in ms, the best of 3`);
  row(["case", "at N", "at 4N", "4N/N", "/floor", "problems"]);
  show("floor", floor.small.ms, floor.large.ms, floor.large.problems);
  for (const kind of Object.keys(hostile) as HostileCase[]) {
    if (kind === "floor") continue;
    const small = await measure(kind, n);
    const large = await measure(kind, 4 * n);
    show(kind, small.ms, large.ms, large.problems);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
