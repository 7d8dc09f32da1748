/**
 * Conversions, AutomationRecipients and ProximitySearch under the real pulumi CLI against the
 * sandbox: create, a no-change preview, an incremental change, refresh after a change made
 * elsewhere, destroy; the service's refusals (422 with their reason codes, per recipient; per-record
 * conversion problems) and a tier without the features (403). Every step is checked at the service
 * (its listings), not only in the stack's outputs. One stack serves the whole file, and one pulumi
 * command serves the resources together wherever they do not get in each other's way: each
 * command costs the engine's floor.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { NotFoundError } from "../../provider/api/errors";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { PROXIMITY_SEARCH as SEARCH } from "./support/campaign";
import { destroyOnce, previewOnce, refreshOnce, stateOutputs, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";

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
/** Sets configuration values, each as JSON, in the stack's Pulumi.e2e.yaml (no CLI start). */
const setJson = (values: Record<string, unknown>) =>
  writePlainConfig(
    t,
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, JSON.stringify(value)])),
  );
const up = () => run((onOutput) => upOnce(t, { onOutput }));
/** An up that goes on after a resource fails, so that every resource's refusal is shown. */
const upEach = () => run((onOutput) => upOnce(t, { onOutput, continueOnError: true }));
const preview = () => run((onOutput) => previewOnce(t, { onOutput }));
const exists = async (conversionId: number) =>
  client.getConversionStatus(conversionId).then(
    () => true,
    (error) => {
      if (error instanceof NotFoundError) return false;
      throw error;
    },
  );
const uploads = async (): Promise<{ conversionId: number; records: number; status: string }[]> =>
  (stateOutputs(t).conversionUploads?.value ?? []) as never;
/** The lines of the stack's diagnostics that start with `[directmail] <subject>:`, in order. */
const said = (output: string, subject: string) =>
  (diagnostics(output)[STACK] ?? []).filter((line) => line.startsWith(`[directmail] ${subject}:`));
