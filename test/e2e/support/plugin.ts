/**
 * The provider plugin as Pulumi finds it: a folder holding `pulumi-resource-directmail` (a link to
 * the repository's bin/ script, as npm links a package's bin), to put first on PATH.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "../../..");

/** The environment additions that put the plugin on PATH; `dispose` removes its folder. */
export function pluginOnPath(): { env: Record<string, string>; dispose(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-plugin-"));
  fs.symlinkSync(
    path.join(repoRoot, "bin/pulumi-resource-directmail.js"),
    path.join(dir, "pulumi-resource-directmail"),
  );
  return {
    env: { PATH: `${dir}${path.delimiter}${process.env.PATH ?? ""}` },
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
