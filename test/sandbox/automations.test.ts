import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  IntegrationOrderListResponse,
  IntegrationOrderResponse,
  IntegrationRecipientResult,
} from "../../provider/api/schemas";
import { DEFAULT_TIMINGS } from "../../sandbox/assumptions";
import { ApiError } from "../../sandbox/domain/errors";
import { Sandbox } from "../../sandbox/sandbox";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, expectError, newAccount, newOrder, parsed } from "./fixtures";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

const person = (overrides: Record<string, unknown> = {}) => ({
  firstName: "Ann",
  lastName: "Lee",
  address1: "10 Maple Street",
  city: "Springfield",
  state: "IL",
  zipCode: "62701",
  ...overrides,
});

async function automation(
  a: Account,
  options: { required?: string[]; status?: "Active" | "Paused"; noTemplate?: boolean } = {},
) {
  const { id: templateId } = await sb.control.createTemplate({
    apiKey: a.apiKey,
    name: "Auto card",
    requiredMergeFields: options.required ?? [],
  });
  const { id } = await sb.control.createIntegrationOrder({
    apiKey: a.apiKey,
    name: "Welcome series",
    templateId: options.noTemplate ? undefined : templateId,
    status: options.status,
  });
  return { id, templateId };
}

async function rejected(a: Account, id: number, body: unknown, reasonCode: string) {
  const r = await a.c.post(`/v1/integration-orders/${id}/recipients`, body);
  const { errors, json } = expectError(r, 422, reasonCode);
  const payload = IntegrationRecipientResult.parse(json.payload);
  expect(payload).toMatchObject({ success: false, reasonCode, integrationOrderId: id });
  expect(errors).toBe(payload.errorMessage);
  return payload;
}

describe("GET /v1/integration-orders (entry 14)", () => {
  test("lists the account's automations with status, postage type and template", async () => {
    const a = await newAccount(sb);
    const { id, templateId } = await automation(a);
    const { id: paused } = await sb.control.createIntegrationOrder({
      apiKey: a.apiKey,
      name: "Paused one",
      status: "Paused",
      postageType: null,
    });
    const list = parsed(IntegrationOrderListResponse, await a.c.get("/v1/integration-orders")).payload;
    expect(list).toEqual([
      expect.objectContaining({
        id,
        name: "Welcome series",
        integrationOrderStatus: "Active",
        postageType: "Standard",
        templateId,
      }),
      expect.objectContaining({
        id: paused,
        integrationOrderStatus: "Paused",
        postageType: null,
        templateId: null,
      }),
    ]);
  });
});

