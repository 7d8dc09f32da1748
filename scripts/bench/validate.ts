/**
 * Benchmark part `validate` (not a test): the time `directmail validate` takes on each hostile file
 * of scripts/hostile-files.ts at size N and 4N, in this process, with the loader the CLI uses.
 * Linear time gives a ratio 4N/N of about 4, quadratic about 16; the figure is the worst case's
 * ratio, beside the floor's (a valid campaign with a CSV of N and 4N recipients, measured in the
 * same run). Each time is the best of 3 runs or more (the machine is shared and noisy), and a case
 * that takes under 100 ms at N is measured at 4N and 16N instead, as a few ms are mostly noise.
 *
 *   node dist/scripts/bench/validate.js [--n 10000] [--json] [--smoke]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadCampaignFiles } from "../../provider/campaign/loader";
import { type HostileCase, hostile } from "../hostile-files";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

/**
 * The best time in ms at each of `sizes`, after `warmUps` loads, of at least `runs` runs, and of
 * more for a fast case (until `budgetMs` were spent, at most `maxRuns` runs; 2 s and 30 in the full
 * run): a case of a few ms is otherwise mostly noise, and its ratio too. The sizes take turns
 * within each run, so a change of load on the machine falls on all of them. With the last
 * result's problem count.
 */
async function measure(
  kind: HostileCase,
  sizes: number[],
  repeat: { runs: number; warmUps: number; budgetMs: number; maxRuns: number },
): Promise<{ ms: number; problems: number }[]> {
  const dirs = sizes.map((size) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-validate-"));
    for (const [name, text] of Object.entries(hostile[kind](size)))
      fs.writeFileSync(path.join(dir, name), text);
    return dir;
  });
  try {
    const results = sizes.map(() => ({ ms: Number.POSITIVE_INFINITY, problems: 0 }));
    // Warm-up at the smallest size: the loader's first runs, not yet compiled, take more stack
    // (a 4N of deep nesting then overflows it) and more time.
    for (let run = 0; run < repeat.warmUps; run++)
      await loadCampaignFiles([path.join(dirs[0] as string, "campaign.yaml")]);
    let spent = 0;
    for (let run = 0; run < repeat.runs || (spent < repeat.budgetMs && run < repeat.maxRuns); run++) {
      for (const [i, dir] of dirs.entries()) {
        const started = performance.now();
        const loaded = await loadCampaignFiles([path.join(dir, "campaign.yaml")]);
        const ms = performance.now() - started;
        const result = results[i] as { ms: number; problems: number };
        result.ms = Math.min(result.ms, ms);
        result.problems = loaded.problems.length;
        spent += ms;
      }
    }
    return results;
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const sizes = sizesOf("validate", options);
  const n = options.smoke ? sizes.n : Number(args[args.indexOf("--n") + 1]) || sizes.n;
  const { runs } = sizes;
  // A case this fast at N is measured at 4 times N (deeper nesting than 16N overflows the stack of
  // the YAML parser, which is what `deepFlow` tests): its ratio is otherwise noise.
  const { fastMs } = sizes;
  const growth = async (kind: HostileCase) => {
    let size = n;
    while (size < 4 * n && ((await measure(kind, [size], { ...sizes, runs: 1 }))[0]?.ms ?? 0) < fastMs)
      size *= 4;
    const [small, large] = (await measure(kind, [size, 4 * size], sizes)) as [
      { ms: number; problems: number },
      { ms: number; problems: number },
    ];
    return {
      kind,
      n: size,
      small: small.ms,
      large: large.ms,
      ratio: large.ms / small.ms,
      problems: large.problems,
    };
  };
  const floor = await growth("floor");
  const cases = [];
  for (const kind of Object.keys(hostile) as HostileCase[])
    if (kind !== "floor") cases.push(await growth(kind));
  if (!options.json) {
    const row = (cells: string[]) =>
      console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(18) : cell.padStart(10))).join(""));
    console.log(`N = ${n}; times in ms, the best of ${runs} runs or more`);
    row(["case", "N", "at N", "at 4N", "4N/N", "/floor", "problems"]);
    for (const c of [floor, ...cases]) {
      row([
        c.kind,
        String(c.n),
        String(Math.round(c.small)),
        String(Math.round(c.large)),
        c.ratio.toFixed(1),
        (c.large / floor.large).toFixed(1),
        String(c.problems),
      ]);
    }
  }
  const worst = cases.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const value = Number(worst.ratio.toFixed(1));
  const figures: BenchFigure[] = [
    {
      key: "validateGrowth",
      what: `directmail validate time at 4N / at N (N = ${worst.n}), the worst hostile file (${worst.kind}); linear is about 4`,
      value,
      unit: "x",
      floor: {
        what: "a valid campaign with a CSV, 4N / N",
        value: Number(floor.ratio.toFixed(1)),
        unit: "x",
      },
      target: "<= 6",
      ok: value <= 6,
    },
  ];
  reportFigures(figures, options);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
