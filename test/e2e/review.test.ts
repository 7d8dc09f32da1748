/**
 * `directmail review` as a pull request's pipeline runs it: the built CLI in a campaign repository
 * (a git repository holding the project's program and campaign files) whose stack is deployed to
 * the sandbox, against the real pulumi CLI. The base commit has two campaigns applied as drafts; the
 * working tree changes one recipients file (rows added, removed and changed by key) and adds a
 * checkout to both, one within its maxTotal and one above it. The report must give the exact
 * counts and keys, the service's exact price, the failing checkout, the ⚠ flags and the exit code,
 * and no API key, name or address; and nothing may change at the service.
 *
 * `directmail whoami` in the same project reads the stack's configuration, not the environment.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Review } from "../../cli/review/model";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import { usd } from "../../provider/money";
import { HOSTILE_FONT } from "../support/markdown-safety";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn, gitIn } from "./support/commands";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";

const HEADER = "customerId,firstName,lastName,address1,city,state,zipCode";
const BASE_CSV = [
  HEADER,
  "C-1001,Grace,Hopper,1 Compiler Way,Arlington,VA,22202",
  "C-1002,Alan,Turing,7 Enigma Road,Portland,OR,97205",
  "C-1003,Katherine,Johnson,3 Orbit Drive,Madison,WI,53703",
  "C-1004,Ada,Lovelace,12 Analytical St,Springfield,IL,62701",
  "",
].join("\n");
// C-1002 removed, C-1003 moved, C-1005 and C-1006 added.
const HEAD_CSV = [
  HEADER,
  "C-1001,Grace,Hopper,1 Compiler Way,Arlington,VA,22202",
  "C-1003,Katherine,Johnson,9 Launch Pad Ave,Madison,WI,53704",
  "C-1004,Ada,Lovelace,12 Analytical St,Springfield,IL,62701",
  "C-1005,Hedy,Lamarr,5 Frequency Way,Boulder,CO,80302",
  "C-1006,Edsger,Dijkstra,2 Shortest Path Ln,Austin,TX,78701",
  "",
].join("\n");
const INLINE = [
  '      - { firstName: Barbara, lastName: Liskov, address1: 4 Substitution Sq, city: Cambridge, state: MA, zipCode: "02139" }',
  '      - { firstName: Donald, lastName: Knuth, address1: 8 Volume Blvd, city: Stanford, state: CA, zipCode: "94305" }',
];
/** Every name, street and city of the recipients, at the base and at the head. */
const PERSONAL_DATA = [
  ...[BASE_CSV, HEAD_CSV].flatMap((csv) =>
    csv
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .flatMap((line) => line.split(",").slice(1, 5)),
  ),
  ...["Barbara", "Liskov", "4 Substitution Sq", "Cambridge", "Donald", "Knuth", "8 Volume Blvd", "Stanford"],
];

function campaign(name: string, templateId: number, recipients: string[], checkout?: string[]): string {
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    ...recipients,
    ...(checkout ? ["  checkout:", ...checkout.map((line) => `    ${line}`)] : []),
    "",
  ].join("\n");
}

let sb: TestSandbox;
let apiKey: string;
let otherKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let env: Record<string, string>;
const orders: Record<string, number> = {};

const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
const read = (file: string) => fs.readFileSync(path.join(t.workDir, file), "utf8");
const spring = (checkout?: string[]) =>
  campaign("spring", templateId, ["    file: spring.csv", "    keyColumn: customerId"], checkout);
const autumn = (checkout?: string[]) => campaign("autumn", templateId, ["    inline:", ...INLINE], checkout);

const git = (...args: string[]) => gitIn(t.workDir, ...args);

const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env: env }, ...args);
/** The real pulumi CLI in the project, as its user runs it (no PULUMI_STACK). */
const pulumi = (...args: string[]) => promisify(execFile)("pulumi", args, { cwd: t.workDir, env: t.env });

