/**
 * A Pulumi file backend's state as it lies on disk, read without a CLI start: the one stack file of
 * a backend folder, and the stack's outputs in it (what `pulumi stack output --json` prints, except
 * that a secret output stays ciphertext).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The one stack file of the file backend at `stateDir` (`file://<stateDir>`), parsed and as raw text. */
export function readStackFile(stateDir: string): { checkpoint: any; text: string } {
  const stacksDir = path.join(stateDir, ".pulumi", "stacks");
  const files = fs
    .readdirSync(stacksDir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".json") && !f.endsWith(".bak"));
  if (files.length !== 1)
    throw new Error(`expected one stack file in ${stacksDir}, found ${files.join(", ")}`);
  const text = fs.readFileSync(path.join(stacksDir, files[0] as string), "utf8");
  return { checkpoint: JSON.parse(text), text };
}

/** The stack's outputs in a stack file's checkpoint (`readStackFile(...).checkpoint`). */
export function stackOutputsOf(checkpoint: any): Record<string, any> {
  const resources: { type: string; outputs?: Record<string, any> }[] =
    checkpoint?.checkpoint?.latest?.resources ?? [];
  return resources.find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
}
