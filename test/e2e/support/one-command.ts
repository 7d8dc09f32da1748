/**
 * `pulumi up`, `preview`, `refresh` and `destroy` of a test stack as exactly one CLI command each.
 * The Automation API follows an update with `stack output` twice and `stack history` (and a
 * refresh or destroy with `stack history`), each a CLI start; here the change counts come from
 * the command's own engine events (`--event-log`) and the outputs from the state file the command
 * wrote. A failed command throws, its message holding the exit code and what it printed, as
 * `stack.up()` does.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EngineEvent, OpMap, OutputMap } from "@pulumi/pulumi/automation";
import { stackOutputsOf } from "../../support/state-file";
import type { TestStack } from "./pulumi";

export interface OneCommandResult {
  stdout: string;
  stderr: string;
  /** The engine's summary of the command (the update's; for `up` with its preview, the update's). */
  summary: { result: "succeeded"; resourceChanges: OpMap };
  /** The plan's summary, when the command previewed (`preview`, or `up` with `preview: true`). */
  changeSummary: OpMap;
  /** Every engine event of the command, in order: a preview's steps come before its summary event. */
  events: EngineEvent[];
}

export interface OneCommandOptions {
  onOutput?: (text: string) => void;
  /** `up` only: show the preview before the update, in the same command (`pulumi up` without --skip-preview). */
  preview?: boolean;
  continueOnError?: boolean;
  clearPendingCreates?: boolean;
  /** `refresh` only: run the program too, so the stack's outputs follow (`--run-program`). */
  runProgram?: boolean;
}

const FLAGS: Record<"up" | "preview" | "refresh" | "destroy", (o: OneCommandOptions) => string[]> = {
  up: (o) => ["up", "--yes", ...(o.preview ? [] : ["--skip-preview"])],
  preview: () => ["preview"],
  refresh: (o) => [
    "refresh",
    "--yes",
    "--skip-preview",
    ...(o.clearPendingCreates ? ["--clear-pending-creates"] : []),
    ...(o.runProgram ? ["--run-program"] : []),
  ],
  destroy: () => ["destroy", "--yes", "--skip-preview"],
};

/** Runs the CLI once as the Automation API would; a non-zero exit throws with the code and what it printed. */
function pulumiIn(
  t: TestStack,
  args: string[],
  onOutput?: (text: string) => void,
): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(t.stack.workspace.pulumiCommand.command, [...args, "--non-interactive"], {
    cwd: t.workDir,
    env: { ...t.env, PULUMI_DEBUG_COMMANDS: "true", PULUMI_AUTOMATION_API: "true" },
  });
  let stdout = "";
  let stderr = "";
  // Decoded as a stream, so a character split between two chunks stays whole.
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    onOutput?.(text);
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `pulumi ${args.join(" ")} exited with code ${code}\n stdout: ${stdout}\n stderr: ${stderr}`,
          ),
        );
    });
  });
}

async function runOnce(
  t: TestStack,
  command: keyof typeof FLAGS,
  options: OneCommandOptions,
): Promise<OneCommandResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-events-"));
  const eventLog = path.join(dir, "events.jsonl");
  const args = [
    ...FLAGS[command](options),
    ...(options.continueOnError ? ["--continue-on-error"] : []),
    "--stack",
    t.stack.name,
    "--event-log",
    eventLog,
  ];
  try {
    const ran = await pulumiIn(t, args, options.onOutput);
    const events: EngineEvent[] = fs
      .readFileSync(eventLog, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line));
    // Each summary event closes one engine run: a preview's comes first, the update's last.
    const summaries = events.flatMap((event) => (event.summaryEvent ? [event.summaryEvent] : []));
    const first = summaries[0]?.resourceChanges ?? {};
    const last = summaries.at(-1)?.resourceChanges ?? {};
    return {
      stdout: ran.stdout,
      stderr: ran.stderr,
      summary: { result: "succeeded", resourceChanges: last },
      changeSummary: first,
      events,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The stack's outputs as its state file holds them (plain values; a secret stays encrypted). */
export function stateOutputs(t: TestStack): OutputMap {
  return Object.fromEntries(
    Object.entries(stackOutputsOf(t.readStateFile().checkpoint)).map(([key, value]) => [
      key,
      { value, secret: typeof value === "object" && value !== null && "ciphertext" in value },
    ]),
  );
}

/** `pulumi up --skip-preview` (or, with `preview`, `pulumi up` showing its plan first), and the outputs it left. */
export async function upOnce(t: TestStack, options: OneCommandOptions = {}) {
  const result = await runOnce(t, "up", options);
  return { ...result, outputs: stateOutputs(t) };
}

export const previewOnce = (t: TestStack, options: OneCommandOptions = {}) => runOnce(t, "preview", options);
export const refreshOnce = (t: TestStack, options: OneCommandOptions = {}) => runOnce(t, "refresh", options);
export const destroyOnce = (t: TestStack, options: OneCommandOptions = {}) => runOnce(t, "destroy", options);
