/**
 * A recipient list keyed by a column under the real pulumi CLI: a changed address, name or merge
 * field of a customer (same key) shows in the preview `pulumi up` prints before it updates (one
 * command: the engine's preview, as `pulumi preview` runs it) and is applied by that `up`, alone
 * and together with rows added or removed in the same edit; after each `up` the sandbox's
 * listing equals the file. Then a recipient changed elsewhere is noticed by `pulumi refresh` and
 * put back by the next `up`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { previewOnce, refreshOnce, upOnce } from "./support/one-command";
import { createTestStack, type TestStack } from "./support/pulumi";

interface Customer {
  customerId: string;
  firstName: string;
  lastName: string;
  address1: string;
  custom1: string;
}

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
let orderId: number;

// Addresses already in the service's standard form, so the listing shows them as written.
const customer = (n: number): Customer => ({
  customerId: `C-${n}`,
  firstName: `Ada${n}`,
  lastName: "Lovelace",
  address1: `${300 + n} MAIN ST`,
  custom1: "10% OFF",
});
let file: Customer[] = [1, 2, 3, 4, 5, 6].map(customer);

function write(customers: Customer[]) {
  file = customers;
  const lines = customers.map(
    (c) => `${c.customerId},${c.firstName},${c.lastName},${c.address1},SPRINGFIELD,IL,62701,${c.custom1}`,
  );
  fs.writeFileSync(
    path.join(t.workDir, "customers.csv"),
    `customerId,firstName,lastName,address1,city,state,zipCode,custom1\n${lines.join("\n")}\n`,
  );
}

/** One customer of the file changed. */
const edit = (id: string, change: Partial<Customer>) =>
  file.map((c) => (c.customerId === id ? { ...c, ...change } : c));

/** The order's recipients as the sandbox lists them, in the file's terms, sorted. */
async function listing(): Promise<string[]> {
  const rows = [];
  for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 })) {
    const { firstName, lastName } = r.personal;
    const { address1, city, state, zipCode } = r.address;
    rows.push([firstName, lastName, address1, city, state, zipCode, r.metadata.custom1].join("|"));
  }
  return rows.sort();
}
const fileRows = () =>
  file
    .map((c) => [c.firstName, c.lastName, c.address1, "SPRINGFIELD", "IL", "62701", c.custom1].join("|"))
    .sort();

/**
 * The plan of a preview, which must be exactly one update, of the recipients; and what it printed.
 * The list's digest and counts are inputs the engine does not show (provider/resources/engine-inputs.ts):
 * the provider's "planned" line says what changes.
 */
function expectOneUpdatePlanned(plan: { changeSummary: object; stdout: string }): string {
  expect(plan.changeSummary).toEqual({ same: 2, update: 1 });
  expect(plan.stdout).toMatch(
    / ~ {2}pulumi-nodejs:dynamic\/directmail:OrderRecipients recipients update \[diff: ~file\]\n/,
  );
  return plan.stdout;
}

/**
 * `pulumi up` showing its preview first, in one command: the preview must plan exactly one update
 * (what it printed is returned), and the update applies it: the sandbox's listing equals the file.
 */
async function previewThenUp(): Promise<string> {
  const result = await upOnce(t, { preview: true });
  const updating = result.stdout.indexOf("\nUpdating (e2e):\n");
  expect(updating).toBeGreaterThan(0);
  const plan = expectOneUpdatePlanned({
    changeSummary: result.changeSummary,
    stdout: result.stdout.slice(0, updating + 1),
  });
  expect(result.summary.resourceChanges).toEqual({ same: 2, update: 1 });
  expect(await listing()).toEqual(fileRows());
  return plan;
}

const planned = (counts: string) => `[directmail] Recipients of order ${orderId}: planned: ${counts}\n`;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("campaign", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipientsFile: { value: "customers.csv" },
      keyColumn: { value: "customerId" },
    },
  });
  write(file);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("a list keyed by customerId under the real pulumi CLI", { timeout: 240_000 }, () => {
  it("up sends the file", async () => {
    const result = await upOnce(t);
    orderId = result.outputs.orderId?.value;
    expect(result.outputs.accepted?.value).toBe(6);
    expect(await listing()).toEqual(fileRows());
  });

  it.each([
    ["an address alone", () => edit("C-2", { address1: "9 ELM ST" }), "0 added, 0 removed, 1 changed"],
    [
      "an address, with a row added and one removed",
      () => [...edit("C-3", { address1: "17 OAK AVE" }).filter((c) => c.customerId !== "C-6"), customer(7)],
      "1 added, 1 removed, 1 changed",
    ],
    ["a name alone", () => edit("C-1", { firstName: "Augusta" }), "0 added, 0 removed, 1 changed"],
    [
      "a name, with a row added",
      () => [...edit("C-4", { lastName: "Byron" }), customer(8)],
      "1 added, 0 removed, 1 changed",
    ],
    ["a merge field alone", () => edit("C-5", { custom1: "20% OFF" }), "0 added, 0 removed, 1 changed"],
    [
      "a merge field, with a row removed",
      () => edit("C-2", { custom1: "FREE SHIPPING" }).filter((c) => c.customerId !== "C-7"),
      "0 added, 1 removed, 1 changed",
    ],
  ])("changing %s shows in preview and is applied by up", async (_what, change, counts) => {
    write(change());
    expect(await previewThenUp()).toContain(planned(counts));
  });

  it("refresh notices a recipient changed elsewhere, and the next up puts the file's one back", async () => {
    const [target] = (await client.listRecipients(orderId, { pageSize: 1 })).recipients;
    if (!target) throw new Error("the order has no recipients");
    // Elsewhere: deleted and added again with its identity value, at another address.
    await client.deleteRecipients(orderId, [target.id]);
    await client.appendRecipients(orderId, [
      newOrderRecipient({
        address: { ...target.address, address1: "1 ELSEWHERE RD" },
        personal: target.personal,
        metadata: { custom1: target.metadata.custom1, custom6: target.metadata.custom6 },
      }),
    ]);
    const refresh = await refreshOnce(t);
    expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await previewThenUp()).toContain(
      planned(
        "0 added, 0 removed, 0 changed, 1 whose content was not recorded (compared with the order's listing when applied)",
      ),
    );
    expect((await previewOnce(t)).changeSummary).toEqual({ same: 3 });
  });
});
