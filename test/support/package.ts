/**
 * The package as npm publishes it: `npm pack` of the built repository, and the size budget that
 * docs/packaging.md states (the tests read the budget from there, so the document and the check
 * cannot disagree).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { inject } from "vitest";

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

/**
 * The packed package in `destination`: a copy of the run's one `npm pack`, which the first file
 * to ask makes while the others wait (see pack-once.ts), so each file may use or move its copy as
 * it likes. Outside a vitest run with that global setup, a pack of its own. dist/ must be built
 * (npm test builds it).
 */
export async function packPackage(destination: string): Promise<PackedPackage> {
  if (!fs.existsSync(path.join(repoRoot, "dist/provider/index.js"))) {
    throw new Error("dist/ is not built: run `npx tsc -p tsconfig.json` first (npm test does)");
  }
  const folder = runPackFolder();
  if (folder === undefined) return npmPack(destination);
  const shared = await sharedPack(folder);
  const tarball = path.join(destination, path.basename(shared.tarball));
  fs.copyFileSync(shared.tarball, tarball);
  fs.chmodSync(tarball, 0o644);
  return { ...shared, tarball };
}

function runPackFolder(): string | undefined {
  try {
    return inject("packFolder") || undefined;
  } catch {
    return undefined; // not inside a vitest worker
  }
}

/** How long a file waits for another process's `npm pack` (which takes a few seconds) before it gives up. */
const PACK_WAIT_MS = 180_000;

/**
 * The run's pack in `folder`, made once: the process that creates the lock folder packs (mkdir is
 * atomic), the others wait for its report. A failed pack releases the lock, and the next asker tries.
 */
async function sharedPack(folder: string): Promise<PackedPackage> {
  const reportFile = path.join(folder, "pack.json");
  const lock = path.join(folder, "packing.lock");
  const deadline = Date.now() + PACK_WAIT_MS;
  for (;;) {
    if (fs.existsSync(reportFile)) return JSON.parse(fs.readFileSync(reportFile, "utf8")) as PackedPackage;
    if (takeLock(lock)) {
      try {
        if (fs.existsSync(reportFile)) continue; // packed while this process waited for the lock
        const destination = path.join(folder, "pack");
        fs.rmSync(destination, { recursive: true, force: true });
        fs.mkdirSync(destination);
        const packed = await npmPack(destination);
        fs.chmodSync(packed.tarball, 0o444); // the shared tarball: each file gets a copy
        fs.writeFileSync(`${reportFile}.tmp`, JSON.stringify(packed));
        fs.renameSync(`${reportFile}.tmp`, reportFile);
        return packed;
      } finally {
        fs.rmSync(lock, { recursive: true, force: true });
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`waited ${PACK_WAIT_MS / 1000} s for another test process's npm pack (lock ${lock})`);
    }
    await sleep(100);
  }
}

function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** `npm pack` of the repository into `destination`, and npm's report of what it packed. */
async function npmPack(destination: string): Promise<PackedPackage> {
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
