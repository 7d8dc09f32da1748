import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, CHECKOUT, newAccount, newOrder } from "./fixtures";
import { type HttpResult, recipient } from "./http";

let sb: TestSandbox;
let owner: Account;
let other: Account;
let ids: { order: number; recipient: number; conversion: number; automation: number; template: number };

beforeAll(async () => {
  sb = await startTestSandbox();
  owner = await newAccount(sb);
  other = await newAccount(sb);
  const order = await newOrder(owner, 2);
  const recipient = (await owner.c.get(`/v1/order/${order}/recipients`)).json.payload.recipients[0].id;
  const conversion = (
    await owner.c.post("/v1/conversions", [
      { firstName: "A", primaryAddress: { address1: "1 Oak Ave", city: "X", state: "IL", zipCode: "62701" } },
    ])
  ).json.metadata.conversionId;
  const { id: automation } = await sb.control.createIntegrationOrder({
    apiKey: owner.apiKey,
    name: "a",
    templateId: owner.templateId,
  });
  ids = { order, recipient, conversion, automation, template: owner.templateId };
});
afterAll(() => sb.close());

/** What the same request answers with a foreign id and with an id that never existed. */
async function probe(
  make: (id: number, recipient: number) => Promise<HttpResult>,
  foreign: number,
  recipient = ids.recipient,
) {
  const theirs = await make(foreign, recipient);
  const none = await make(987_654_321, 987_654_321);
  return { theirs, none };
}

describe("accounts are isolated: a foreign id answers exactly as a nonexistent one", () => {
  const cases: [string, (id: number, r: number) => Promise<HttpResult>, () => number][] = [
    ["DELETE /v1/order/{id}", (id) => other.c.del(`/v1/order/${id}`), () => ids.order],
    [
      "PUT /v1/order/{id}/recipients",
      (id) => other.c.put(`/v1/order/${id}/recipients`, { recipients: [recipient()] }),
      () => ids.order,
    ],
    ["GET /v1/order/{id}/recipients", (id) => other.c.get(`/v1/order/${id}/recipients`), () => ids.order],
    [
      "DELETE /v1/order/{id}/recipients",
      (id, r) => other.c.del(`/v1/order/${id}/recipients`, { recipientIds: [r] }),
      () => ids.order,
    ],
    ["GET /v1/order/{id}/checkout", (id) => other.c.get(`/v1/order/${id}/checkout`), () => ids.order],
    [
      "POST /v1/order/{id}/checkout",
      (id) => other.c.post(`/v1/order/${id}/checkout`, CHECKOUT),
      () => ids.order,
    ],
    ["GET /v1/order/{id}/proof", (id) => other.c.get(`/v1/order/${id}/proof`), () => ids.order],
    [
      "GET /v1/order/{id}/proof/{recipient}",
      (id, r) => other.c.get(`/v1/order/${id}/proof/${r}`),
      () => ids.order,
    ],
    [
      "GET delivery-status",
      (id) => other.c.get(`/v1/order/${id}/recipients/delivery-status?firstName=R1&lastName=Test`),
      () => ids.order,
    ],
    [
      "POST /v1/order-recipients-statistics",
      (id, r) =>
        other.c.post("/v1/order-recipients-statistics", {
          orderId: id,
          statisticName: 1,
          statisticValue: "1",
          orderRecipientId: r,
        }),
      () => ids.order,
    ],
    [
      "POST /v1/integration-orders/{id}/recipients",
      (id) =>
        other.c.post(`/v1/integration-orders/${id}/recipients`, {
          firstName: "A",
          lastName: "B",
          address1: "1 Oak Ave",
          city: "X",
          state: "IL",
          zipCode: "62701",
        }),
      () => ids.automation,
    ],
    [
      "POST /v1/integration-orders/{id}-by-proximity",
      (id) =>
        other.c.post(`/v1/integration-orders/${id}-by-proximity`, {
          Name: "n",
          Addresses: [{ address1: "1 Oak Ave", city: "X", state: "IL", zip: "62701", DesiredCount: 1 }],
        }),
      () => ids.automation,
    ],
    ["DELETE /v1/conversions/{id}", (id) => other.c.del(`/v1/conversions/${id}`), () => ids.conversion],
    [
      "GET /v1/conversions/{id}/status",
      (id) => other.c.get(`/v1/conversions/${id}/status`),
      () => ids.conversion,
    ],
  ];

  test.each(cases)("%s", async (_name, make, id) => {
    const { theirs, none } = await probe(make, id());
    expect(theirs.status).toBe(404);
    expect(theirs.status).toBe(none.status);
    expect(theirs.json.errorCode).toBe(none.json.errorCode);
    expect(theirs.json.errorCode).toBe("NOT_FOUND");
  });

  test("creating an order from a foreign template answers as for a nonexistent template", async () => {
    const theirs = await other.c.post("/v1/order", { templateId: ids.template });
    const none = await other.c.post("/v1/order", { templateId: 987_654_321 });
    expect(theirs.status).toBe(none.status);
    expect(theirs.json.errorCode).toBe(none.json.errorCode);
  });

  test("analytics and transactions report a foreign order as NotFound inside its entry, like a nonexistent one", async () => {
    for (const path of ["/v1/order/analytics", "/v1/order/transaction"]) {
      const r = await other.c.get(`${path}?id=${ids.order},987654321`);
      expect(r.status).toBe(200);
      expect(r.json.payload.orders.map((o: any) => o.status)).toEqual(["NotFound", "NotFound"]);
    }
  });

  test("listings show only the caller's own data", async () => {
    expect((await other.c.get("/v1/order")).json.payload.orders).toEqual([]);
    expect((await other.c.get(`/v1/order?id=${ids.order}`)).json.payload.orders).toEqual([]);
    expect((await other.c.get("/v1/integration-orders")).json.payload).toEqual([]);
    const templates = (await other.c.get("/v1/templates")).json.payload.map((t: any) => t.id);
    expect(templates).not.toContain(ids.template);
    await sb.control.uploadFont(owner.apiKey, "Owner's hand");
    expect((await other.c.get("/v1/fonts")).json.payload.map((f: any) => f.name)).not.toContain(
      "Owner's hand",
    );
    expect((await sb.control.ledger(other.apiKey)).entries).toEqual([]);
  });

  test("the owner's data is untouched by all the probes", async () => {
    const order = (await owner.c.get(`/v1/order?id=${ids.order}`)).json.payload.orders[0];
    expect(order).toMatchObject({ orderStatus: "Draft", recipientCount: 2 });
    expect((await owner.c.get(`/v1/conversions/${ids.conversion}/status`)).json.payload.pendingDeletion).toBe(
      false,
    );
    expect((await sb.control.integrationRecipients(owner.apiKey, ids.automation)).recipients).toEqual([]);
  });

  test("do-not-mail lists are per account", async () => {
    await sb.control.addDoNotMail({
      apiKey: other.apiKey,
      address1: "500 Elm St",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const orderId = await newOrder(owner);
    const r = await owner.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: (await owner.c.get(`/v1/order/${ids.order}/recipients`)).json.payload.recipients.map(
        (x: any) => ({
          ...x,
          id: 0,
          address: { ...x.address, address1: "500 Elm St" },
        }),
      ),
    });
    expect(r.json.payload.undeliverable.doNotMail).toBe(0);
  });
});