describe("POST /v1/integration-orders/{id}/recipients (entry 15)", () => {
  test("validates, standardizes and queues the recipient; 200 with the integration order", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const r = parsed(
      IntegrationOrderResponse,
      await a.c.post(`/v1/integration-orders/${id}/recipients`, person()),
    );
    expect(r.payload.id).toBe(id);
    const queued = (await sb.control.integrationRecipients(a.apiKey, id)).recipients;
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      address1: "10 MAPLE ST",
      city: "SPRINGFIELD",
      state: "IL",
      zipCode: "62701",
      dpvConfirmationCode: "Y",
    });
  });

  test("ORDER_NOT_AVAILABLE when the automation is not Active", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a, { status: "Paused" });
    await rejected(a, id, person(), "ORDER_NOT_AVAILABLE");
  });

  test("ORDER_TEMPLATE_MISSING when no template is configured", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a, { noTemplate: true });
    await rejected(a, id, person(), "ORDER_TEMPLATE_MISSING");
  });

  test("return-address rules: RETURN_NAME_PARTIAL, RETURN_ADDRESS_PARTIAL, RETURN_ADDRESS_MISSING_FIELDS", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const full = {
      returnFirstName: "Bo",
      returnLastName: "Shop",
      returnAddress1: "1 Shop St",
      returnCity: "Springfield",
      returnState: "IL",
      returnZip: "62701",
    };
    await rejected(a, id, person({ ...full, returnLastName: undefined }), "RETURN_NAME_PARTIAL");
    await rejected(a, id, person({ returnOrganization: "Bo's" }), "RETURN_ADDRESS_PARTIAL");
    const missing = await rejected(
      a,
      id,
      person({ returnAddress1: "1 Shop St", returnCity: "Springfield" }),
      "RETURN_ADDRESS_MISSING_FIELDS",
    );
    expect(missing.errorMessage).toMatch(/returnState, returnZip/);
    expect((await a.c.post(`/v1/integration-orders/${id}/recipients`, person(full))).status).toBe(200);
  });

  test("MISSING_MAIL_MERGE_FIELDS when the template needs a merge field the recipient lacks", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a, { required: ["custom1"] });
    const payload = await rejected(a, id, person(), "MISSING_MAIL_MERGE_FIELDS");
    expect(payload.errorMessage).toMatch(/custom1/);
    expect(
      (await a.c.post(`/v1/integration-orders/${id}/recipients`, person({ custom1: "VIP" }))).status,
    ).toBe(200);
  });

  test("ADDRESS_NOT_VALID with the address problems", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const payload = await rejected(a, id, person({ address1: "Maple Street" }), "ADDRESS_NOT_VALID");
    expect(payload.recipientDetails).toEqual({
      firstName: "Ann",
      lastName: "Lee",
      processedAddress: "",
      addressValidated: false,
    });
  });

  test("DO_NOT_MAIL for an address on the account's list", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "10 Maple St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const payload = await rejected(a, id, person(), "DO_NOT_MAIL");
    expect(payload.recipientDetails.addressValidated).toBe(true);
    expect(payload.recipientDetails.processedAddress).toMatch(/^10 MAPLE ST, SPRINGFIELD, IL 62701-\d{4}$/);
  });

  test("DUPLICATE_RECIPIENT when the same person at the same address is already queued", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    expect((await a.c.post(`/v1/integration-orders/${id}/recipients`, person())).status).toBe(200);
    await rejected(a, id, person({ address1: "10 maple st." }), "DUPLICATE_RECIPIENT");
    expect(
      (await a.c.post(`/v1/integration-orders/${id}/recipients`, person({ firstName: "Other" }))).status,
    ).toBe(200);
    expect((await sb.control.integrationRecipients(a.apiKey, id)).recipients).toHaveLength(2);
  });

  test("standardizes by position: a suffix word inside the street name is kept", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const add = (address1: string, address2?: string) =>
      a.c.post(`/v1/integration-orders/${id}/recipients`, person({ address1, address2 }));
    expect((await add("58 Gull Point Road")).status).toBe(200);
    expect((await add("9 North Road")).status).toBe(200);
    expect((await add("5 Suite Street Apartment 4")).status).toBe(200);
    expect((await add("100 Main Street North", "Suite 2")).status).toBe(200);
    const queued = (await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[];
    expect(queued.map((q) => [q.address1, q.address2 ?? null])).toEqual([
      ["58 GULL POINT RD", null],
      ["9 NORTH RD", null],
      ["5 SUITE ST APT 4", null],
      ["100 MAIN ST N", "STE 2"],
    ]);
    // The same address written another way is the same recipient.
    await rejected(a, id, person({ address1: "58 gull point rd." }), "DUPLICATE_RECIPIENT");
  });

  test("a malformed body is 400 naming the field; an unknown automation is 404", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const { errors } = expectError(
      await a.c.post(`/v1/integration-orders/${id}/recipients`, person({ birthDay: "not a date" })),
      400,
    );
    expect(errors).toMatch(/^birthDay: /);
    expectError(await a.c.post("/v1/integration-orders/999999/recipients", person()), 404, "NOT_FOUND");
  });
});

