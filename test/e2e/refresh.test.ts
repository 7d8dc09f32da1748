/**
 * A refresh of an unchanged stack is quiet, under the real pulumi CLI: after `up` of a stack with
 * one resource of every kind, and a campaign folder whose recipient lists are declared every way (a
 * file or inline, keyed or not), `pulumi refresh --expect-no-changes` passes and shows no `[diff:`,
 * with `--run-program` too (the README's way to bring delivery counts into the stack outputs). That
 * one shows the stored inputs against the program's, unchecked: the engine stores only what the
 * program declares in plain sight (provider/resources/engine-inputs.ts).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml, PROXIMITY_SEARCH, recipientsCsv } from "./support/campaign";
import { upOnce } from "./support/one-command";
import { run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

/** Every resource kind of the package: each folder of provider/resources with a resource.ts. */
const KINDS = fs
  .readdirSync(path.join(__dirname, "../../provider/resources"), { withFileTypes: true })
  .filter(
    (entry) => entry.isDirectory() && fs.existsSync(path.join(entry.parentPath, entry.name, "resource.ts")),
  )
  .map((entry) => entry.name.replace(/(^|-)(\w)/g, (_, _dash, letter: string) => letter.toUpperCase()));

/** The real pulumi CLI in the stack's project, as its user runs it; stdout and stderr together. */
function pulumi(...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("pulumi", args, { cwd: t.workDir, env: t.env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

let sb: TestSandbox;
let t: TestStack;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  const { apiKey } = await sb.control.createAccount({ tier: "pro", balance: 100 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const { id: automationId } = await sb.control.createIntegrationOrder({
    apiKey,
    name: "Welcome",
    templateId,
  });
  const json = (value: unknown) => ({ value: JSON.stringify(value) });
  t = await createTestStack("every-kind", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      conversions: json({ file: "sales.csv", keyField: "uniqueId" }),
      automation: json({
        integrationOrderId: automationId,
        keyField: "customerId",
        recipients: [
          {
            customerId: "P-1",
            firstName: "Pat",
            lastName: "One",
            address1: "102 Oak Ave",
            city: "Springfield",
            state: "IL",
            zipCode: "62704",
          },
        ],
      }),
      search: json({ ...PROXIMITY_SEARCH, integrationOrderId: automationId }),
      campaignsDir: { value: "campaigns" },
    },
  });
  const campaigns = path.join(t.workDir, "campaigns");
  fs.mkdirSync(campaigns);
  fs.writeFileSync(path.join(campaigns, "thanks.csv"), recipientsCsv([3, 4]));
  fs.writeFileSync(
    path.join(campaigns, "loyal.csv"),
    "customerId,firstName,lastName,address1,city,state,zipCode\nK-1,Kay,One,1 Elm St,Springfield,IL,62701\nK-2,Kim,Two,2 Elm St,Springfield,IL,62701\n",
  );
  const write = (name: string, text: string) => fs.writeFileSync(path.join(campaigns, `${name}.yaml`), text);
  write("winter-thanks", campaignYaml("winter-thanks", templateId, { file: "thanks.csv" }));
  write("loyal", campaignYaml("loyal", templateId, { file: "loyal.csv", keyColumn: "customerId" }));
  write("inline", campaignYaml("inline", templateId));
  write(
    "inline-keyed",
    campaignYaml("inline-keyed", templateId)
      .replace("    inline:", "    keyColumn: customerId\n    inline:")
      .replaceAll("{ firstName:", "{ customerId: K-1, firstName:")
      .replace("customerId: K-1, firstName: Alan", "customerId: K-2, firstName: Alan"),
  );
  fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([1, 2]));
  fs.writeFileSync(
    path.join(t.workDir, "sales.csv"),
    "uniqueId,firstName,lastName,address1,city,state,zipCode,revenue\nC-1,Ada,Lovelace,12 Main St,Springfield,IL,62701,120.00\n",
  );
}, 240_000);

afterAll(async () => {
  await t?.dispose();
  await sb?.close();
});

describe("refresh of an unchanged stack under the real pulumi CLI", { timeout: 400_000 }, () => {
  it("after up of every resource kind, `pulumi refresh --expect-no-changes` passes and shows no diff", async () => {
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed, up.output).toBe(false);
    const { latest } = t.readStateFile().checkpoint.checkpoint;
    const resources = (latest.resources as { type: string }[]).filter(
      (r) => !r.type.startsWith("pulumi:providers:"),
    );
    const deployed = new Set(
      resources
        .map((r) => /^pulumi-nodejs:dynamic\/directmail:(\w+)$/.exec(r.type)?.[1])
        .filter((kind) => kind !== undefined),
    );
    expect([...deployed].sort()).toEqual(KINDS.sort());
    expect(KINDS).toHaveLength(8);
    // The campaign folder's lists, each way: a file or inline, keyed or not.
    const lists = resources.filter((r) => r.type.endsWith(":OrderRecipients"));
    expect(lists).toHaveLength(5);

    // As the user runs it: the CLI's own refresh, its preview included.
    // Plain, with the program run (which registers its unchecked inputs), and each with --diff.
    for (const options of [[], ["--diff"], ["--run-program"], ["--run-program", "--diff"]]) {
      const refresh = await pulumi("refresh", "--yes", "--expect-no-changes", ...options, "--stack", "e2e");
      expect(refresh.code, refresh.output).toBe(0);
      expect(refresh.output).not.toContain("[diff:");
      // Every resource, the stack included, read and unchanged.
      expect(refresh.output).toContain(`Resources:\n    ${resources.length} unchanged\n`);
    }
  });
});