function report(out: string): { markdown: string; json: Review; text: string } {
  const markdown = read(`${out}/review.md`);
  const text = read(`${out}/review.json`);
  return { markdown, json: JSON.parse(text) as Review, text };
}

/** What the service holds: the ledger, and each order's status and recipients. */
async function serviceState() {
  const recipients: Record<string, unknown[]> = {};
  const statuses: Record<string, string | undefined> = {};
  for (const [name, id] of Object.entries(orders)) {
    recipients[name] = [];
    for await (const r of client.iterateRecipients(id)) recipients[name]?.push(r);
    statuses[name] = (await client.getOrder(id))?.orderStatus;
  }
  return { ledger: await sb.control.ledger(apiKey), statuses, recipients };
}

const summaryRows = (markdown: string) => markdown.split("\n").filter((line) => line.startsWith("| **"));

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "campaigns@example.com", balance: 3 }));
  ({ apiKey: otherKey } = await sb.control.createAccount({ email: "someone-else@example.com" }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  await sb.control.addDoNotMail({
    apiKey,
    address1: "12 Analytical St",
    city: "Springfield",
    state: "IL",
    zip: "62701",
  });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("review", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  // The environment names another service and another account: the stack's configuration must win.
  env = { ...t.env, DIRECTMAIL_BASE_URL: "http://127.0.0.1:9", DIRECTMAIL_API_KEY: otherKey };
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  write("campaigns/spring.yaml", spring());
  write("campaigns/spring.csv", BASE_CSV);
  write("campaigns/autumn.yaml", autumn());
  write(".gitignore", "review-*/\n");
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "two campaigns as drafts");
  // The pulumi CLI itself, then its outputs once: the Automation API's up would read them twice, and the history.
  await pulumi("up", "--yes", "--skip-preview");
  const outputs = JSON.parse((await pulumi("stack", "output", "--json")).stdout);
  for (const [name, value] of Object.entries(outputs)) orders[name] = (value as { orderId: number }).orderId;
  // The head: one recipients file changed, a checkout added to each campaign.
  write("campaigns/spring.csv", HEAD_CSV);
  write(
    "campaigns/spring.yaml",
    spring(["postageType: Standard", "productionSpeed: Normal", "maxTotal: 50"]),
  );
  write(
    "campaigns/autumn.yaml",
    autumn(["postageType: FirstClass", "productionSpeed: Normal", "maxTotal: 5"]),
  );
}, 240_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("directmail review against the sandbox", { timeout: 240_000 }, () => {
  it("reports counts and keys, the service's exact price, the checkout above maxTotal, the flags and exit code 1; nothing changes", async () => {
    const before = await serviceState();
    expect(before.statuses).toEqual({ spring: "Draft", autumn: "Draft" });
    const springPrice = await client.previewCheckout(orders.spring as number, {
      postageType: "Standard",
      productionSpeed: "Normal",
    });
    const autumnPrice = await client.previewCheckout(orders.autumn as number, {
      postageType: "FirstClass",
      productionSpeed: "Normal",
    });
    // Three mailable recipients on spring's draft (one is on the do-not-mail list), two on autumn's.
    expect(springPrice.lineItems[0]?.quantity).toBe(3);
    expect(autumnPrice.totalCharges).toBeGreaterThan(5);
    const usd = (n: number) => `${n.toFixed(2)} USD`;

    const run = await directmail("review", "--base", "main", "--out", "review-1");
    expect(run.code).toBe(1);
    const service = `service ${sb.url} (address from directmail:baseUrl of stack "e2e", API key from directmail:apiKey of stack "e2e")`;
    const { markdown, json, text } = report("review-1");
    expect(run.stdout.split("\n")).toEqual([
      "2 campaigns of stack e2e: the change has problems (exit code 1)",
      `wrote review-1/review.md (${markdown.length} characters), review-1/review.json, 2 proofs in review-1/proofs`,
      service,
      "",
    ]);

    // One row per campaign, in the order of their files.
    expect(summaryRows(markdown)).toEqual([
      `| **autumn** | pay | +0 −0 ~0 | 2 / 0 after the change; now 2 / 0 | ❌ ${usd(autumnPrice.totalCharges)} > maxTotal 5.00 USD | ⚠ checkout, ❌ 1 problem |`,
      `| **spring** | update, pay | +2 −1 ~1 | 4 / 1 (unchanged since dropped 1) after the change; now 3 / 1 (DO_NOT_MAIL 1) | ${usd(springPrice.totalCharges)} | ⚠ checkout |`,
    ]);
    const autumnProblem =
      `the checkout of order ${orders.autumn} would charge ${usd(autumnPrice.totalCharges)}, more than maxTotal 5.00 USD: ` +
      "`pulumi up` refuses it, charging nothing. Raise maxTotal if that is intended, or change the order.";
    for (const line of [
      "**❌ Problems: fix them before merging** (exit code 1).",
      "- **⚠ checkout** (2): autumn, spring. Spends money: merged, `pulumi up` pays for the order, once (and refuses, charging nothing, above maxTotal).",
      `- **autumn**: ${autumnProblem}`,
      "- Recipients by `customerId`: 4 at the base (`campaigns/spring.csv`) → 5 at the head (`campaigns/spring.csv`)",
      "  - added 2: `C-1005` (row 5), `C-1006` (row 6)",
      "  - removed 1: `C-1002` (row 3 at the base)",
      "  - changed 1: `C-1003` (row 3: address1, zipCode)",
      `- Price: **${usd(springPrice.totalCharges)}** for 3 pieces of order ${orders.spring} (the service's checkout preview), ` +
        `Standard postage, Normal production; the account's balance covers 3.00 USD, ${usd(springPrice.totalCharges - 3)} ` +
        "goes to the payment method; delivery expected",
      "- Proof: `proofs/spring.pdf`",
      "Proofs of the drafts (2 PDFs): `review-1/proofs/`.",
    ]) {
      expect(markdown).toContain(line);
    }

    expect(json.exitCode).toBe(1);
    const [autumnReview, springReview] = json.campaigns;
    expect(springReview).toMatchObject({
      name: "spring",
      actions: ["update", "pay"],
      orderId: orders.spring,
      orderStatus: "Draft",
      drops: {
        accepted: 3,
        dropped: 1,
        reasons: [{ reason: "DO_NOT_MAIL: the address is on the account's do-not-mail list", count: 1 }],
      },
      price: {
        kind: "quote",
        quote: { total: springPrice.totalCharges, recipients: 3, aboveMaxTotal: false },
      },
      flags: [{ kind: "checkout" }],
      problems: [],
    });
    expect(springReview?.recipients).toMatchObject({
      by: "key",
      added: 2,
      removed: 1,
      changed: 1,
      addedList: [
        { key: "C-1005", row: 5 },
        { key: "C-1006", row: 6 },
      ],
      removedList: [{ key: "C-1002", row: 3 }],
      changedList: [{ key: "C-1003", row: 3, fields: ["address1", "zipCode"] }],
    });
    expect(autumnReview).toMatchObject({
      name: "autumn",
      actions: ["pay"],
      price: { kind: "quote", quote: { total: autumnPrice.totalCharges, maxTotal: 5, aboveMaxTotal: true } },
      flags: [{ kind: "checkout" }],
      problems: [autumnProblem],
    });
    for (const name of ["spring", "autumn"]) {
      expect(read(`review-1/proofs/${name}.pdf`).slice(0, 5)).toBe("%PDF-");
    }

    // No key and no personal data anywhere the pipeline publishes.
    for (const output of [markdown, text, run.stdout, run.stderr]) {
      expect(output).not.toContain(apiKey);
      for (const value of PERSONAL_DATA) expect(output, value).not.toContain(value);
    }
    // Nothing changed at the service: no charge, no recipient added or removed, the drafts as they were.
    expect(await serviceState()).toEqual(before);
  });

  /*
   * One review serves the three tests below: the head with both checkouts within their maxTotal and
   * within directmail:monthlyBudget, run with --show-personal-data.
   */
  let within: { before: Awaited<ReturnType<typeof serviceState>>; markdown: string; planned: number };
  const month = async () => `${(await sb.control.clock()).now.slice(0, 7)} (UTC)`;
  /** What a review plans: autumn's checkout (spring's list changes, so its price is known only once applied). */
  const plannedOf = (json: Review) => {
    const autumnPrice = json.campaigns.find((c) => c.name === "autumn")?.price;
    return autumnPrice?.kind === "quote" ? autumnPrice.quote.total : 0;
  };

  it("exit code 3 when every checkout is within its maxTotal and directmail:monthlyBudget, with a budget line: spent this month, planned by this change, left", async () => {
    const before = await serviceState();
    // The head of beforeAll, both checkouts within their maxTotal.
    write(
      "campaigns/autumn.yaml",
      autumn(["postageType: FirstClass", "productionSpeed: Normal", "maxTotal: 50"]),
    );
    writePlainConfig(t, { "directmail:monthlyBudget": "1000" });
    const spends = await directmail("review", "--base", "main", "--out", "review-3", "--show-personal-data");
    expect(spends.code).toBe(3);
    expect(spends.stdout.split("\n")[0]).toBe(
      "2 campaigns of stack e2e: the change spends money or has a step that cannot be undone: it needs approval (exit code 3)",
    );
    const { markdown, json } = report("review-3");
    expect(markdown).toContain(
      "**⚠ Needs approval: this change spends money or cannot be undone** (exit code 3).",
    );
    expect(markdown).not.toContain("### ❌ Problems");

    const planned = plannedOf(json);
    expect(planned).toBeGreaterThan(0);
    expect(json.budget).toMatchObject({ spent: 0, planned, budget: 1000, above: false });
    expect(markdown).toContain(
      `Budget (directmail:monthlyBudget): spent this month 0.00 USD (${await month()}), planned by this change ` +
        `${planned.toFixed(2)} USD, budget 1,000.00 USD, left ${usd(1000 - planned)}. Not counted: 1 checkout ` +
        "priced only once applied (a new draft, or recipients this change alters); `pulumi up` holds each " +
        "against the budget just before it is sent.",
    );
    within = { before, markdown, planned };
  });

  it("shows names and addresses only with --show-personal-data", () => {
    // The review above ran with the flag; the first test's, without it, showed none.
    const { markdown } = within;
    expect(markdown).toContain("`C-1005` (row 5) Hedy Lamarr, 5 Frequency Way, Boulder, CO 80302");
    expect(markdown).toContain(
      "`C-1003` (row 3: address1, zipCode) Katherine Johnson, 3 Orbit Drive, Madison, WI 53703 → " +
        "Katherine Johnson, 9 Launch Pad Ave, Madison, WI 53704",
    );
    expect(markdown).not.toContain(apiKey);
  });

  it("with directmail:monthlyBudget, a checkout still settling counts as spent this month; one cent above the budget is a problem with exit code 1", async () => {
    const { before, planned } = within;
    let elsewhere: number | undefined;
    try {
      // A checkout of another campaign of the account, sent and not settled (the payment processor
      // does not answer): the ledger holds nothing yet, and the review counts it all the same.
      await sb.control.updateAccount({ apiKey, payment: "hang" });
      elsewhere = (await client.createOrder({ templateId })).orderId;
      await client.appendRecipients(
        elsewhere,
        [1, 2].map((i) =>
          newOrderRecipient({
            address: { address1: `${300 + i} Elm St`, city: "Springfield", state: "IL", zipCode: "62701" },
            personal: { firstName: `Other${i}`, lastName: "Campaign" },
          }),
        ),
      );
      await client.checkout(elsewhere, {
        postageType: "Standard",
        productionSpeed: "Normal",
        holdUntilDate: null,
      });
      await sb.control.advanceClock(5);
      // One cent below what was spent and what the change plans: the preview fails, and the review says so.
      const below = (5 + planned - 0.01).toFixed(2);
      writePlainConfig(t, { "directmail:monthlyBudget": below });
      expect((await directmail("review", "--base", "main", "--out", "review-budget-above")).code).toBe(1);
      const above = report("review-budget-above");
      expect(plannedOf(above.json)).toBe(planned);
      expect(above.json.budget).toMatchObject({ spent: 5, unsettled: 5, left: -0.01, above: true });
      expect(above.markdown).toContain(
        "❌ above the budget: `pulumi up` refuses the checkout that would go above it. Budget " +
          `(directmail:monthlyBudget): spent this month 5.00 USD (${await month()}, 5.00 USD of it not yet settled), ` +
          `planned by this change ${planned.toFixed(2)} USD, budget ${below} USD, left -0.01 USD.`,
      );
      expect(above.markdown).toContain("would take the account above directmail:monthlyBudget");
    } finally {
      writePlainConfig(t, { "directmail:monthlyBudget": undefined });
      await git("checkout", "--", "campaigns");
      if (elsewhere !== undefined) {
        // Back to a draft before the processor answers: that payment never settles, nothing is charged.
        await sb.control.setOrderState(elsewhere, { apiKey, status: "Draft" });
        await sb.control.updateAccount({ apiKey, payment: "succeed" });
        await client.deleteOrder(elsewhere);
      }
    }
    expect(await serviceState()).toEqual(before);
  });

  it("a campaign that adds an address book entry needs approval: exit code 3 and the ⚠ address book entry flag; nothing is added", async () => {
    // The files as deployed, and one campaign more.
    await git("checkout", "--", "campaigns");
    const before = await sb.control.addressBook(apiKey);
    write(
      "campaigns/contacts.yaml",
      [
        campaign("contacts", templateId, ["    inline:", INLINE[0] as string]).trimEnd(),
        "  addressBook:",
        '    - { toOrganization: Front Desk, address1: 1 Main St, city: Springfield, state: IL, zip: "62701" }',
        "",
      ].join("\n"),
    );
    try {
      const run = await directmail("review", "--base", "main", "--out", "review-8");
      expect(run.code, run.stderr).toBe(3);
      expect(run.stdout.split("\n")[0]).toBe(
        "3 campaigns of stack e2e: the change spends money or has a step that cannot be undone: it needs approval (exit code 3)",
      );
      const { markdown, json } = report("review-8");
      const entry = json.campaigns
        .find((c) => c.name === "contacts")
        ?.steps.find((s) => s.kind === "AddressBookEntry")?.resource as string;
      expect(entry).toMatch(/^contacts-address-[0-9a-f]{10}$/);
      expect(summaryRows(markdown)).toContain(
        "| **contacts** | create | +1 −0 ~0 | 1 / 0 after the change | — | ⚠ address book entry |",
      );
      const lines = markdown.split("\n");
      expect(lines).toContain(
        "- **⚠ address book entry** (1): contacts. Adds an entry to the account's address book, which the service " +
          "cannot delete: removing it from the stack only forgets it, and a changed entry is a new one beside the old.",
      );
      expect(lines).toContain(`- ⚠ address book entry: AddressBookEntry ${entry} (create)`);
      expect(await sb.control.addressBook(apiKey)).toEqual(before);
    } finally {
      fs.rmSync(path.join(t.workDir, "campaigns/contacts.yaml"));
    }
  });

  it("a handwriting font that spells a link, bold text and a mention shows in ❌ Problems as plain text", async () => {
    await git("checkout", "--", "campaigns");
    write(
      "campaigns/hostile.yaml",
      campaign("hostile", templateId, ["    inline:", INLINE[0] as string]).replace(
        `templateId: ${templateId}`,
        `templateId: ${templateId}\n    handwritingFont: ${JSON.stringify(HOSTILE_FONT)}`,
      ),
    );
    try {
      const run = await directmail("review", "--base", "main", "--out", "review-9");
      expect(run.code, run.stderr).toBe(1);
      const { markdown, json } = report("review-9");
      const message =
        "preview: the campaign files have problems; nothing was changed:\n" +
        `campaigns/hostile.yaml:8:22: spec.order.handwritingFont: "${HOSTILE_FONT}" is not a handwriting style ` +
        "of the service; choose one of the service's handwriting styles: Casual Cursive, Neat Print, Bold Marker, " +
        "Elegant Script, Quick Note";
      // review.json keeps the text as the service said it; review.md shows it as text, and nothing more.
      expect(json.problems).toEqual([message]);
      const J = "\u2060";
      const lines = markdown.split("\n");
      const problems = lines.indexOf("### ❌ Problems");
      expect(lines.slice(problems, problems + 4)).toEqual([
        "### ❌ Problems",
        "",
        "- preview: the campaign files have problems; nothing was changed:<br>campaigns/hostile.yaml:8:22: " +
          `spec.order.handwritingFont: "Neat&#93;(https:${J}//evil.example) &#42;&#42;&#91;Approve&#93;(https:${J}//evil.example)&#42;&#42; ` +
          `cc @${J}team" is not a handwriting style of the service; choose one of the service's handwriting styles: ` +
          "Casual Cursive, Neat Print, Bold Marker, Elegant Script, Quick Note",
        "",
      ]);
      expect(summaryRows(markdown)).toContain(
        "| **hostile** | create | +1 −0 ~0 | 1 / 0 after the change | — |  |",
      );
      for (const markup of ["](", "**[", "@team", "https://"]) expect(markdown).not.toContain(markup);
    } finally {
      fs.rmSync(path.join(t.workDir, "campaigns/hostile.yaml"));
    }
  });

  it("a campaign file with problems: exit code 1, the problems with file:line:col, and no preview", async () => {
    write(
      "campaigns/broken.yaml",
      campaign("broken", templateId, ["    inline: []"]).replace(
        `templateId: ${templateId}`,
        "templateId: ten",
      ),
    );
    const run = await directmail("review", "--base", "main", "--out", "review-5");
    fs.rmSync(path.join(t.workDir, "campaigns/broken.yaml"));
    expect(run.code).toBe(1);
    const { markdown, json } = report("review-5");
    expect(json.validation).toEqual([
      {
        file: "campaigns/broken.yaml",
        line: 7,
        column: 17,
        message: 'spec.order.templateId: must be a whole number; found "ten"',
      },
    ]);
    expect(markdown).toContain(
      '### Validation problems\n\n- `campaigns/broken.yaml:7:17`: spec.order.templateId: must be a whole number; found "ten"',
    );
    expect(markdown).toContain("- the preview did not run: the campaign files have problems (listed below)");
  });

  it("a preview that fails on a campaign's resource is that campaign's problem, with exit code 1", async () => {
    // Paid elsewhere (the web application, say): its recipients can no longer change.
    await sb.control.setOrderState(orders.spring as number, { apiKey, status: "Paid" });
    write("campaigns/spring.csv", HEAD_CSV);
    try {
      const run = await directmail("review", "--base", "main", "--out", "review-7");
      expect(run.code).toBe(1);
      const { json, markdown } = report("review-7");
      const springReview = json.campaigns.find((c) => c.name === "spring");
      expect(springReview?.problems).toHaveLength(1);
      expect(springReview?.problems[0]).toMatch(
        new RegExp(
          `^preview: Order ${orders.spring} is "Paid": its recipients cannot change \\(declared 4, now 5; ` +
            "added \\(customerId\\): C-1005, C-1006; changed \\(customerId\\): C-1003; removed: 1\\)",
        ),
      );
      expect(json.problems).toEqual([]);
      expect(summaryRows(markdown)[1]).toMatch(
        /^\| \*\*spring\*\* \| update \| \+2 −1 ~1 \| .* \| ❌ 1 problem \|$/,
      );
      expect(markdown).toContain(
        "- Note: the preview failed on this campaign: its action is read from its campaign files",
      );
      // A paid order has no proof to review; nor has a draft the change leaves alone: its proof is
      // the one its last review showed (a review of a few campaigns of hundreds renders a few).
      expect(fs.existsSync(path.join(t.workDir, "review-7/proofs/spring.pdf"))).toBe(false);
      expect(json.campaigns.find((c) => c.name === "autumn")?.actions).toEqual(["no change"]);
      expect(fs.existsSync(path.join(t.workDir, "review-7/proofs/autumn.pdf"))).toBe(false);
    } finally {
      await git("checkout", "--", "campaigns");
    }
  });
});

describe("directmail whoami in a Pulumi project", { timeout: 120_000 }, () => {
  it("whoami and proof use the selected stack's directmail:baseUrl and directmail:apiKey, not the environment", async () => {
    const run = await directmail("whoami");
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      `campaigns@example.com (Sandbox User, Sandbox Co) at ${sb.url}`,
      `(address from directmail:baseUrl of stack "e2e", API key from directmail:apiKey of stack "e2e")`,
      "",
    ]);
    expect(run.stdout).not.toContain(apiKey);
    const proof = await directmail("proof", String(orders.autumn), "--out", "review-proof.pdf");
    expect(proof.stdout.split("\n")).toEqual([
      expect.stringMatching(/^wrote review-proof\.pdf \(\d+ bytes\)$/),
      `(address from directmail:baseUrl of stack "e2e", API key from directmail:apiKey of stack "e2e")`,
      "",
    ]);
    expect(read("review-proof.pdf").slice(0, 5)).toBe("%PDF-");
  });

  it("falls back to the environment for what the stack does not set, and refuses a stack that does not exist", async () => {
    // Not selected: the selection stays "e2e".
    await pulumi("stack", "init", "bare", "--no-select");
    const saved = env;
    env = { ...env, DIRECTMAIL_BASE_URL: sb.url };
    try {
      const run = await directmail("whoami", "--stack", "bare");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`someone-else@example.com (Sandbox User, Sandbox Co) at ${sb.url}`);
      expect(run.stdout).toContain("(address from DIRECTMAIL_BASE_URL, API key from DIRECTMAIL_API_KEY)");
    } finally {
      env = saved;
    }
    const missing = await directmail("whoami", "--stack", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('directmail: stack "nope" does not exist in the Pulumi project');
  });
});