describe("POST /v1/integration-orders/{id}-by-proximity (entry 16)", () => {
  const request = (overrides: Record<string, unknown> = {}) => ({
    Name: "Around the store",
    OwnerOrRenterFilter: 1,
    PropertyTypeFilter: 2,
    HouseHoldIncomeFilter: { min: 40000, max: 90000 },
    Addresses: [
      {
        address1: "100 Market Street",
        address2: "",
        city: "Springfield",
        state: "IL",
        zip: "62701",
        DesiredCount: 5,
      },
    ],
    MultiUse: false,
    ...overrides,
  });

  test("accepted at once; discovery is asynchronous and queues DesiredCount neighbours with the return address", async () => {
    const a = await newAccount(sb);
    const { id, templateId } = await automation(a);
    const body = request({
      ReturnFirstName: "Bo",
      ReturnLastName: "Shop",
      ReturnAddress1: "1 Shop St",
      ReturnCity: "Springfield",
      ReturnState: "IL",
      ReturnZip: "62701",
    });
    const r = await a.c.post(`/v1/integration-orders/${id}-by-proximity`, body);
    expect(parsed(IntegrationOrderResponse, r).payload.id).toBe(id);
    expect(r.json.warnings.join(" ")).toMatch(/asynchronous/);
    expect((await sb.control.integrationRecipients(a.apiKey, id)).recipients).toHaveLength(0);
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const found = (await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[];
    expect(found.map((f) => f.address1)).toEqual([
      "102 MARKET ST",
      "104 MARKET ST",
      "106 MARKET ST",
      "108 MARKET ST",
      "110 MARKET ST",
    ]);
    expect(
      found.every(
        (f) =>
          f.returnLastName === "Shop" &&
          f.returnAddress1 === "1 Shop St" &&
          f.radiusPinAddress === "100 MARKET ST",
      ),
    ).toBe(true);
    // A proximity request is a paid recipient search of the automation's template order.
    expectError(await a.c.del(`/v1/order/${templateId}`), 400);
  });

  test("without MultiUse, addresses already queued are skipped; with MultiUse they are used again", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const two = {
      Addresses: [
        { address1: "100 Market St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 2 },
      ],
    };
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request(two));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request(two));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const afterSecond = ((await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[]).map(
      (f) => f.address1,
    );
    expect(afterSecond).toEqual(["102 MARKET ST", "104 MARKET ST", "106 MARKET ST", "108 MARKET ST"]);
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request({ ...two, MultiUse: true }));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const afterThird = ((await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[]).map(
      (f) => f.address1,
    );
    expect(afterThird.slice(4)).toEqual(["102 MARKET ST", "104 MARKET ST"]);
  });

  test("a recipient discovery queued, added again through the recipients endpoint, is DUPLICATE_RECIPIENT", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const one = {
      Addresses: [
        { address1: "100 Market St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 1 },
      ],
    };
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request(one));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const [found] = (await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[];
    expect(found).toMatchObject({ firstName: "Current", address1: "102 MARKET ST" });
    expect(found.lastName).toMatch(/^Resident \d+$/);
    const again = person({ firstName: "current", lastName: found.lastName, address1: "102 Market Street" });
    const payload = await rejected(a, id, again, "DUPLICATE_RECIPIENT");
    expect(payload.recipientDetails.processedAddress).toMatch(/^102 MARKET ST, SPRINGFIELD, IL 62701-\d{4}$/);
    // Someone else at that address is another recipient.
    expect(
      (await a.c.post(`/v1/integration-orders/${id}/recipients`, person({ address1: "102 Market St" })))
        .status,
    ).toBe(200);
    expect((await sb.control.integrationRecipients(a.apiKey, id)).recipients).toHaveLength(2);
  });

  test("without MultiUse, discovery skips an address the recipients endpoint queued; with MultiUse it uses it", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    expect(
      (await a.c.post(`/v1/integration-orders/${id}/recipients`, person({ address1: "102 Market Street" })))
        .status,
    ).toBe(200);
    const two = {
      Addresses: [
        { address1: "100 Market St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 2 },
      ],
    };
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request(two));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const addresses = async () =>
      ((await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[]).map((f) => f.address1);
    expect(await addresses()).toEqual(["102 MARKET ST", "104 MARKET ST", "106 MARKET ST"]);
    await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request({ ...two, MultiUse: true }));
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    expect((await addresses()).slice(3)).toEqual(["102 MARKET ST", "104 MARKET ST"]);
  });

  test("discovery keeps the street name of the centre: the neighbours of 58 Gull Point Road are on GULL POINT RD", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    await a.c.post(
      `/v1/integration-orders/${id}-by-proximity`,
      request({
        Addresses: [
          { address1: "58 Gull Point Road", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 2 },
        ],
      }),
    );
    await sb.control.advanceClock(DEFAULT_TIMINGS.proximitySeconds);
    const found = (await sb.control.integrationRecipients(a.apiKey, id)).recipients as any[];
    expect(found.map((f) => [f.address1, f.radiusPinAddress])).toEqual([
      ["60 GULL POINT RD", "58 GULL POINT RD"],
      ["62 GULL POINT RD", "58 GULL POINT RD"],
    ]);
  });

  test("return-address rules are 400 with the rule's reason code, naming the field", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ReturnFirstName: "Bo" }, "RETURN_NAME_PARTIAL", /^ReturnLastName: /],
      [{ ReturnCity: "Springfield" }, "RETURN_ADDRESS_PARTIAL", /^ReturnAddress1: /],
      [
        { ReturnAddress1: "1 Shop St", ReturnCity: "Springfield" },
        "RETURN_ADDRESS_MISSING_FIELDS",
        /^ReturnState, ReturnZip: /,
      ],
    ];
    for (const [fields, code, message] of cases) {
      const { errors } = expectError(
        await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request(fields)),
        400,
        code,
      );
      expect(errors).toMatch(message);
    }
    await sb.control.advanceClock(60);
    expect((await sb.control.integrationRecipients(a.apiKey, id)).recipients).toHaveLength(0);
  });

  test("bad filters and addresses are 400 naming the field", async () => {
    const a = await newAccount(sb);
    const { id } = await automation(a);
    const range = expectError(
      await a.c.post(
        `/v1/integration-orders/${id}-by-proximity`,
        request({ YearBuiltFilter: { min: 2000, max: 1990 } }),
      ),
      400,
    );
    expect(range.errors).toMatch(/^YearBuiltFilter\.max: /);
    const none = expectError(
      await a.c.post(`/v1/integration-orders/${id}-by-proximity`, request({ Addresses: [] })),
      400,
    );
    expect(none.errors).toMatch(/^Addresses: /);
    const invalid = expectError(
      await a.c.post(
        `/v1/integration-orders/${id}-by-proximity`,
        request({ Addresses: [{ address1: "Market", city: "X", state: "ZZ", zip: "1", DesiredCount: 1 }] }),
      ),
      400,
      "ADDRESS_NOT_VALID",
    );
    expect(invalid.errors).toMatch(/^Addresses\[0\]\.address1: /m);
  });

  test("a Paused automation or one without a template does not accept proximity requests", async () => {
    const a = await newAccount(sb);
    expectError(
      await a.c.post(
        `/v1/integration-orders/${(await automation(a, { status: "Paused" })).id}-by-proximity`,
        request(),
      ),
      400,
      "ORDER_NOT_AVAILABLE",
    );
    expectError(
      await a.c.post(
        `/v1/integration-orders/${(await automation(a, { noTemplate: true })).id}-by-proximity`,
        request(),
      ),
      400,
      "ORDER_TEMPLATE_MISSING",
    );
  });

  test("an order used as an automation's template keeps the order listing unchanged", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    await sb.control.createIntegrationOrder({ apiKey: a.apiKey, name: "uses order", templateId: orderId });
    expect((await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders[0].orderStatus).toBe("Draft");
  });
});

