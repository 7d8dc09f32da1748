/**
 * Text from the service cannot drive the user's terminal, forge a line or reorder what is shown,
 * under the real pulumi CLI and the built `directmail` CLI. Every string the sandbox's control API
 * lets an account set (its email and names, a template's name, product, QR URL and merge fields,
 * an automation's name and postage, an uploaded font, an order's status, a do-not-mail address) is
 * filled with escape sequences, C1 and bidirectional controls, a line separator and a line feed
 * followed by a forged `error:` line. What the user reads, in a provider refusal at `up`, in the
 * campaign folder's online check at preview, in the review, the report, status and whoami, holds
 * none of those characters, and shows the text with each of them escaped (`\u001b`).
 *
 * The sandbox's fault bodies and drop reasons are its own words (a fault sets a status, a drop
 * reason is a fixed sentence); what they quote of a recipient is taken out (api/reasons.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { controlLaden, unsafeCharsIn } from "../support/unsafe-chars";
import { type CommandResult, directmailIn, gitIn } from "./support/commands";
import { previewOnce, stateOutputs, upOnce } from "./support/one-command";
import { run } from "./support/output";
import { createCampaignsStack, createTestStack, type TestStack } from "./support/pulumi";

/** The name of the defect's report: a window title, a screen clear and a green success line. */
const FORGED = "Postcard\u001b]0;owned\u0007\u001b[2J\u001b[1;32mAll checks passed\u001b[0m";
const FORGED_SHOWN = "Postcard\\u001b]0;owned\\u0007\\u001b[2J\\u001b[1;32mAll checks passed\\u001b[0m";

const ada = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "1 Main St",
  city: "Springfield",
  state: "IL",
};

let sb: TestSandbox;
const stacks: TestStack[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
}, 120_000);

afterAll(async () => {
  for (const t of stacks) await t.dispose();
  await sb?.close();
});

/** What a command printed, both streams. */
const printed = (result: CommandResult) => `${result.stdout}${result.stderr}`;

