/**
 * Cross-account probe: for every operation of the endpoint table, account B aims it at each object
 * of account A (orders in several statuses and the template, recipients, the automation, the
 * conversion), and the same request at an id that never existed. A probe leaks when B's request
 * succeeds or when its answer differs from the one for the nonexistent id (status, error code,
 * messages, payload), so that B could tell that A's object exists. Afterwards A's orders,
 * recipients, ledger, address book, automation and conversion are exactly as before.
 *
 * The operations come from `operations`; each needs a sample request in `SAMPLES`, which the
 * compiler requires for every operation id, so a new endpoint is probed as soon as it is added.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type EndpointDef,
  fillPath,
  type IdKind,
  type OperationId,
  operations,
} from "../../provider/api/endpoints";
import { CHECKOUT, newAccount, newOrder } from "../sandbox/fixtures";
import { type Api, type HttpResult, recipient } from "../sandbox/http";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recordFigures } from "./support/figures";

/** An id no object of any kind has. */
const NONE = 987_654_321;

interface Ids {
  /** An order, a recipient, a template: A's (probe) or nonexistent (baseline). */
  order: number;
  recipient: number;
  template: number;
}

interface Sample {
  query?: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /**
   * What B's request names of A's: the path `{id}` (default when the path has one), ids in the body
   * or query, or nothing (a listing, or a create naming nothing of A's: checked by what B sees and
   * by A's state afterwards).
   */
  names?: "body-or-query" | "nothing";
}

const SAMPLES: Record<OperationId, Sample> = {
  me: { names: "nothing" },
  createOrder: { names: "body-or-query", body: (i) => ({ templateId: i.template }) },
  listOrders: { names: "body-or-query", query: (i) => `?id=${i.order}&showRecipients=true` },
  deleteOrder: {},
  appendRecipients: { body: () => ({ recipients: [recipient({ firstName: "Probe" })] }) },
  listRecipients: {},
  deleteRecipients: { body: (i) => ({ recipientIds: [i.recipient] }) },
  previewCheckout: {},
  checkout: { body: () => CHECKOUT },
  getProof: {},
  getRecipientProof: {},
  getAnalytics: { names: "body-or-query", query: (i) => `?id=${i.order}` },
  getTransactions: { names: "body-or-query", query: (i) => `?id=${i.order}` },
  listIntegrationOrders: { names: "nothing" },
  addIntegrationRecipient: {
    body: () => ({
      firstName: "Probe",
      lastName: "B",
      address1: "1 Oak Ave",
      city: "Springfield",
      state: "IL",
      zipCode: "62701",
    }),
  },
  requestProximityMailing: {
    body: () => ({
      Name: "probe",
      Addresses: [{ address1: "1 Oak Ave", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 1 }],
    }),
  },
  recordQrScan: {
    names: "body-or-query",
    body: (i) => ({ orderId: i.order, statisticName: 1, statisticValue: "1", orderRecipientId: i.recipient }),
  },
  submitConversions: {
    names: "nothing",
    body: () => [
      {
        firstName: "Probe",
        primaryAddress: { address1: "1 Oak Ave", city: "X", state: "IL", zipCode: "62701" },
      },
    ],
  },
  deleteConversion: {},
  getConversionStatus: {},
  createAddressBookEntry: { names: "nothing", body: () => addressBookEntry("ProbeB") },
  createAddressBookEntryLegacy: { names: "nothing", body: () => addressBookEntry("ProbeB") },
  listTemplates: { names: "nothing" },
  listFonts: { names: "nothing" },
  getDeliveryStatus: { query: () => "?firstName=R1&lastName=Test" },
};

function addressBookEntry(lastName: string) {
  return {
    firstName: "Ada",
    lastName,
    toOrganization: "",
    address1: "12 Oak Avenue",
    address2: "",
    city: "Springfield",
    state: "IL",
    zip: "62701",
    phoneNumber: null,
  };
}

let sb: TestSandbox;
let a: Awaited<ReturnType<typeof newAccount>>;
let b: Awaited<ReturnType<typeof newAccount>>;
/** A's objects by what a path `{id}` names. */
const objects: Record<IdKind, { label: string; id: number }[]> = {
  order: [],
  "integration order": [],
  conversion: [],
};
let aRecipients: number[] = [];
let bOrder: number;
let before: unknown;