/** A resource's outputs as the stack's state holds them (refresh updates them, not the stack outputs). */
const stateOf = async (name: string): Promise<Record<string, any>> => {
  const deployment = t.readStateFile().checkpoint.checkpoint.latest;
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

/**
 * The automation as the incremental change declares it: new recipients 5 and 6, 2 and 3 declared
 * before (3 with another return name), and 4 with a ZIP code the service refuses.
 */
const changedAutomation = () => ({
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
}, 240_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("Conversions, AutomationRecipients and ProximitySearch under the real pulumi CLI", {
  timeout: 240_000,
}, () => {
  let firstUpload: number;
  const io = () => `[directmail] Integration order ${automationId}:`;

  it("create uploads the records and mails each recipient once; each refusal is reported per record and per recipient", async () => {
    sales(ROWS);
    await sb.control.addDoNotMail({
      apiKey,
      address1: "104 Oak Ave",
      city: "Springfield",
      state: "IL",
      zip: "62704",
    });
    setJson({
      conversions: { file: "sales.csv", keyField: "uniqueId", deleteWaitSeconds: 20 },
      automation: {
        integrationOrderId: automationId,
        keyField: "customerId",
        maxNew: 5,
        recipients: [
          person(1),
          person(2),
          person(3, { returnFirstName: "Shop" }),
          person(4, { zipCode: "00000" }),
        ],
      },
    });
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
    expect(said(output, `Integration order ${automationId}`)).toEqual([
      `${io()} 4 recipients to mail (cannot be recalled)`,
      `${io()} recipients row 2 (key "P-2") refused: DO_NOT_MAIL: 104 OAK AVE, SPRINGFIELD, IL 62704-4294 is on the account's do-not-mail list`,
      `${io()} recipients row 3 (key "P-3") refused: RETURN_NAME_PARTIAL: returnLastName: returnFirstName and returnLastName are given together`,
      `${io()} recipients row 4 (key "P-4") refused: ADDRESS_NOT_VALID: address is not valid: zipCode: ZIP code 00000 does not exist`,
      `${io()} 1 recipient mailed, 3 refused`,
    ]);
    // At the service: one upload (of the two valid records), one recipient queued.
    expect(await client.getConversionStatus(firstUpload)).toMatchObject({
      id: firstUpload,
      pendingDeletion: false,
    });
    expect((await queued()).map((r) => r.lastName)).toEqual(["Number1"]);
    expect(stateOutputs(t).mailed?.value).toBe(1);
  });

  it("a preview with nothing changed changes nothing and says nothing", async () => {
    const { output, failed } = await preview();
    expect(failed, output).toBe(false);
    expect(diagnostics(output)).toEqual({});
    expect(output).toMatch(/Resources:\n\s+3 unchanged\n/);
    expect(await queued()).toHaveLength(1);
  });

  it("an incremental change: the upload holding a changed record is deleted (waited for) and its records sent again; only new recipients are mailed, a removed one is forgotten", async () => {
    sales([
      ROWS[0]?.replace("120.00", "150.00") as string,
      ROWS[1] as string,
      ROWS[2] as string,
      "C-4,Edsger,Dijkstra,18 Main St,Springfield,IL,62701,30.00,",
    ]);
    setJson({
      automation: changedAutomation(),
    });
    // One `pulumi up` that prints its preview first: the plan is what it printed before updating.
    const { output: printed, failed } = await run((onOutput) => upOnce(t, { onOutput, preview: true }));
    expect(failed, printed).toBe(false);
    const updating = printed.indexOf("\nUpdating (e2e):\n");
    expect(updating, printed).toBeGreaterThan(0);
    const plan = { output: printed.slice(0, updating + 1) };
    const output = printed.slice(updating);
    const conversionPlan =
      "[directmail] Conversions: 1 added, 0 removed, 1 changed: 1 upload deleted, 3 records uploaded";
    const automationPlan = `${io()} 2 recipients to mail (cannot be recalled); 1 recipient removed from the list is forgotten (mailed pieces cannot be recalled; nothing is sent to the service)`;
    expect(said(plan.output, "Conversions")).toEqual([conversionPlan]);
    expect(said(plan.output, `Integration order ${automationId}`)).toEqual([automationPlan]);

    expect(said(output, "Conversions")).toEqual([
      conversionPlan,
      `[directmail] Conversions: deleting 1 upload (${firstUpload}); waiting up to 20 s for the service`,
      `[directmail] Conversions: upload ${firstUpload} deleted (1 of 1)`,
      expect.stringMatching(/^\[directmail\] Conversions: upload 1 of 1 \(id \d+\): 3 accepted, 0 refused$/),
    ]);
    expect(said(output, `Integration order ${automationId}`)).toEqual([
      automationPlan,
      `${io()} 2 recipients mailed, 0 refused`,
    ]);
    const after = await uploads();
    expect(after).toEqual([
      { conversionId: expect.any(Number), status: "Processing", matched: false, records: 3 },
    ]);
    expect(await exists(firstUpload)).toBe(false);
    expect(await exists(after[0]?.conversionId as number)).toBe(true);
    expect((await queued()).map((r) => r.lastName)).toEqual(["Number1", "Number5", "Number6"]);
  });

  it("refused at preview, nothing sent: a plan over maxNew; a proximity search that breaks the spec's rules, each naming its field", async () => {
    setJson({
      automation: {
        integrationOrderId: automationId,
        keyField: "customerId",
        maxNew: 1,
        recipients: [person(5), person(6), person(7), person(8)],
      },
    });
    const guarded = await preview();
    expect(guarded.failed).toBe(true);
    expect(diagnostics(guarded.output)[resource("AutomationRecipients", "welcome")]).toEqual([
      `error: Integration order ${automationId}: this change would mail 2 new recipients, more than maxNew 1; nothing was ` +
        "mailed. Raise maxNew if that many are intended, or declare fewer recipients.",
    ]);

    // One refusal at a time: the engine stops a preview at the first resource that fails.
    writePlainConfig(t, { automation: undefined });
    setJson({
      search: {
        ...SEARCH,
        integrationOrderId: automationId,
        returnLastName: undefined,
        returnAddress1: undefined,
        yearBuiltFilter: { min: 2000, max: 1990 },
      },
    });
    const { output, failed } = await preview();
    expect(failed).toBe(true);
    const problem =
      "error: pulumi-nodejs:dynamic/directmail:ProximitySearch resource 'around-store' has a problem:";
    expect(diagnostics(output)[resource("ProximitySearch", "around-store")]).toEqual([
      `${problem} yearBuiltFilter.max: min must not exceed max`,
      `${problem} returnLastName: returnFirstName and returnLastName are given together`,
      `${problem} returnAddress1: returnAddress1 is required when any other return address field is given`,
    ]);
    expect(await queued()).toHaveLength(3);
  });

  it("refresh after an upload was deleted elsewhere forgets it; the next up uploads its records again and sends the search once; refresh follows the discovery", async () => {
    setJson({
      automation: changedAutomation(),
      search: { ...SEARCH, integrationOrderId: automationId },
    });
    const [current] = await uploads();
    const id = current?.conversionId as number;
    await client.deleteConversion(id);
    await sb.control.advanceClock(10);
    expect(await exists(id)).toBe(false);
    const refreshed = await run((onOutput) => refreshOnce(t, { onOutput }));
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
    expect(said(output, `Integration order ${automationId}`)).toEqual([
      `${io()} proximity search "Around the store" accepted; the service discovers addresses and mails them (\`pulumi refresh\` shows when it is complete)`,
    ]);
    expect(stateOutputs(t).searchStatus?.value).toBe("Processing");

    await sb.control.advanceClock(10);
    const followed = await run((onOutput) => refreshOnce(t, { onOutput }));
    expect(followed.failed, followed.output).toBe(false);
    expect(await stateOf("around-store")).toMatchObject({ searchStatus: "Complete", recipientCount: 5 });
    expect((await queued()).filter((r) => r.source !== "api")).toHaveLength(2);
  });

  it("a proximity search that ran cannot change: the plan is refused, naming what changed", async () => {
    setJson({
      search: {
        ...SEARCH,
        integrationOrderId: automationId,
        addresses: [{ ...SEARCH.addresses[0], desiredCount: 5 }],
      },
    });
    const changed = await preview();
    expect(changed.failed).toBe(true);
    expect(diagnostics(changed.output)[resource("ProximitySearch", "around-store")]).toEqual([
      expect.stringMatching(
        /^error: Proximity search "Around the store" of integration order \d+ ran at the service on \S+: it cannot change \(addresses\), as a search is paid and its pieces are mailed\. Put the previous values back; for another search, declare a new ProximitySearch \(another resource name\)\.$/,
      ),
    ]);
  });

  it("a tier without automations and conversions (403): each resource's change is refused with what was not done and what to do", async () => {
    await sb.control.updateAccount({ apiKey, tier: "basic" });
    writePlainConfig(t, { search: undefined });
    sales([...ROWS, "C-5,Barbara,Liskov,20 Main St,Springfield,IL,62701,10.00,"]);
    setJson({
      automation: {
        integrationOrderId: automationId,
        keyField: "customerId",
        maxNew: 2,
        recipients: [person(5), person(6), person(7)],
      },
    });
    const before = await queued();
    const { output, failed } = await upEach();
    await sb.control.updateAccount({ apiKey, tier: "pro" });
    expect(failed).toBe(true);
    const d = diagnostics(output);
    expect(d[resource("AutomationRecipients", "welcome")]).toEqual([
      `error: Integration order ${automationId}: the account's subscription tier does not include automations (the service answered 403); nothing was mailed. Upgrade the account's plan, or remove this resource from the program.`,
    ]);
    expect(d[resource("Conversions", "sales")]).toEqual([
      "error: Conversions: the account's subscription tier does not include conversions (the service answered 403); nothing was changed. Upgrade the account's plan, or remove this resource from the program.",
    ]);
    expect(await queued()).toEqual(before);
  });

  it("destroy deletes the conversion uploads (waiting for the service) and forgets the mailed recipients, which stay queued", async () => {
    const ids = (await stateOf("sales")).uploads.map((u: { conversionId: number }) => u.conversionId);
    expect(ids.length).toBeGreaterThan(0);
    const mailedBefore = await queued();
    const { output, failed } = await run((onOutput) => destroyOnce(t, { onOutput }));
    expect(failed, output).toBe(false);
    expect(output).toContain(`[directmail] Conversions: upload ${ids[0]} deleted (1 of 1)`);
    expect(output).toContain(
      `${io()} 2 mailed recipients leave this stack; mailed pieces cannot be recalled, and nothing is sent to the service`,
    );
    for (const id of ids) expect(await exists(id)).toBe(false);
    expect(await queued()).toEqual(mailedBefore);
  });
});