describe("the queue of an automation, in the domain (docs/sandbox.md, Integration orders)", () => {
  /** The recipients endpoint, a discovery run to its end, and the queue of automation `id`. */
  function queue(sandbox: Sandbox, accountId: number, id: number) {
    const add = (recipient: Record<string, string>) =>
      sandbox.automations.addRecipient(accountId, id, {
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
        ...recipient,
      });
    const discover = (address1: string, DesiredCount: number, MultiUse = false) => {
      sandbox.automations.requestProximity(accountId, id, {
        Name: "Around",
        Addresses: [{ address1, city: "Springfield", state: "IL", zip: "62701", DesiredCount }],
        MultiUse,
        returnAddress: {},
        filters: {},
      });
      sandbox.clock.advance(DEFAULT_TIMINGS.proximitySeconds);
      sandbox.scheduler.tick();
    };
    const queued = () => sandbox.automations.recipients(accountId, id) as Record<string, any>[];
    return { add, discover, queued };
  }

  /** A sandbox without HTTP, an account, and an Active automation with a template. */
  function domain(storage = ":memory:") {
    const sandbox = new Sandbox({ storage, requestLog: false, log: () => {} });
    const { account } = sandbox.accounts.create({ email: "queue@sandbox.test" });
    const template = sandbox.templates.create(account.id, {
      name: "Auto card",
      product: "Handwritten Postcard",
    });
    const { id } = sandbox.automations.create(account.id, { name: "Welcome", templateId: template.id });
    return { sandbox, accountId: account.id, id, ...queue(sandbox, account.id, id) };
  }

  /** The reason code `fn` is rejected with, or undefined when it is accepted. */
  const reasonOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ApiError) return error.errorCode;
      throw error;
    }
    return undefined;
  };

  test("a recipient discovery queued is a duplicate for the recipients endpoint, by name and address", () => {
    const { sandbox, add, discover, queued } = domain();
    try {
      discover("100 Market Street", 1);
      const [found] = queued();
      expect(found).toMatchObject({ firstName: "Current", address1: "102 MARKET ST" });
      const again = { firstName: "CURRENT", lastName: ` ${found?.lastName} `, address1: "102 market st." };
      expect(reasonOf(() => add(again))).toBe("DUPLICATE_RECIPIENT");
      expect(reasonOf(() => add({ ...again, address2: "Apt 1" }))).toBeUndefined();
      expect(queued()).toHaveLength(2);
    } finally {
      sandbox.close();
    }
  });

  test("without MultiUse, discovery skips the addresses the recipients endpoint queued, under any name", () => {
    const { sandbox, add, discover, queued } = domain();
    try {
      add({ firstName: "Ann", lastName: "Lee", address1: "102 Market Street" });
      add({ firstName: "Bo", lastName: "Ng", address1: "106 market st" });
      discover("100 Market St", 3);
      expect(queued().map((q) => q.address1)).toEqual([
        "102 MARKET ST",
        "106 MARKET ST",
        "104 MARKET ST",
        "108 MARKET ST",
        "110 MARKET ST",
      ]);
      // An address with a unit is another address.
      add({ firstName: "Cy", lastName: "Oh", address1: "112 Market St", address2: "Apt 2" });
      discover("110 Market St", 1);
      expect(queued().at(-1)).toMatchObject({ address1: "112 MARKET ST", firstName: "Current" });
      discover("100 Market St", 1, true);
      expect(queued().at(-1)).toMatchObject({ address1: "102 MARKET ST", firstName: "Current" });
    } finally {
      sandbox.close();
    }
  });

  test("a file of the earlier layout (no address key, discovery keyed without names) is keyed again when opened", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sandbox-queue-"));
    const file = path.join(dir, "sandbox.db");
    try {
      const first = domain(file);
      first.discover("100 Market St", 1);
      const [found] = first.queued();
      first.sandbox.close();
      // Back to the earlier layout: no address_key column, discovery's rows keyed with blank names.
      const db = new DatabaseSync(file);
      db.exec("DROP INDEX integration_recipients_address");
      db.exec("ALTER TABLE integration_recipients DROP COLUMN address_key");
      db.exec(
        "UPDATE integration_recipients SET dedupe_key = '|||102 MARKET ST||SPRINGFIELD|IL|62701' WHERE source LIKE 'proximity:%'",
      );
      db.close();

      const sandbox = new Sandbox({ storage: file, requestLog: false, log: () => {} });
      try {
        const { add, discover, queued } = queue(sandbox, first.accountId, first.id);
        const again = { firstName: "Current", lastName: String(found?.lastName), address1: "102 Market St" };
        expect(reasonOf(() => add(again))).toBe("DUPLICATE_RECIPIENT");
        expect(
          reasonOf(() => add({ firstName: "Ann", lastName: "Lee", address1: "104 Market St" })),
        ).toBeUndefined();
        discover("100 Market St", 1);
        expect(queued().map((q) => q.address1)).toEqual(["102 MARKET ST", "104 MARKET ST", "106 MARKET ST"]);
      } finally {
        sandbox.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