/*
 * A stack of the user's own is selected ("mine"): every command below names another with --stack,
 * with PULUMI_STACK naming that stack, the selected one, or unset (as a pipeline sets it to
 * --stack's value, or not); none may change the selection.
 */
describe("directmail review --stack and status --stack with another stack selected", {
  timeout: 240_000,
}, () => {
  const selected = async () => (await pulumi("stack", "--show-name")).stdout;
  const withVariable = (variable: Record<string, string>, ...args: string[]) =>
    directmailIn({ cwd: t.workDir, env: { ...env, ...variable } }, ...args);

  beforeAll(async () => {
    // The files as deployed: the change spends nothing.
    await git("checkout", "--", "campaigns");
    await pulumi("stack", "init", "mine");
    expect(await selected()).toBe("mine\n");
  }, 120_000);

  it("status --stack reads that stack and leaves the selected one selected, with or without PULUMI_STACK", async () => {
    for (const variable of [{ PULUMI_STACK: "e2e" }, { PULUMI_STACK: "mine" }, {}]) {
      const status = await withVariable(variable, "status", "--stack", "e2e", "--json");
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(`"orderId": ${orders.spring}`);
      expect(await selected()).toBe("mine\n");
    }
  });

  it("review --stack reads that stack and leaves the selected one selected; a change that spends nothing: exit code 0", async () => {
    const before = await serviceState();
    // Without PULUMI_STACK here; with it set to the reviewed stack and to the selected one in the two tests below.
    const quiet = await withVariable({}, "review", "--stack", "e2e", "--base", "main", "--out", "review-4");
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout.split("\n")[0]).toBe(
      "2 campaigns of stack e2e: the change spends nothing and has no step that cannot be undone (exit code 0)",
    );
    const { markdown, json } = report("review-4");
    expect(json).toMatchObject({ stack: "e2e", base: { ref: "main" }, exitCode: 0 });
    expect(await selected()).toBe("mine\n");
    expect(markdown).toContain(
      "**✅ This change spends nothing and has no step that cannot be undone** (exit code 0).",
    );
    expect(summaryRows(markdown)).toEqual([
      "| **autumn** | no change | +0 −0 ~0 | 2 / 0 after the change; now 2 / 0 | — |  |",
      "| **spring** | no change | +0 −0 ~0 | 3 / 1 (unchanged since dropped 1) after the change; now 3 / 1 (DO_NOT_MAIL 1) | — |  |",
    ]);
    expect(markdown).not.toContain("Needs approval");
    expect(await serviceState()).toEqual(before);
  });

  /**
   * A new stack of the project with these settings (not selected), reviewed with the working tree's
   * campaigns and PULUMI_STACK set to `variable`; the selection stays "mine".
   */
  async function reviewNewStack(name: string, baseUrl: string, key: string, variable: string) {
    await pulumi("stack", "init", name, "--no-select");
    await pulumi(
      "config",
      "set-all",
      "--stack",
      name,
      "--plaintext",
      `directmail:baseUrl=${baseUrl}`,
      "--secret",
      `directmail:apiKey=${key}`,
      "--plaintext",
      "campaignsDir=campaigns",
    );
    const run = await withVariable(
      { PULUMI_STACK: variable },
      "review",
      "--stack",
      name,
      "--out",
      `review-${name}`,
    );
    const json = report(`review-${name}`).json;
    expect(json).toMatchObject({ stack: name, base: null });
    expect(await selected()).toBe("mine\n");
    return { run, json };
  }

  it("review --stack of a new stack with a wrong API key (PULUMI_STACK names it): exit code 1 and the problem names directmail:apiKey and the command that sets it", async () => {
    const { run, json } = await reviewNewStack("wrongkey", sb.url, "sbx_wrong_key", "wrongkey");
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.split("\n")[0]).toBe(
      "2 campaigns of stack wrongkey: the change has problems (exit code 1)",
    );
    expect([...json.problems, ...json.campaigns.flatMap((c) => c.problems)]).toEqual([
      "preview: GET /v1/me → 401 UNAUTHENTICATED: the API key is missing or invalid (GET /v1/me confirms a key). " +
        `The service at ${sb.url} refused the API key; the key came from directmail:apiKey of stack "wrongkey": ` +
        "set the right one with `pulumi config set --secret directmail:apiKey <key> --stack wrongkey`, then run the command again.",
    ]);
  });

  it("review --stack of a new stack whose service does not answer (PULUMI_STACK names the selected one): exit code 1 and the problem names the service and how to start it", async () => {
    const server = net.createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    const { run, json } = await reviewNewStack("silent", url, apiKey, "mine");
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.split("\n")[0]).toBe(
      "2 campaigns of stack silent: the change has problems (exit code 1)",
    );
    expect([...json.problems, ...json.campaigns.flatMap((c) => c.problems)]).toEqual([
      `preview: GET /v1/me: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}). ` +
        `Nothing answers at ${url} (directmail:baseUrl): start the local sandbox with \`npx directmail sandbox --port ${port}\`, ` +
        "then run the command again.",
    ]);
  });
});
