/**
 * Conversions, AutomationRecipients and ProximitySearch under the real pulumi CLI against the
 * sandbox: create, a no-change preview, an incremental change, refresh after a change made
 * elsewhere, destroy; the service's refusals (422 with their reason codes, per recipient; per-record
 * conversion problems) and a tier without the features (403). Every step is checked at the service
 * (its listings), not only in the stack's outputs. One stack serves the whole file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { NotFoundError } from "../../provider/api/errors";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const STACK = "pulumi:pulumi:Stack (services-e2e):";
const resource = (kind: string, name: string) => `pulumi-nodejs:dynamic/directmail:${kind} (${name}):`;

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
let automationId: number;

const CSV_HEADER = "uniqueId,firstName,lastName,address1,city,state,zipCode,revenue,primaryEmail";
const sales = (rows: string[]) =>
  fs.writeFileSync(path.join(t.workDir, "sales.csv"), `${[CSV_HEADER, ...rows].join("\n")}\n`);
const ROWS = [
  "C-1,Ada,Lovelace,12 Main St,Springfield,IL,62701,120.00,ada@example.com",
  "C-2,Alan,Turing,14 Main St,Springfield,IL,62701,80.00,alan@example.com",
  "C-3,Grace,Hopper,16 Main St,Springfield,IL,62701,55.00,not-an-email",
];
const setJson = (key: string, value: unknown) => t.stack.setConfig(key, { value: JSON.stringify(value) });
const up = () => run((onOutput) => t.stack.up({ onOutput }));
const preview = () => run((onOutput) => t.stack.preview({ onOutput }));
const exists = async (conversionId: number) =>
  client.getConversionStatus(conversionId).then(
    () => true,
    (error) => {
      if (error instanceof NotFoundError) return false;
      throw error;
    },
  );
const uploads = async (): Promise<{ conversionId: number; records: number; status: string }[]> =>
  ((await t.stack.outputs()).conversionUploads?.value ?? []) as never;
/** The lines of the stack's diagnostics that start with `[directmail] <subject>:`, in order. */
const said = (output: string, subject: string) =>
  (diagnostics(output)[STACK] ?? []).filter((line) => line.startsWith(`[directmail] ${subject}:`));
/** A resource's outputs as the stack's state holds them (refresh updates them, not the stack outputs). */
const stateOf = async (name: string): Promise<Record<string, any>> => {
  const { deployment } = await t.stack.exportStack();
  return deployment.resources.find((r: { urn: string }) => r.urn.endsWith(`::${name}`))?.outputs;
};
const queued = async () => (await sb.control.integrationRecipients(apiKey, automationId)).recipients;

const person = (n: number, extra: Record<string, string> = {}) => ({
  customerId: `P-${n}`,
  firstName: "Pat",
  lastName: `Number${n}`,
  address1: `${100 + 2 * n} Oak Ave`,
  city: "Springfield",
  state: "IL",
  zipCode: "62704",
  ...extra,
});

