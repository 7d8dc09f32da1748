/**
 * Only the project's own files, under the real pulumi CLI with the sandbox as the truth: a
 * campaign file that names a file outside its campaign folder (absolute, `../`, through a link),
 * a campaign file that is a link to outside, a program's OrderRecipients given a file outside the
 * project, and a review's base tree holding a link. Each is one problem with the exact words the
 * user reads, nothing of the outside file is shown, and nothing reaches the service.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Review } from "../../cli/review/model";
import { DirectMailClient } from "../../provider/api/client";
import { shown } from "../../provider/text";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml, recipientsCsv } from "./support/campaign";
import { directmailIn, gitIn } from "./support/commands";
import { previewOnce, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createCampaignsStack, createTestStack, type TestStack } from "./support/pulumi";

/** What the outside file holds: none of it may be printed, and no one of them mailed. */
const SECRET_CSV =
  "firstName,lastName,address1,city,state,zipCode\nSecretive,Outsider,9 Hidden Rd,Nowhere,KS,66002\n";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
const stacks: TestStack[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
});
afterAll(async () => {
  for (const t of stacks) await t.dispose();
  await client?.close();
  await sb?.close();
});

/** Every order of the account with its recipients: what the service holds. */
async function serviceHolds(): Promise<{ orderId: number; recipients: number }[]> {
  const orders = await client.listOrders();
  return orders.orders.map((o) => ({ orderId: o.orderId, recipients: o.recipientCount }));
}

function expectNothingShown(text: string): void {
  for (const word of ["Secretive", "Outsider", "Hidden Rd"]) expect(text).not.toContain(word);
}

describe("a campaign folder's files stay inside it", { timeout: 300_000 }, () => {
  it("absolute, ../, a link, a linked campaign file: one problem each at validate and preview; nothing reaches the service", async () => {
    const t = await createCampaignsStack("outside", { baseUrl: sb.url, apiKey });
    stacks.push(t);
    const camps = path.join(t.workDir, "campaigns");
    // Beside the project folder: its own, but not the campaign folder's.
    const outside = path.join(path.dirname(t.workDir), "secret.csv");
    fs.writeFileSync(outside, SECRET_CSV);
    fs.writeFileSync(path.join(t.workDir, "beside.csv"), SECRET_CSV);
    fs.mkdirSync(path.join(camps, "lists"));
    fs.writeFileSync(path.join(camps, "lists", "people.csv"), recipientsCsv([1, 2]));
    fs.symlinkSync(outside, path.join(camps, "lists", "linked.csv"));
    const elsewhere = path.join(path.dirname(t.workDir), "evil.yaml");
    fs.writeFileSync(elsewhere, campaignYaml("evil", templateId, { file: "secret.csv" }));

    // One campaign file for each form, all four checked by one validate and one preview.
    const rule = (name: string, written: string) =>
      `campaigns/${name}.yaml:9:11: spec.recipients.file: "${written}" is outside the campaign folder campaigns/ (after following links); name a file inside it`;
    const forms: [string, string, string][] = [
      ["absolute", outside, shown(outside)],
      ["beside", "../beside.csv", "../beside.csv"],
      ["linked", "lists/linked.csv", "lists/linked.csv"],
      ["parent", "../../secret.csv", "../../secret.csv"],
    ];
    for (const [name, file] of forms)
      fs.writeFileSync(path.join(camps, `${name}.yaml`), campaignYaml(name, templateId, { file }));
    const problems = forms.map(([name, , written]) => rule(name, written));
    const validated = await directmailIn({ cwd: t.workDir, env: t.env }, "validate", "campaigns");
    expect([validated.code, validated.stderr]).toEqual([
      1,
      `${problems.join("\n")}\nchecked 4 campaign files: 0 valid, 4 with problems (4 problems)\n`,
    ]);
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed).toBe(true);
    expect(diagnostics(preview.output)).toEqual({
      "pulumi:pulumi:Stack (directmail-campaigns-e2e):": [
        "error: the campaign files have problems; nothing was changed:",
        ...problems,
      ],
    });
    expectNothingShown(preview.output + validated.stdout + validated.stderr);
    for (const [name] of forms) fs.rmSync(path.join(camps, `${name}.yaml`));

    // A campaign file that is a link to a file outside: not read, its own campaign not declared.
    fs.writeFileSync(
      path.join(camps, "spring.yaml"),
      campaignYaml("spring", templateId, { file: "lists/people.csv" }),
    );
    fs.symlinkSync(elsewhere, path.join(camps, "evil.yaml"));
    const linkProblem =
      'campaigns/evil.yaml:1:1: "evil.yaml" is outside the campaign folder campaigns/ (after following links); name a file inside it';
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed).toBe(true);
    expect(diagnostics(up.output)).toEqual({
      "pulumi:pulumi:Stack (directmail-campaigns-e2e):": [
        "error: the campaign files have problems; nothing was changed:",
        linkProblem,
      ],
    });
    expectNothingShown(up.output);
    expect(await serviceHolds()).toEqual([]);
  });
});

