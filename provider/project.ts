/**
 * The Pulumi project's folder: where Pulumi.yaml is and where the user runs `pulumi`. Paths that
 * end up in the state or in messages are relative to it, so that they read the same as in the
 * user's shell and in `directmail validate`, and stay the same on every machine.
 *
 * The program and the dynamic provider run in the folder of the project's entry point (`main`),
 * which may be a subfolder (this repository's `program/`): the project folder is found the way the
 * `pulumi` CLI finds it, the nearest folder upwards that holds a project file.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The files that make a folder a Pulumi project, as the `pulumi` CLI looks for them. */
export const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml"];

/** The nearest folder from `from` upwards holding Pulumi.yaml; `from` itself when there is none. */
export function projectRoot(from: string = process.cwd()): string {
  const start = path.resolve(from);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (PROJECT_FILES.some((name) => fs.existsSync(path.join(dir, name)))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}