beforeAll(async () => {
  // Deletion completes a second after the request: the provider's wait is seen, and short.
  sb = await startTestSandbox({ log: () => {}, timings: { conversionDeleteSeconds: 1 } });
  ({ apiKey } = await sb.control.createAccount({ tier: "pro" }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Welcome card" });
  ({ id: automationId } = await sb.control.createIntegrationOrder({ apiKey, name: "Welcome", templateId }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("services", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
    },
  });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("Conversions under the real pulumi CLI", { timeout: 120_000 }, () => {
  let firstUpload: number;

  it("create uploads the records; the record the service refuses is reported with its row, key and field", async () => {
    sales(ROWS);
    await setJson("conversions", { file: "sales.csv", keyField: "uniqueId", deleteWaitSeconds: 20 });
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    const [upload] = await uploads();
    firstUpload = upload?.conversionId as number;
    expect(await uploads()).toEqual([
      { conversionId: firstUpload, status: "Processing", matched: false, records: 2 },
    ]);
    expect(said(output, "Conversions")).toEqual([
      "[directmail] Conversions: 3 added, 0 removed, 0 changed: 0 uploads deleted, 3 records uploaded",
      '[directmail] Conversions: sales.csv row 4 (key "C-3") refused by the service: primaryEmail: Invalid email address',
      `[directmail] Conversions: upload 1 of 1 (id ${firstUpload}): 2 accepted, 1 refused`,
    ]);
    // At the service: one upload, of the two valid records.
    expect(await client.getConversionStatus(firstUpload)).toMatchObject({
      id: firstUpload,
      pendingDeletion: false,
    });
  });

  it("a preview with nothing changed changes nothing and says nothing", async () => {
    const { output, failed } = await preview();
    expect(failed, output).toBe(false);
    expect(diagnostics(output)).toEqual({});
    expect(output).toMatch(/Resources:\n\s+2 unchanged\n/);
  });

  it("a changed and a new record: the upload holding the change is deleted (waited for) and its records sent again", async () => {
    sales([
      ROWS[0]?.replace("120.00", "150.00") as string,
      ROWS[1] as string,
      ROWS[2] as string,
      "C-4,Edsger,Dijkstra,18 Main St,Springfield,IL,62701,30.00,",
    ]);
    const plan = await preview();
    expect(said(plan.output, "Conversions")).toEqual([
      "[directmail] Conversions: 1 added, 0 removed, 1 changed: 1 upload deleted, 3 records uploaded",
    ]);
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    const after = await uploads();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ records: 3 });
    expect(after[0]?.conversionId).not.toBe(firstUpload);
    expect(output).toContain(`[directmail] Conversions: upload ${firstUpload} deleted (1 of 1)`);
    expect(await exists(firstUpload)).toBe(false);
    expect(await exists(after[0]?.conversionId as number)).toBe(true);
  });

  it("refresh after an upload was deleted elsewhere forgets it, and the next up uploads its records again", async () => {
    const [current] = await uploads();
    const id = current?.conversionId as number;
    await client.deleteConversion(id);
    await sb.control.advanceClock(10);
    expect(await exists(id)).toBe(false);
    const refreshed = await run((onOutput) => t.stack.refresh({ onOutput }));
    expect(refreshed.failed, refreshed.output).toBe(false);
    // Refresh forgets the upload, and its diff says what the next up does.
    expect(said(refreshed.output, "Conversions")).toEqual([
      `[directmail] Conversions: upload ${id} is gone at the service (deleted elsewhere); its 3 records are uploaded again by the next \`pulumi up\``,
      "[directmail] Conversions: 3 added, 0 removed, 0 changed: 0 uploads deleted, 3 records uploaded",
    ]);
    expect((await stateOf("sales")).uploads).toEqual([]);
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    expect(said(output, "Conversions")[0]).toBe(
      "[directmail] Conversions: 3 added, 0 removed, 0 changed: 0 uploads deleted, 3 records uploaded",
    );
    const [again] = await uploads();
    expect(again).toMatchObject({ records: 3 });
    expect(await exists(again?.conversionId as number)).toBe(true);
  });
});

describe("AutomationRecipients and ProximitySearch under the real pulumi CLI", { timeout: 120_000 }, () => {
  it("create mails each recipient once; each 422 is reported per recipient with its reasonCode", async () => {
    await sb.control.addDoNotMail({
      apiKey,
      address1: "104 Oak Ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    await setJson("automation", {
      integrationOrderId: automationId,
      keyField: "customerId",
      maxNew: 5,
      recipients: [
        person(1),
        person(2),
        person(3, { returnFirstName: "Shop" }),
        person(4, { zipCode: "00000" }),
      ],
    });
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    const io = `[directmail] Integration order ${automationId}:`;
    expect(said(output, `Integration order ${automationId}`)).toEqual([
      `${io} 4 recipients to mail (cannot be recalled)`,
      `${io} recipients row 2 (key "P-2") refused: DO_NOT_MAIL: 104 OAK AVE, SPRINGFIELD, IL 62704-4294 is on the account's do-not-mail list`,
      `${io} recipients row 3 (key "P-3") refused: RETURN_NAME_PARTIAL: returnLastName: returnFirstName and returnLastName are given together`,
      `${io} recipients row 4 (key "P-4") refused: ADDRESS_NOT_VALID: address is not valid: zipCode: ZIP code 00000 does not exist`,
      `${io} 1 recipient mailed, 3 refused`,
    ]);
    expect((await t.stack.outputs()).mailed?.value).toBe(1);
    const at = await queued();
    expect(at.map((r) => r.lastName)).toEqual(["Number1"]);
  });

  it("a preview with nothing changed changes nothing and says nothing; the service is unchanged", async () => {
    const { output, failed } = await preview();
    expect(failed, output).toBe(false);
    expect(diagnostics(output)).toEqual({});
    expect(output).toMatch(/Resources:\n\s+3 unchanged\n/);
    expect(await queued()).toHaveLength(1);
  });

  it("maxNew stops a plan that would mail more, at preview, and nothing is mailed", async () => {
    await setJson("automation", {
      integrationOrderId: automationId,
      keyField: "customerId",
      maxNew: 1,
      recipients: [person(1), person(5), person(6)],
    });
    const message =
      `Integration order ${automationId}: this change would mail 2 new recipients, more than maxNew 1; nothing was ` +
      "mailed. Raise maxNew if that many are intended, or declare fewer recipients.";
    const { output, failed } = await preview();
    expect(failed).toBe(true);
    expect(diagnostics(output)[resource("AutomationRecipients", "welcome")]).toEqual([`error: ${message}`]);
    expect(await queued()).toHaveLength(1);
  });

  it("an incremental change mails only the new recipients; a removed one is forgotten, with a message", async () => {
    await setJson("automation", {
      integrationOrderId: automationId,
      keyField: "customerId",
      maxNew: 2,
      recipients: [
        person(5),
        person(6),
        person(2),
        person(3, { returnFirstName: "Shop" }),
        person(4, { zipCode: "00000" }),
      ],
    });
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    const io = `[directmail] Integration order ${automationId}:`;
    expect(said(output, `Integration order ${automationId}`)).toEqual([
      `${io} 2 recipients to mail (cannot be recalled); 1 recipient removed from the list is forgotten (mailed pieces cannot be recalled; nothing is sent to the service)`,
      `${io} 2 recipients mailed, 0 refused`,
    ]);
    expect((await queued()).map((r) => r.lastName)).toEqual(["Number1", "Number5", "Number6"]);
  });

  it("a proximity search is checked before sending: each broken rule names its field", async () => {
    await setJson("search", {
      integrationOrderId: automationId,
      name: "Around the store",
      addresses: [
        { address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", desiredCount: 2 },
      ],
      returnFirstName: "Shop",
      returnCity: "Springfield",
      yearBuiltFilter: { min: 2000, max: 1990 },
    });
    const { output, failed } = await preview();
    expect(failed).toBe(true);
    expect(diagnostics(output)[resource("ProximitySearch", "around-store")]).toEqual([
      "error: pulumi-nodejs:dynamic/directmail:ProximitySearch resource 'around-store' has a problem: yearBuiltFilter.max: min must not exceed max",
      "error: pulumi-nodejs:dynamic/directmail:ProximitySearch resource 'around-store' has a problem: returnLastName: returnFirstName and returnLastName are given together",
      "error: pulumi-nodejs:dynamic/directmail:ProximitySearch resource 'around-store' has a problem: returnAddress1: returnAddress1 is required when any other return address field is given",
    ]);
  });

  it("a valid search is sent once; refresh follows the discovery to Complete, and the service queued what it found", async () => {
    await setJson("search", {
      integrationOrderId: automationId,
      name: "Around the store",
      addresses: [
        { address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", desiredCount: 2 },
      ],
      returnFirstName: "Shop",
      returnLastName: "Owner",
      returnAddress1: "1 Market St",
      returnCity: "Springfield",
      returnState: "IL",
      returnZip: "62701",
    });
    const { output, failed } = await up();
    expect(failed, output).toBe(false);
    expect((await t.stack.outputs()).searchStatus?.value).toBe("Processing");
    await sb.control.advanceClock(10);
    const refreshed = await run((onOutput) => t.stack.refresh({ onOutput }));
    expect(refreshed.failed, refreshed.output).toBe(false);
    expect(await stateOf("around-store")).toMatchObject({ searchStatus: "Complete", recipientCount: 5 });
    expect((await queued()).filter((r) => r.source !== "api")).toHaveLength(2);
    // Create-only: a changed search is refused, naming what changed.
    await setJson("search", {
      integrationOrderId: automationId,
      name: "Around the store",
      addresses: [
        { address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", desiredCount: 5 },
      ],
      returnFirstName: "Shop",
      returnLastName: "Owner",
      returnAddress1: "1 Market St",
      returnCity: "Springfield",
      returnState: "IL",
      returnZip: "62701",
    });
    const changed = await preview();
    expect(changed.failed).toBe(true);
    expect(diagnostics(changed.output)[resource("ProximitySearch", "around-store")]?.[0]).toMatch(
      /^error: Proximity search "Around the store" of integration order \d+ ran at the service on \S+: it cannot change \(addresses\), as a search is paid and its pieces are mailed\. Put the previous values back; for another search, declare a new ProximitySearch \(another resource name\)\.$/,
    );
  });
});

describe("a tier without automations and conversions (403)", { timeout: 120_000 }, () => {
  it("each resource's change is refused with what was not done and what to do; nothing changes at the service", async () => {
    await sb.control.updateAccount({ apiKey, tier: "basic" });
    await t.stack.removeConfig("search");
    sales([...ROWS, "C-5,Barbara,Liskov,20 Main St,Springfield,IL,62701,10.00,"]);
    await setJson("automation", {
      integrationOrderId: automationId,
      keyField: "customerId",
      maxNew: 2,
      recipients: [person(5), person(6), person(7)],
    });
    const before = await sb.control.integrationRecipients(apiKey, automationId).catch(() => undefined);
    const { output, failed } = await up();
    expect(failed).toBe(true);
    const d = diagnostics(output);
    expect(d[resource("AutomationRecipients", "welcome")]).toEqual([
      `error: Integration order ${automationId}: the account's subscription tier does not include automations (the service answered 403); nothing was mailed. Upgrade the account's plan, or remove this resource from the program.`,
    ]);
    expect(d[resource("Conversions", "sales")]).toEqual([
      "error: Conversions: the account's subscription tier does not include conversions (the service answered 403); nothing was changed. Upgrade the account's plan, or remove this resource from the program.",
    ]);
    await sb.control.updateAccount({ apiKey, tier: "pro" });
    expect(await sb.control.integrationRecipients(apiKey, automationId)).toEqual(before);
  });
});

describe("destroy", { timeout: 120_000 }, () => {
  it("deletes the conversion uploads (waiting for the service) and forgets the mailed recipients, which stay queued", async () => {
    const ids = (await uploads()).map((u) => u.conversionId);
    expect(ids.length).toBeGreaterThan(0);
    const mailedBefore = await queued();
    const { output, failed } = await run((onOutput) => t.stack.destroy({ onOutput }));
    expect(failed, output).toBe(false);
    expect(output).toContain(`[directmail] Conversions: upload ${ids[0]} deleted (1 of 1)`);
    expect(output).toContain(
      `[directmail] Integration order ${automationId}: 2 mailed recipients leave this stack; mailed pieces cannot be recalled, and nothing is sent to the service`,
    );
    for (const id of ids) expect(await exists(id)).toBe(false);
    expect(await queued()).toEqual(mailedBefore);
  });
});
