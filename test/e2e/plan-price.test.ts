/**
 * Review in the plan, under the real pulumi CLI and the project's own program: `pulumi preview` of
 * a campaign repository shows the exact price of a checkout to be added to an existing draft, fails
 * above maxTotal (so the guard fires in the pull request), says that a new campaign's price is known
 * once its draft is applied, and names the recipients a CSV edit adds and changes by their key,
 * never by a name or an address. No preview changes anything at the sandbox.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { upOnce } from "./support/one-command";
import { diagnostics, shownElsewhere } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const repoRoot = path.resolve(__dirname, "../..");
const CHECKOUT = "pulumi-nodejs:dynamic/directmail:Checkout (spring-checkout):";
/** Where the engine lists what the provider printed, once, after the plan. */
const STACK = "pulumi:pulumi:Stack (directmail-campaigns-e2e):";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let orderId: number;
/** The sandbox right after the draft was applied. */
let afterDraft: Awaited<ReturnType<typeof sandboxState>>;

interface Customer {
  customerId: string;
  firstName: string;
  lastName: string;
  address1: string;
}
const customer = (n: number): Customer => ({
  customerId: `C-${n}`,
  firstName: `Grace${n}`,
  lastName: "Hopper",
  address1: `${400 + n} Compiler Way`,
});
const initial = [1, 2, 3, 4, 5, 6].map(customer);

function writeCsv(customers: Customer[]) {
  const lines = customers.map(
    (c) => `${c.customerId},${c.firstName},${c.lastName},${c.address1},Austin,TX,78701`,
  );
  fs.writeFileSync(
    path.join(t.workDir, "campaigns", "spring.csv"),
    `customerId,firstName,lastName,address1,city,state,zipCode\n${lines.join("\n")}\n`,
  );
}

/** The campaign file; `checkout` adds a checkout section with these extra fields. */
function writeCampaign(checkout?: Record<string, string | number | boolean>) {
  const lines = [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    "  name: spring",
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    "    file: spring.csv",
    "    keyColumn: customerId",
  ];
  if (checkout) {
    lines.push("  checkout:", "    postageType: Standard", "    productionSpeed: Normal");
    for (const [key, value] of Object.entries(checkout)) lines.push(`    ${key}: ${value}`);
  }
  fs.writeFileSync(path.join(t.workDir, "campaigns", "spring.yaml"), `${lines.join("\n")}\n`);
}

/** Everything of the account at the sandbox that a preview must leave alone. */
async function sandboxState() {
  const orders = [];
  for await (const order of client.iterateOrders()) {
    const recipients = [];
    for await (const r of client.iterateRecipients(order.orderId, { pageSize: 1000 })) recipients.push(r);
    orders.push({ order, recipients });
  }
  return { orders, ledger: await sb.control.ledger(apiKey) };
}

/** `pulumi preview`: what it printed and whether it failed; the sandbox must be as it was. */
async function preview(): Promise<{ output: string; failed: boolean }> {
  const before = await sandboxState();
  let output = "";
  let failed = false;
  try {
    await t.stack.preview({ onOutput: (text) => (output += text) });
  } catch {
    failed = true;
  }
  expect(await sandboxState()).toEqual(before);
  return { output, failed };
}

