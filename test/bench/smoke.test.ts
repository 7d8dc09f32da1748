/**
 * The benchmark suite at smoke sizes (`npm run bench` is not a test: CI does not time anything):
 * `node dist/scripts/bench.js --smoke` runs every part in its own process, as the full run does,
 * and each part reports its figures with numeric values, into the table and bench-results.json.
 * Whether the targets are met is not asserted: tiny sizes say nothing about them. The sizes are
 * scripts/bench/sizes.ts's smoke sizes, each figure measured once, the parts as many at once as the
 * machine has cores. About two CPU-minutes, most of it the pulumi commands of the engine, engine500
 * and big parts (about a dozen each, 2 CPU-s apiece, which smaller sizes no longer cut).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "../..");
const run = promisify(execFile);

/** The keys of bench-results.json each part writes. */
const keysOf: Record<string, string[]> = {
  recipients: ["recipientsRatio", "oneChangeRequests", "peakRssMiB100k", "peakRssMiB1M", "peakRssMiB1MHooks"],
  sandbox: ["sandboxAppendRatio", "sandboxStoreAppendPerSec", "meRatio"],
  "sandbox-time": ["deliverMeSlowestMs", "clockStepMeSlowestMs"],
  engine: ["engineRatioPreview", "engineRatioUp", "engineRatioPreviewPlugin", "engineRatioUpPlugin"],
  engine500: [
    "engineRatioPreview500",
    "engineRatioUp500",
    "engineRatioPreviewPlugin500",
    "engineRatioUpPlugin500",
    "reviewRatio500",
    "statusRequests500",
    "reportRequests500",
  ],
  validate: ["validateGrowth"],
  big: ["bigValidateRatio", "bigValidatePeakMiB", "bigPreviewRatio", "bigPeakMiB", "bigReviewRatio"],
  "object-store": ["objectStoreNoChangeRatio"],
};

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-smoke-"));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

describe("npm run bench --smoke", () => {
  it("every part reports its figures as numbers, in the table and in bench-results.json", {
    timeout: 420_000,
  }, async () => {
    const runner = path.join(repoRoot, "dist/scripts/bench.js");
    expect(fs.existsSync(runner), "run `npm run build` first").toBe(true);
    // The compiled runner, as `npm run bench` runs it: a new part must say here what it reports.
    const { benchParts } = require(runner) as { benchParts: string[] };
    expect(Object.keys(keysOf)).toEqual(benchParts);
    // A part whose source this checkout lacks is skipped by the runner, and said so.
    const present = benchParts.filter((part) =>
      fs.existsSync(path.join(repoRoot, "scripts/bench", `${part}.ts`)),
    );
    const { stdout } = await run(process.execPath, [runner, "--smoke"], {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    });
    const results = JSON.parse(fs.readFileSync(path.join(cwd, "bench-results.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const expected = present.flatMap((part) => keysOf[part] ?? []);
    // Each figure the table shows with a floor (its floor column is not "-") has that floor beside
    // it in the file, as `<figure>Floor`.
    const rowOf = (key: string) => stdout.split("\n").find((line) => line.startsWith(`${key} `)) ?? "";
    const withFloor = expected.filter((key) => !/\s-\s/.test(rowOf(key)));
    expect(withFloor.length).toBeGreaterThan(0);
    expect(Object.keys(results).sort()).toEqual(
      [...expected, ...withFloor.map((key) => `${key}Floor`)].sort(),
    );
    for (const key of Object.keys(results)) {
      expect(Number.isFinite(results[key]), `${key}: ${results[key]}`).toBe(true);
    }
    for (const key of expected) {
      // One table row per figure: its key, then its value.
      expect(stdout).toMatch(new RegExp(`^${key}\\s+[-\\d.]+ `, "m"));
    }
    const missing = benchParts.filter((part) => !present.includes(part));
    expect(stdout).toContain(
      missing.length > 0 ? `not run: ${missing.join(", ")}` : "written to bench-results.json",
    );
  });
});
