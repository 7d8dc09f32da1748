/**
 * A passphrase-protected stack, as `pulumi stack init` makes one, under the real pulumi CLI: the
 * commands that read the stack's configuration say once, in one line, how to give the passphrase
 * (the variable, or a file), and work with either.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn } from "./support/commands";
import { createTestStack, TEST_PASSPHRASE, type TestStack } from "./support/pulumi";

let sb: TestSandbox;
let t: TestStack;
/** The stack's environment without a passphrase. */
let bare: Record<string, string>;

beforeAll(async () => {
  sb = await startTestSandbox();
  const { apiKey } = await sb.control.createAccount({ email: "passphrase@example.com" });
  t = await createTestStack("passphrase", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
    },
  });
  const { PULUMI_CONFIG_PASSPHRASE: _, ...rest } = t.env;
  bare = rest;
}, 120_000);

afterAll(async () => {
  await t?.dispose();
  await sb?.close();
});

describe("a passphrase-protected stack", { timeout: 120_000 }, () => {
  it("without the passphrase, status, whoami, report and review say how to give it, in one line", async () => {
    const missing =
      'directmail: cannot read the configuration of stack "e2e": the stack\'s secrets are encrypted with ' +
      "the passphrase given at `pulumi stack init`, and none is set: export PULUMI_CONFIG_PASSPHRASE=<the passphrase>, " +
      "or PULUMI_CONFIG_PASSPHRASE_FILE=<a file that holds it>\n";
    for (const command of [["status"], ["whoami"], ["report"], ["review"]]) {
      expect(await directmailIn({ cwd: t.workDir, env: bare }, ...command), command[0]).toEqual({
        code: 1,
        stdout: "",
        stderr: missing,
      });
    }
  });

  it("a wrong passphrase is named as such", async () => {
    expect(
      await directmailIn({ cwd: t.workDir, env: { ...bare, PULUMI_CONFIG_PASSPHRASE: "not it" } }, "status"),
    ).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'directmail: cannot read the configuration of stack "e2e": PULUMI_CONFIG_PASSPHRASE (or the file ' +
        "PULUMI_CONFIG_PASSPHRASE_FILE names) is not the passphrase given at `pulumi stack init` for this stack; set that one\n",
    });
  });

  it("the passphrase in PULUMI_CONFIG_PASSPHRASE_FILE, or the variable, reads the stack", async () => {
    const file = path.join(t.workDir, "..", "passphrase.txt");
    fs.writeFileSync(file, TEST_PASSPHRASE);
    const fromFile = { cwd: t.workDir, env: { ...bare, PULUMI_CONFIG_PASSPHRASE_FILE: file } };
    expect(await directmailIn(fromFile, "whoami")).toEqual({
      code: 0,
      stdout:
        `passphrase@example.com (Sandbox User, Sandbox Co) at ${sb.url}\n` +
        '(address from directmail:baseUrl of stack "e2e", API key from directmail:apiKey of stack "e2e")\n',
      stderr: "",
    });
    expect(await directmailIn({ cwd: t.workDir, env: t.env }, "status")).toEqual({
      code: 1,
      stdout: "",
      stderr: 'directmail: stack "e2e" has no order yet; run pulumi up, or give order ids\n',
    });
  });
});
