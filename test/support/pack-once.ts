/**
 * vitest's global setup: a folder for the run's one `npm pack`. Seven test files install the packed
 * package; `packPackage` of ./package.ts packs into this folder once, under a lock (three worker
 * processes may ask at the same moment), and hands each file its own copy. The folder is the run's
 * own, so no pack outlives the run, and a rerun in watch mode empties it (dist/ may have changed).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of the run's shared `npm pack` (see packPackage). */
    packFolder: string;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-run-pack-"));
  project.provide("packFolder", folder);
  project.onTestsRerun(() => {
    for (const entry of fs.readdirSync(folder))
      fs.rmSync(path.join(folder, entry), { recursive: true, force: true });
  });
  return () => fs.rmSync(folder, { recursive: true, force: true });
}