describe("service text under the real CLIs", { timeout: 480_000 }, () => {
  it("a template named like an escape sequence shows escaped in the provider's refusal at `up`", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 0 });
    // Its merge fields include the identity field: OrderRecipients refuses it, quoting its name.
    const { id: templateId } = await sb.control.createTemplate({
      apiKey,
      name: FORGED,
      requiredMergeFields: ["firstName", "custom6"],
    });
    const t = await createTestStack("orders", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipients: { value: JSON.stringify([{ ...ada, zipCode: "62701" }]) },
      },
    });
    stacks.push(t);
    const { output, failed } = await run((onOutput) => upOnce(t, { onOutput }));
    expect(failed).toBe(true);
    expect(output).toContain(
      `Template ${templateId} ("${FORGED_SHOWN}") prints custom6, which would carry each recipient's identity key`,
    );
    expect(unsafeCharsIn(output)).toEqual([]);
    // The service: the draft was made, and nothing was appended to it or charged.
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    const { orders } = await client.listOrders();
    const order = orders.find((o) => o.templateId === templateId);
    expect(order?.orderStatus).toBe("Draft");
    expect((await client.listRecipients(order?.orderId as number)).recipients).toEqual([]);
    expect((await sb.control.ledger(apiKey)).entries).toEqual([]);
    await client.close();
  });

  it("every text the control API sets reaches the refusals, the review, the report, status and whoami with no control character", async () => {
    const laden = (word: string) => controlLaden(word);
    const { apiKey } = await sb.control.createAccount({
      balance: 0,
      email: laden("eve@example.com"),
      firstName: laden("Eve"),
      lastName: laden("Mallory"),
      company: laden("Evil Corp"),
    });
    const { id: paidTemplate } = await sb.control.createTemplate({
      apiKey,
      name: laden("Spring postcard"),
      product: laden("Postcard"),
    });
    // Prints a merge field no recipient fills in: the folder's online check refuses the campaign.
    const { id: fieldTemplate } = await sb.control.createTemplate({
      apiKey,
      name: FORGED,
      product: laden("Letter"),
      hasQr: true,
      qrUrl: laden("https://example.com/qr"),
      requiredMergeFields: [laden("custom1")],
    });
    await sb.control.createIntegrationOrder({
      apiKey,
      name: laden("Automation"),
      templateId: paidTemplate,
      postageType: laden("Standard"),
    });
    await sb.control.uploadFont(apiKey, laden("Font"));
    await sb.control.addDoNotMail({
      apiKey,
      address1: laden("9 Elm St"),
      city: laden("Springfield"),
      state: "IL",
      zip: "62701",
    });
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    // An order outside the stack, in a status only the control API can set.
    const other = await client.createOrder({ templateId: paidTemplate });
    await sb.control.setOrderState(other.orderId, { apiKey, status: laden("Paid") });

    const t = await createCampaignsStack("service-text", { baseUrl: sb.url, apiKey });
    stacks.push(t);
    const env = t.env;
    const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env }, ...args);
    const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
    const campaign = (name: string, templateId: number, checkout: boolean, more = false) =>
      [
        "apiVersion: directmail/v1",
        "kind: Campaign",
        `metadata: { name: ${name} }`,
        "spec:",
        `  order: { templateId: ${templateId} }`,
        "  recipients:",
        "    inline:",
        '      - { firstName: Grace, lastName: Hopper, address1: 1 Compiler Way, city: Arlington, state: VA, zipCode: "22202" }',
        '      - { firstName: Alan, lastName: Turing, address1: 7 Enigma Road, city: Portland, state: OR, zipCode: "97205" }',
        ...(more
          ? [
              '      - { firstName: Katherine, lastName: Johnson, address1: 3 Orbit Drive, city: Madison, state: WI, zipCode: "53703" }',
            ]
          : []),
        ...(checkout ? ["  checkout: { postageType: Standard, productionSpeed: Normal }"] : []),
        "",
      ].join("\n");
    write("campaigns/spring.yaml", campaign("spring", paidTemplate, true));
    write(".gitignore", "review-*/\n*.html\n");
    await gitIn(t.workDir, "init", "-q", "-b", "main");
    await gitIn(t.workDir, "add", "-A");
    await gitIn(t.workDir, "commit", "-q", "-m", "spring");
    const outputs: Record<string, string> = {};

    // A paid campaign, mailed and delivered: the report and status have its figures.
    const up = await run((onOutput) => upOnce(t, { onOutput }));
    expect(up.failed, up.output).toBe(false);
    outputs.up = up.output;
    const springId = stateOutputs(t).spring?.value.orderId as number;
    await sb.control.deliver(apiKey, springId);

    // The head adds a campaign whose template prints a field none of its recipients has.
    write("campaigns/autumn.yaml", campaign("autumn", fieldTemplate, false));
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed).toBe(true);
    expect(preview.output).toContain(`template ${fieldTemplate} ("${FORGED_SHOWN}") prints`);
    outputs.preview = preview.output;

    const review = await directmail("review", "--base", "main", "--out", "review-1");
    outputs.review = printed(review);
    const markdown = fs.readFileSync(path.join(t.workDir, "review-1/review.md"), "utf8");
    expect(markdown).toContain("All checks passed");
    outputs["review.md"] = markdown;

    for (const args of [
      ["report"],
      ["report", String(other.orderId), "--out", "other.html"],
      ["status"],
      ["status", String(other.orderId)],
      ["whoami"],
      ["validate", "--online", "campaigns"],
    ]) {
      outputs[args.join(" ")] = printed(await directmail(...args));
    }
    outputs["report.html"] = fs.readFileSync(path.join(t.workDir, "directmail-report-e2e.html"), "utf8");
    outputs["other.html"] = fs.readFileSync(path.join(t.workDir, "other.html"), "utf8");

    // The paid order in a status named like an attack: the refusal to change its recipients quotes
    // the status on the refusal's one line.
    fs.rmSync(path.join(t.workDir, "campaigns/autumn.yaml"));
    await sb.control.setOrderState(springId, { apiKey, status: laden("Complete") });
    write("campaigns/spring.yaml", campaign("spring", paidTemplate, true, true));
    const refused = await run((onOutput) => upOnce(t, { onOutput }));
    expect(refused.failed).toBe(true);
    expect(refused.output).toContain(`Order ${springId} is "Complete\\u001b]0;owned\\u0007`);
    outputs["up, refused"] = refused.output;
    expect((await client.listRecipients(springId)).recipients).toHaveLength(2);
    await client.close();

    // Each text is shown, escaped, where a person reads it.
    expect(outputs.whoami).toContain("eve@example.com\\u001b]0;owned\\u0007");
    expect(outputs.whoami).toContain(
      "\\u202egpj.exe\\u2066\\u200f\\u061c\\u2028\\u0000\\u007f\\r\\nerror: forged",
    );
    expect(outputs.status).toContain("spring");
    expect(outputs[`status ${other.orderId}`]).toContain("Paid\\u001b]0;owned");
    expect(outputs["other.html"]).toContain("Spring postcard\\u001b]0;owned");
    expect(outputs["review.md"]).toContain(`("Postcard&#92;u001b&#93;0;owned&#92;u0007`);
    expect(outputs["validate --online campaigns"]).toContain(FORGED_SHOWN);
    for (const [what, text] of Object.entries(outputs)) expect(unsafeCharsIn(text), what).toEqual([]);
    // No text of the service starts a line of its own.
    for (const [what, text] of Object.entries(outputs)) expect(text, what).not.toMatch(/^\s*error: forged/m);
  });
});
