/**
 * The Automation API's Stack that the commands use for `--stack`: it names the stack in each
 * command and never selects it (the end-to-end test of review.test.ts checks the same under the
 * real pulumi CLI).
 */
import type { LocalWorkspace } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { stackOf } from "../../../cli/stack/settings";

describe("stackOf", () => {
  it("gives a Stack of the named stack whose commands go to the workspace by name, without selecting it", async () => {
    const calls: string[] = [];
    const workspace = {
      selectStack: async (name: string) => {
        calls.push(`select ${name}`);
      },
      exportStack: async (name: string) => {
        calls.push(`export ${name}`);
        return { version: 3, deployment: {} };
      },
    } as unknown as LocalWorkspace;
    const stack = await stackOf({ root: "/project", workspace, stackName: "prod" });
    expect(stack.name).toBe("prod");
    expect(await stack.exportStack()).toEqual({ version: 3, deployment: {} });
    expect(calls).toEqual(["export prod"]);
  });
});