const said = (subject: string, line: string) => `[directmail] ${subject}: ${line}`;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 5 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
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
  writeCsv(initial);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("price and recipient changes in `pulumi preview`", { timeout: 240_000 }, () => {
  it("a first preview of a campaign with a checkout says the price is known once the draft is applied", async () => {
    writeCampaign({ maxTotal: 100 });
    const { output, failed } = await preview();
    expect(failed).toBe(false);
    expect(diagnostics(output)[STACK]).toEqual([
      said(
        "Checkout of a new order",
        "no price yet, as the order does not exist. Draft first: apply the campaign without checkout, then add " +
          "checkout in a second change, whose plan shows the exact price and enforces maxTotal (docs/review.md)",
      ),
    ]);
    expect(output).toContain("+  pulumi-nodejs:dynamic/directmail:Checkout spring-checkout create");
  });

  it("the draft is applied; nothing is charged", async () => {
    writeCampaign();
    const up = await upOnce(t);
    orderId = up.outputs.spring?.value.orderId;
    expect(up.outputs.spring?.value).toMatchObject({ orderStatus: "Draft", accepted: 6 });
    afterDraft = await sandboxState();
    expect(afterDraft.ledger.entries.filter((e) => e.kind === "charge")).toEqual([]);
  });

  it("a CSV edit shows the counts and the keys of the recipients added and changed, and no name or address", async () => {
    const edited = [
      ...initial
        .filter((c) => c.customerId !== "C-6")
        .map((c) => (c.customerId === "C-2" ? { ...c, address1: "9 Harbor Rd" } : c)),
      customer(7),
      customer(8),
    ];
    writeCsv(edited);
    const { output, failed } = await preview();
    expect(failed).toBe(false);
    const recipients = `Recipients of order ${orderId}`;
    const listLines = [
      said(recipients, "planned: 2 added, 1 removed, 1 changed"),
      said(recipients, "added (customerId): C-7, C-8"),
      said(recipients, "changed (customerId): C-2"),
      said(recipients, "removed: 1, not named: the stack records a hash of each customerId, not its value"),
    ];
    expect(diagnostics(output)[STACK]).toEqual(listLines);
    expect(output).toContain("~  pulumi-nodejs:dynamic/directmail:OrderRecipients spring-recipients update");
    for (const c of [...initial, ...edited]) {
      for (const text of [c.firstName, c.lastName, c.address1, "Austin", "78701"])
        expect(output).not.toContain(text);
    }

    // With a checkout added in the same change, the price of the list about to be replaced is not given.
    writeCampaign({ maxTotal: 1 });
    const both = await preview();
    expect(both.failed).toBe(false);
    expect(diagnostics(both.output)[STACK]).toEqual([
      ...listLines,
      said(
        `Checkout of order ${orderId}`,
        "no price yet: this plan changes the order's recipients (7 declared), and the service prices the list it " +
          "holds. maxTotal is enforced when the change is applied, before anything is charged; to see the exact " +
          "price in a plan, apply the recipient change first, then add the checkout",
      ),
    ]);
    writeCsv(initial);
  });

  it("adding a checkout to the draft shows its exact price, and passes within maxTotal", async () => {
    writeCampaign({ maxTotal: 100 });
    const { output, failed } = await preview();
    expect(failed).toBe(false);
    // 6 recipients at 2.50 (a handwritten postcard, Standard postage, Normal speed); a balance of 5.00.
    expect(diagnostics(output)[STACK]).toEqual([
      said(
        `Checkout of order ${orderId}`,
        "price 15.00 USD for 6 recipients (Standard postage, Normal production); the balance covers 5.00 USD, " +
          "the payment method is charged 10.00 USD; within maxTotal 100.00 USD",
      ),
    ]);
    expect(output).toContain("+  pulumi-nodejs:dynamic/directmail:Checkout spring-checkout create");
  });

  it("a checkout above maxTotal fails the preview, once, under the Checkout, with what to do", async () => {
    writeCampaign({ maxTotal: 14.99 });
    const { output, failed } = await preview();
    expect(failed).toBe(true);
    const message =
      `Checkout of order ${orderId} would charge 15.00 USD, more than maxTotal 14.99 USD; nothing was charged. ` +
      "Raise maxTotal if that price is intended, or lower the price: fewer recipients, Standard postage or Normal " +
      "production.";
    expect(diagnostics(output)[CHECKOUT]).toEqual([`error: ${message}`]);
    expect(shownElsewhere(output, "spring-checkout", message)).toEqual([]);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain(repoRoot);
  });

  it("a checkout with autoBill false that the balance cannot pay fails the preview, with what to do", async () => {
    writeCampaign({ maxTotal: 100, autoBill: false });
    const { output, failed } = await preview();
    expect(failed).toBe(true);
    expect(diagnostics(output)[CHECKOUT]).toEqual([
      `error: Checkout of order ${orderId} has autoBill false, and the account's balance does not cover the price ` +
        "(the service: autoBill is false and the available balance 5.00 does not cover the order total 15.00); " +
        "nothing was charged. Add funds to the account, or set autoBill to true so that the payment method pays " +
        "what the balance does not cover.",
    ]);
  });

  it("after all these previews the sandbox is as the draft left it: the same orders, recipients and ledger", async () => {
    expect(await client.getOrder(orderId)).toMatchObject({ orderStatus: "Draft", recipientCount: 6 });
    expect(await sandboxState()).toEqual(afterDraft);
  });
});
