/**
 * One root from preview to up, under the real pulumi CLI with the sandbox as the truth: a stack
 * whose `campaignsDir` is an absolute folder beside the project (a monorepo, a shared checkout of
 * campaigns) previews and deploys, its recipients and conversions read inside that folder by the
 * provider as by the program; a refresh of it is quiet. A campaign file that names a file outside
 * that folder is one line at preview, and nothing reaches the service.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { shown } from "../../provider/text";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml, recipientsCsv } from "./support/campaign";
import { previewOnce, stateOutputs, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createCampaignsStack, type TestStack, writePlainConfig } from "./support/pulumi";

let sb: TestSandbox;
let t: TestStack;
let client: DirectMailClient;
let templateId: number;
/** The campaign folder, beside the project folder. */
let shared: string;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  const { apiKey } = await sb.control.createAccount({ tier: "pro", balance: 100 });
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createCampaignsStack("campaign-root", { baseUrl: sb.url, apiKey });
  shared = path.join(path.dirname(t.workDir), "shared-campaigns");
  fs.mkdirSync(path.join(shared, "lists"), { recursive: true });
  writePlainConfig(t, { campaignsDir: shared });
}, 240_000);
afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

/** The real pulumi CLI in the project, as its user runs it; stdout and stderr together. */
function pulumi(...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("pulumi", [...args, "--stack", "e2e"], { cwd: t.workDir, env: t.env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

/** Every order of the account with its recipients' first names: what the service holds. */
async function serviceHolds(): Promise<{ orderId: number; names: string[] }[]> {
  const held = [];
  for (const order of (await client.listOrders()).orders) {
    const names: string[] = [];
    for await (const r of client.iterateRecipients(order.orderId)) names.push(r.personal.firstName ?? "");
    held.push({ orderId: order.orderId, names: names.sort() });
  }
  return held;
}

const NO_TRACE = /failed unexpectedly|This is a bug|OutsideRootError|\n\s+at /;

describe("a campaign folder beside the project", { timeout: 400_000 }, () => {
  it("previews and deploys with its files read inside it; refresh is quiet", async () => {
    fs.writeFileSync(path.join(shared, "lists", "people.csv"), recipientsCsv([1, 2]));
    fs.writeFileSync(
      path.join(shared, "lists", "sales.csv"),
      "uniqueId,firstName,lastName,address1,city,state,zipCode,revenue\nC-1,Ada1,Lovelace,101 Main St,Springfield,IL,62701,120.00\n",
    );
    fs.writeFileSync(
      path.join(shared, "winter.yaml"),
      `${campaignYaml("winter", templateId, { file: "lists/people.csv" })}  conversions:\n    file: lists/sales.csv\n    keyField: uniqueId\n`,
    );

    // `pulumi up` showing its preview first: both run the program and the provider, in one command.
    const up = await run((onOutput) => upOnce(t, { preview: true, onOutput }));
    expect(up.failed, up.output).toBe(false);
    expect(up.output).toMatch(/^Previewing update \(e2e\):$/m);
    expect(up.output).toMatch(/^Updating \(e2e\):$/m);
    expect(up.output).not.toMatch(NO_TRACE);

    const orderId = stateOutputs(t).winter?.value.orderId as number;
    expect(await serviceHolds()).toEqual([{ orderId, names: ["Ada1", "Ada2"] }]);
    // The state names the files and their root relative to the project folder: the same on every machine.
    const { checkpoint } = t.readStateFile();
    const inputsOf = (kind: string) =>
      (checkpoint.checkpoint.latest.resources as { type: string; inputs: Record<string, unknown> }[]).find(
        (r) => r.type === `pulumi-nodejs:dynamic/directmail:${kind}`,
      )?.inputs;
    for (const [kind, file] of [
      ["OrderRecipients", "people.csv"],
      ["Conversions", "sales.csv"],
    ] as const) {
      expect(inputsOf(kind)).toMatchObject({
        file: path.join("..", "shared-campaigns", "lists", file),
        fileRoot: path.join("..", "shared-campaigns"),
      });
    }

    const refresh = await pulumi("refresh", "--yes", "--run-program", "--expect-no-changes");
    expect(refresh.code, refresh.output).toBe(0);
    expect(refresh.output).not.toContain("[diff:");
  });

  it("refuses at preview, in one line, a campaign file naming a file outside it, inside the project or not", async () => {
    const before = await serviceHolds();
    fs.writeFileSync(path.join(t.workDir, "in-project.csv"), recipientsCsv([7]));
    fs.writeFileSync(path.join(path.dirname(shared), "beside.csv"), recipientsCsv([8]));
    // One campaign file for each form, all three refused by one preview.
    const rule = (name: string, written: string) =>
      `../shared-campaigns/${name}.yaml:9:11: spec.recipients.file: "${shown(written)}" is outside the campaign folder ../shared-campaigns/ (after following links); name a file inside it`;
    const forms = [
      ["beside", "../beside.csv"],
      ["in-project", path.join(t.workDir, "in-project.csv")],
      ["passwd", "../../../etc/passwd"],
    ] as const;
    for (const [name, file] of forms)
      fs.writeFileSync(path.join(shared, `${name}.yaml`), campaignYaml(name, templateId, { file }));
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed).toBe(true);
    expect(diagnostics(preview.output)).toEqual({
      "pulumi:pulumi:Stack (directmail-campaigns-e2e):": [
        "error: the campaign files have problems; nothing was changed:",
        ...forms.map(([name, file]) => rule(name, file)),
      ],
    });
    expect(preview.output).not.toMatch(NO_TRACE);
    expect(preview.output).not.toContain("Ada7");
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed).toBe(true);
    expect(up.output).not.toMatch(NO_TRACE);
    expect(await serviceHolds()).toEqual(before);
  });
});
