/** The commands an end-to-end test runs beside pulumi: the built `directmail` CLI, and git. */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";

const BIN = path.resolve(__dirname, "../../../bin/directmail.js");

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `cwd` with exactly `env`; its exit code and what it printed. */
export async function directmailIn(
  where: { cwd: string; env: NodeJS.ProcessEnv },
  ...args: string[]
): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], where);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as CommandResult;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs git in `cwd` as a fixed author, so commits need no user configuration. */
export function gitIn(cwd: string, ...args: string[]) {
  return promisify(execFile)("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });
}