describe("the provider reads the project's files only", { timeout: 300_000 }, () => {
  it("an OrderRecipients given a file outside the project fails its check; the order gets no recipient", async () => {
    const t = await createTestStack("campaign", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipientsFile: { value: "../secret.csv" },
      },
    });
    stacks.push(t);
    fs.writeFileSync(path.join(path.dirname(t.workDir), "secret.csv"), SECRET_CSV);
    const message = `"../secret.csv" is outside the Pulumi project folder ${t.workDir}/ (after following links); name a file inside it`;
    const before = await serviceHolds();
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed).toBe(true);
    expect(
      diagnostics(preview.output)["pulumi-nodejs:dynamic/directmail:OrderRecipients (recipients):"],
    ).toEqual([
      `error: pulumi-nodejs:dynamic/directmail:OrderRecipients resource 'recipients': property file value {../secret.csv} has a problem: ${message}`,
    ]);
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed).toBe(true);
    expectNothingShown(preview.output + up.output);
    // `up` may create the order before its recipients are checked: it holds none of them.
    const created = (await serviceHolds()).filter((o) => !before.some((b) => b.orderId === o.orderId));
    expect(created.every((o) => o.recipients === 0)).toBe(true);
  });
});

describe("a review's base tree follows no link", { timeout: 300_000 }, () => {
  it("a recipients file that is a link at the base is one problem of the review, unread", async () => {
    const t = await createCampaignsStack("outside-review", { baseUrl: sb.url, apiKey });
    stacks.push(t);
    const camps = path.join(t.workDir, "campaigns");
    const outside = path.join(path.dirname(t.workDir), "secret.csv");
    fs.writeFileSync(outside, SECRET_CSV);
    fs.symlinkSync(outside, path.join(camps, "people.csv"));
    fs.writeFileSync(
      path.join(camps, "spring.yaml"),
      campaignYaml("spring", templateId, { file: "people.csv" }),
    );
    fs.writeFileSync(path.join(t.workDir, ".gitignore"), "review/\n");
    const git = (...args: string[]) => gitIn(t.workDir, ...args);
    await git("init", "-q", "-b", "main");
    await git("add", "-A");
    await git("commit", "-q", "-m", "a campaign whose list is a link");
    // The head replaces the link with the project's own list.
    fs.rmSync(path.join(camps, "people.csv"));
    fs.writeFileSync(path.join(camps, "people.csv"), recipientsCsv([1, 2]));

    const before = await serviceHolds();
    const result = await directmailIn(
      { cwd: t.workDir, env: t.env },
      "review",
      "--offline",
      "--base",
      "main",
    );
    const review = JSON.parse(
      fs.readFileSync(path.join(t.workDir, "review", "review.json"), "utf8"),
    ) as Review;
    expect(review.problems).toEqual([
      'at main: campaigns/spring.yaml:9:11: spec.recipients.file: "people.csv" is a link, and no link is followed in the campaign folder campaigns/ of the base tree; name a file inside it',
    ]);
    expect(result.code).toBe(1);
    expectNothingShown(
      fs.readFileSync(path.join(t.workDir, "review", "review.md"), "utf8") +
        JSON.stringify(review) +
        result.stdout,
    );
    expect(await serviceHolds()).toEqual(before);
  });
});