/** Everything of A that a probe could change. */
async function snapshotOfA() {
  return {
    orders: (await a.c.get("/v1/order?showRecipients=true&pageSize=1000")).json.payload,
    ledger: await sb.control.ledger(a.apiKey),
    addressBook: await sb.control.addressBook(a.apiKey),
    automation: await sb.control.integrationRecipients(a.apiKey, objects["integration order"][0]?.id ?? 0),
    conversions: await Promise.all(
      objects.conversion.map(async (c) => (await a.c.get(`/v1/conversions/${c.id}/status`)).json.payload),
    ),
    templates: (await a.c.get("/v1/templates")).json.payload,
  };
}

beforeAll(async () => {
  // Speed 0: the clock moves only when the test advances it, so A's snapshot cannot drift.
  sb = await startTestSandbox({ speed: 0 });
  a = await newAccount(sb, { balance: 1000 });
  b = await newAccount(sb, { balance: 1000 });
  const order = async (label: string, n: number) => {
    const id = await newOrder(a, n);
    objects.order.push({ label, id });
    return id;
  };
  await order("Draft with recipients", 3);
  await order("Draft without recipients", 0);
  const settled = await order("Ready For Production", 2);
  expect((await a.c.post(`/v1/order/${settled}/checkout`, CHECKOUT)).status).toBe(200);
  await sb.control.advanceClock(5);
  const pending = await order("Payment Needed", 2);
  expect((await a.c.post(`/v1/order/${pending}/checkout`, CHECKOUT)).status).toBe(200);
  const edits = await order("Edits Needed", 1);
  await sb.control.setOrderState(edits, { apiKey: a.apiKey, status: "Edits Needed" });
  objects.order.push({ label: "template", id: a.qrTemplateId });
  const statuses = (await a.c.get("/v1/order")).json.payload.orders.map((o: any) => o.orderStatus);
  expect(new Set(statuses)).toEqual(
    new Set(["Draft", "Ready For Production", "Payment Needed", "Edits Needed"]),
  );
  for (const { id } of objects.order.slice(0, 1))
    aRecipients = (await a.c.get(`/v1/order/${id}/recipients`)).json.payload.recipients.map((r: any) => r.id);

  const { id: automation } = await sb.control.createIntegrationOrder({
    apiKey: a.apiKey,
    name: "A's automation",
    templateId: a.templateId,
  });
  objects["integration order"].push({ label: "automation", id: automation });
  const conversion = await a.c.post("/v1/conversions", SAMPLES.submitConversions.body?.(ids(NONE)));
  objects.conversion.push({ label: "conversion", id: conversion.json.metadata.conversionId });
  expect((await a.c.post("/v1/address-book", addressBookEntry("OwnerA"))).status).toBe(200);
  await sb.control.uploadFont(a.apiKey, "A's own hand");
  bOrder = await newOrder(b, 2);
  before = await snapshotOfA();
});
afterAll(() => sb.close());

function ids(id: number, recipientId = id): Ids {
  return { order: id, recipient: recipientId, template: id };
}

async function send(c: Api, def: EndpointDef, pathId: number | undefined, i: Ids): Promise<HttpResult> {
  const sample = SAMPLES[def.operationId as OperationId];
  const params: Record<string, number> = {};
  if (pathId !== undefined) params.id = pathId;
  if (def.path.includes("{recipient}")) params.recipient = i.recipient;
  const path = fillPath(def.path, params) + (sample.query?.(i) ?? "");
  const body = sample.body?.(i);
  const call = { GET: c.get, POST: c.post, PUT: c.put, DELETE: c.del }[def.method];
  return call(path, body);
}

/** The answer with B's profile removed and the probed ids written `{id}`. */
function normalized(r: HttpResult, probedIds: number[]): string {
  const { profile: _b, ...rest } = r.json ?? {};
  let text = JSON.stringify({ status: r.status, type: r.headers.get("content-type"), body: rest });
  for (const id of probedIds) text = text.replace(new RegExp(`\\b${id}\\b`, "g"), "{id}");
  return text;
}

interface Probe {
  operation: string;
  target: string;
  theirs: HttpResult;
  none: HttpResult;
  probedIds: number[];
}

