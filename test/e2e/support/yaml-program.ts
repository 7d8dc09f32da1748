/**
 * A Pulumi YAML program through the provider plugin, as its user runs it: the real `pulumi` CLI in
 * the stack's folder, and the program's `Pulumi.yaml` rewritten as the user edits it.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { TestStack } from "./pulumi";

export interface CliResult {
  code: number;
  stdout: string;
  /** stdout then stderr, as the user reads them. */
  output: string;
}

/** The real pulumi CLI in the stack's project, with the stack's environment; stdout and stderr apart. */
export function pulumiIn(stack: Pick<TestStack, "workDir" | "env">, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      args,
      { cwd: stack.workDir, env: stack.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, output: stdout + stderr }),
    );
  });
}

/**
 * Writes the program's Pulumi.yaml: the stack's project (named as its program folder) with these
 * resources (each with its `type`, `properties` and `options`, as Pulumi YAML spells them) and
 * outputs. JSON is YAML.
 */
export function writeYamlProgram(
  stack: Pick<TestStack, "workDir">,
  program: { resources: Record<string, unknown>; outputs?: Record<string, unknown> },
): void {
  const project = { name: path.basename(stack.workDir), runtime: "yaml", ...program };
  fs.writeFileSync(path.join(stack.workDir, "Pulumi.yaml"), `${JSON.stringify(project, null, 2)}\n`);
}

/** A Pulumi YAML reference to a value of another resource, such as `${order.orderId}`. */
export const yamlRef = (value: string) => `\${${value}}`;
