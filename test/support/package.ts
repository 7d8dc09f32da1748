/**
 * The package as npm publishes it: `npm pack` of the built repository, and the size budget that
 * docs/packaging.md states (the tests read the budget from there, so the document and the check
 * cannot disagree).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

export const repoRoot = path.resolve(__dirname, "../..");

export const execFileAsync = promisify(execFile);

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Bytes of the .tgz, the download. */
  size: number;
  /** Bytes of the files in it, unpacked. */
  unpackedSize: number;
  /** Paths inside the package, sorted. */
  files: string[];
}

/** `npm pack` of the repository into `destination`; dist/ must be built (npm test builds it). */
export async function packPackage(destination: string): Promise<PackedPackage> {
  if (!fs.existsSync(path.join(repoRoot, "dist/provider/index.js"))) {
    throw new Error("dist/ is not built: run `npx tsc -p tsconfig.json` first (npm test does)");
  }
  const { stdout } = await execFileAsync(
    "npm",
    ["pack", "--json", "--pack-destination", destination, "--loglevel=error"],
    { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
  );
  const [report] = JSON.parse(stdout) as {
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  if (!report) throw new Error(`npm pack reported nothing: ${stdout}`);
  return {
    tarball: path.join(destination, report.filename),
    size: report.size,
    unpackedSize: report.unpackedSize,
    files: report.files.map((f) => f.path).sort(),
  };
}

export type SizeMeasure = "packed" | "unpacked" | "installed";

const UNITS = { kB: 1e3, MB: 1e6 } as const;

/**
 * The budget of each measure in bytes, from the table of docs/packaging.md, whose rows start
 * `| packed …| 250 kB |`.
 */
export function sizeBudgets(): Record<SizeMeasure, number> {
  const doc = fs.readFileSync(path.join(repoRoot, "docs/packaging.md"), "utf8");
  const budgets: Partial<Record<SizeMeasure, number>> = {};
  for (const match of doc.matchAll(/^\| (packed|unpacked|installed)\b[^|\n]*\| ([\d.]+) (kB|MB) \|/gm)) {
    const [, measure, amount, unit] = match as unknown as [string, SizeMeasure, string, keyof typeof UNITS];
    budgets[measure] = Number(amount) * UNITS[unit];
  }
  for (const measure of ["packed", "unpacked", "installed"] as const) {
    if (budgets[measure] === undefined) {
      throw new Error(`docs/packaging.md states no size budget for "${measure}" in its budget table`);
    }
  }
  return budgets as Record<SizeMeasure, number>;
}

/** "184.7 kB", "42.16 MB": sizes as npm prints them. */
export function formatBytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}