function leaks(p: Probe): boolean {
  if (p.theirs.status >= 200 && p.theirs.status < 300 && !(p.none.status >= 200 && p.none.status < 300))
    return true;
  return normalized(p.theirs, p.probedIds) !== normalized(p.none, [NONE]);
}

test("account B can neither reach nor detect any object of account A, through any operation", async () => {
  expect(Object.keys(SAMPLES).sort()).toEqual(operations.map((d) => d.operationId).sort());
  const probes: Probe[] = [];
  const seen: string[] = [];
  for (const def of operations) {
    const sample = SAMPLES[def.operationId as OperationId];
    const label = `${def.method} ${def.path}`;
    if (def.idKind) {
      for (const target of objects[def.idKind]) {
        // A recipient id in the path or body is A's too (the first recipient of A's first order).
        const r = aRecipients[0] as number;
        probes.push({
          operation: label,
          target: `A's ${target.label} ${target.id}`,
          theirs: await send(b.c, def, target.id, ids(target.id, r)),
          none: await send(b.c, def, NONE, ids(NONE)),
          probedIds: [target.id, r],
        });
      }
      // B's own order with A's recipient in it: as if the recipient did not exist.
      if (
        def.idKind === "order" &&
        (def.path.includes("{recipient}") || def.operationId === "deleteRecipients")
      ) {
        for (const r of aRecipients) {
          probes.push({
            operation: label,
            target: `B's order ${bOrder}, A's recipient ${r}`,
            theirs: await send(b.c, def, bOrder, ids(bOrder, r)),
            none: await send(b.c, def, bOrder, ids(bOrder, NONE)),
            probedIds: [r],
          });
        }
      }
    } else if (sample.names === "body-or-query") {
      const targets =
        def.operationId === "createOrder"
          ? [a.templateId, a.qrTemplateId].map((id) => ({ label: "template", id }))
          : objects.order;
      for (const target of targets) {
        probes.push({
          operation: label,
          target: `A's ${target.label} ${target.id}`,
          theirs: await send(b.c, def, undefined, ids(target.id, aRecipients[0])),
          none: await send(b.c, def, undefined, ids(NONE)),
          probedIds: [target.id, aRecipients[0] as number],
        });
      }
      // A QR scan naming B's own order and A's recipient.
      if (def.operationId === "recordQrScan") {
        probes.push({
          operation: label,
          target: `B's order ${bOrder}, A's recipient ${aRecipients[0]}`,
          theirs: await send(b.c, def, undefined, { ...ids(bOrder, aRecipients[0]) }),
          none: await send(b.c, def, undefined, ids(bOrder, NONE)),
          probedIds: [aRecipients[0] as number],
        });
      }
    } else {
      // Names nothing of A's: what B sees holds nothing of A's (ids, names, email, font).
      const r = await send(b.c, def, undefined, ids(NONE));
      const text = r.bytes.toString("utf8");
      const aIds = [
        ...Object.values(objects)
          .flat()
          .map((o) => o.id),
        a.templateId,
        ...aRecipients,
      ];
      const found = [
        ...aIds.filter((id) =>
          new RegExp(`"(id|orderId|templateId|integrationOrderId)":${id}\\b`).test(text),
        ),
        ...["A's own hand", "OwnerA", a.apiKey].filter((s) => text.includes(s)),
      ];
      probes.push({
        operation: label,
        target: "B's own listing or create",
        theirs: r,
        none: r,
        probedIds: [],
      });
      if (found.length > 0) seen.push(`${label}: B sees ${found.join(", ")}`);
    }
  }

  const leaked = probes
    .filter(leaks)
    .map(
      (p) =>
        `${p.operation} on ${p.target}: ${normalized(p.theirs, p.probedIds)} vs ${normalized(p.none, [NONE])}`,
    )
    .concat(seen);
  recordFigures("crossAccount", { crossAccountProbes: probes.length, crossAccountLeaks: leaked.length });
  expect(leaked).toEqual([]);
  // Every operation was probed, each probe got an answer, and B's listings and creates worked.
  expect(new Set(probes.map((p) => p.operation)).size).toBe(operations.length);
  expect(probes.length).toBeGreaterThan(operations.length * 2);

  expect(await snapshotOfA()).toEqual(before);
});
