/**
 * `kind: Automation` and `kind: Conversions` documents in a campaign repository, under the real
 * pulumi CLI and the project's own program (a CampaignFolder): `directmail review` flags the
 * automation ⚠ from the real plan and changes nothing; a records file that is not text fails the
 * preview in one line; `pulumi up` mails the recipients and uploads
 * the records (checked at the service); a no-change preview is quiet; deleting the files deletes the
 * uploads and forgets the mailed recipients.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Review } from "../../cli/review/model";
import { DirectMailClient } from "../../provider/api/client";
import { NotFoundError } from "../../provider/api/errors";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn, gitIn } from "./support/commands";
import { previewOnce, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const STACK = "pulumi:pulumi:Stack (directmail-campaigns-e2e):";

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
let automationId: number;

const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
const queued = async () => (await sb.control.integrationRecipients(apiKey, automationId)).recipients;

const git = (...args: string[]) => gitIn(t.workDir, ...args);

const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env: t.env }, ...args);

const AUTOMATION = (id: number) => `apiVersion: directmail/v1
kind: Automation
metadata:
  name: welcome
spec:
  integrationOrderId: ${id}
  recipients:
    keyField: customerId
    maxNew: 5
    inline:
      - { customerId: W-1, firstName: Ada, lastName: Lovelace, address1: 12 Main St, city: Springfield, state: IL, zipCode: "62701" }
      - { customerId: W-2, firstName: Alan, lastName: Turing, address1: 14 Main St, city: Springfield, state: IL, zipCode: "62701" }
`;
const CONVERSIONS = `apiVersion: directmail/v1
kind: Conversions
metadata:
  name: q2-sales
spec:
  file: q2-sales.jsonl
  keyField: uniqueId
  deleteWaitSeconds: 20
`;
const SALES = [
  {
    uniqueId: "S-1",
    firstName: "Ada",
    primaryAddress: { address1: "12 Main St", city: "Springfield", state: "IL", zipCode: "62701" },
    revenue: "40",
  },
  { uniqueId: "S-2", firstName: "Alan", revenue: "25" },
];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {}, timings: { conversionDeleteSeconds: 1 } });
  ({ apiKey } = await sb.control.createAccount({ tier: "pro" }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Welcome" });
  ({ id: automationId } = await sb.control.createIntegrationOrder({ apiKey, name: "Welcome", templateId }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("root", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  write(".gitignore", "review-*/\n");
  write("campaigns/README.md", "campaigns\n");
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "no campaign yet");
  write("campaigns/welcome.yaml", AUTOMATION(automationId));
  write("campaigns/q2-sales.yaml", CONVERSIONS);
  write("campaigns/q2-sales.jsonl", `${SALES.map((r) => JSON.stringify(r)).join("\n")}\n`);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("automation and conversions documents under the real pulumi CLI", { timeout: 180_000 }, () => {
  it("directmail review flags the automation ⚠ from the plan, asks for approval, and mails nothing", async () => {
    const review = await directmail("review", "--base", "main", "--out", "review-1");
    expect(review.code, review.stderr).toBe(3);
    const json = JSON.parse(fs.readFileSync(path.join(t.workDir, "review-1/review.json"), "utf8")) as Review;
    const welcome = json.campaigns.find((c) => c.name === "welcome");
    expect(welcome?.flags).toEqual([
      { kind: "automation-recipients", detail: "AutomationRecipients welcome-recipients (create)" },
    ]);
    const markdown = fs.readFileSync(path.join(t.workDir, "review-1/review.md"), "utf8");
    expect(markdown).toContain(
      "- **⚠ automation recipients** (1): welcome. Sends recipients to an automation, which mails each one as it arrives: a piece sent cannot be recalled.",
    );
    expect(await queued()).toEqual([]);
  });

  it("a records file that is not text fails the preview in one line naming it, and uploads nothing", async () => {
    const sales = path.join(t.workDir, "campaigns/q2-sales.jsonl");
    const good = fs.readFileSync(sales);
    fs.writeFileSync(sales, Buffer.concat([good, Buffer.from([0x50, 0x4b, 0x03, 0x04])]));
    try {
      const preview = await run((onOutput) => previewOnce(t, { onOutput }));
      expect(preview.failed).toBe(true);
      // One line, at the first byte that is not text (past the file's two good lines), once.
      const { [STACK]: stackLines, ...byResource } = diagnostics(preview.output);
      expect(byResource).toEqual({
        "pulumi-nodejs:dynamic/directmail:Conversions (q2-sales):": [
          "error: campaigns/q2-sales.jsonl:3:3: not text: a control character (\\u0003) here; remove it, or save the file as UTF-8 text",
        ],
      });
      // The automation's plan note shows when the engine reached its step before the failure ended
      // the preview; nothing else does.
      const planNote = `[directmail] Integration order ${automationId}: 2 recipients to mail (cannot be recalled)`;
      expect([[], [planNote]]).toContainEqual(stackLines ?? []);
    } finally {
      fs.writeFileSync(sales, good);
    }
    expect(sb.sandbox.store.all("SELECT count(*) AS n FROM conversions")).toEqual([{ n: 0 }]);
  });

  it("up mails each recipient and uploads the records; then a preview is quiet", async () => {
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed, up.output).toBe(false);
    expect(diagnostics(up.output)[STACK]).toEqual(
      expect.arrayContaining([
        `[directmail] Integration order ${automationId}: 2 recipients to mail (cannot be recalled)`,
        `[directmail] Integration order ${automationId}: 2 recipients mailed, 0 refused`,
        "[directmail] Conversions: 2 added, 0 removed, 0 changed: 0 uploads deleted, 2 records uploaded",
      ]),
    );
    expect((await queued()).map((r) => r.lastName)).toEqual(["Lovelace", "Turing"]);
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed, preview.output).toBe(false);
    expect(diagnostics(preview.output)).toEqual({});
  });

  it("removing the files deletes the uploads at the service and forgets the mailed recipients", async () => {
    const { checkpoint } = t.readStateFile();
    const conversions = checkpoint.checkpoint.latest.resources.find((r: { urn: string }) =>
      r.urn.endsWith("::q2-sales"),
    );
    const uploadId = conversions?.outputs.uploads[0].conversionId as number;
    expect(await client.getConversionStatus(uploadId)).toMatchObject({ id: uploadId });
    fs.rmSync(path.join(t.workDir, "campaigns/welcome.yaml"));
    fs.rmSync(path.join(t.workDir, "campaigns/q2-sales.yaml"));
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed, up.output).toBe(false);
    expect(diagnostics(up.output)[STACK]).toEqual(
      expect.arrayContaining([
        `[directmail] Integration order ${automationId}: 2 mailed recipients leave this stack; mailed pieces cannot be recalled, and nothing is sent to the service`,
        `[directmail] Conversions: upload ${uploadId} deleted (1 of 1)`,
      ]),
    );
    await expect(client.getConversionStatus(uploadId)).rejects.toBeInstanceOf(NotFoundError);
    expect(await queued()).toHaveLength(2);
  });
});
