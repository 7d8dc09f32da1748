/**
 * The reliability suite runs each part at one of two scales: `ci` (bounded, inside `npm test`) and
 * `full` (`npm run soak`, the counts the figures are quoted at). Each part records its counts and
 * figures with `recordFigures`; `scripts/soak-report.ts` merges them into `soak-results.json` and
 * prints the table.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export type SoakScale = "ci" | "full";

export const soakScale: SoakScale = process.env.SOAK_SCALE === "full" ? "full" : "ci";

/** The bounded count in CI, the full one under `npm run soak`. */
export function atScale<T>(ci: T, full: T): T {
  return soakScale === "full" ? full : ci;
}

/** Where each part writes its figures: one JSON file a part. */
export const soakOutDir = path.resolve(process.env.SOAK_OUT ?? "test-results/soak");

/**
 * Records one part's counts and figures (a flat object of numbers, keys as in `soak-results.json`).
 * A part that records several times adds to what it recorded before in the same run (counts and
 * figures are sums, except keys starting with `max` or ending in `Ms`/`MiB`, which keep the largest).
 */
export function recordFigures(part: string, figures: Record<string, number>): void {
  fs.mkdirSync(soakOutDir, { recursive: true });
  const file = path.join(soakOutDir, `${part}.json`);
  const before: Record<string, number> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  const merged: Record<string, number> = { ...before };
  for (const [key, value] of Object.entries(figures)) {
    const prior = before[key];
    if (prior === undefined) merged[key] = value;
    else if (/^max|Ms$|MiB$/.test(key)) merged[key] = Math.max(prior, value);
    else merged[key] = prior + value;
  }
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
}
