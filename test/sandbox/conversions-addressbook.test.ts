import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  AddressBookResponse,
  ConversionBatchResponse,
  ConversionDeleteResponse,
  ConversionStatusResponse,
} from "../../provider/api/schemas";
import { DEFAULT_TIMINGS } from "../../sandbox/assumptions";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { CHECKOUT, expectError, newAccount, newOrder, parsed } from "./fixtures";
import { http, recipient } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

const conversion = (i: number, overrides: Record<string, unknown> = {}) => ({
  firstName: `C${i}`,
  lastName: "Buyer",
  primaryAddress: {
    address1: `${i} Oak Avenue`,
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
    country: "US",
  },
  primaryEmail: `c${i}@shop.test`,
  revenue: "19.99",
  type: "Conversion",
  eventDate: "2026-11-01T10:00:00Z",
  ...overrides,
});

describe("POST /v1/conversions (entry 18)", () => {
  test("echoes the array; valid records are processed even when others are invalid; errors name record and field", async () => {
    const a = await newAccount(sb);
    const batch = [
      conversion(1),
      conversion(2, { primaryEmail: "not-an-email" }),
      conversion(3, { eventDate: "yesterday" }),
    ];
    const r = await a.c.post("/v1/conversions", batch);
    expect(r.status).toBe(200);
    expect(r.json.payload).toEqual(batch);
    // The echo is the array as sent, invalid records included (ConversionEcho).
    const body = parsed(ConversionBatchResponse, r);
    expect(body.hasErrors).toBe(true);
    expect(body.errors).toEqual([
      expect.stringMatching(/^\[1\]\.primaryEmail: /),
      expect.stringMatching(/^\[2\]\.eventDate: /),
    ]);
    expect(body.hasWarnings).toBe(true);
    expect(body.metadata).toMatchObject({ acceptedRecords: 1, rejectedRecords: 2 });
    const id = body.metadata?.conversionId as number;
    const status = parsed(ConversionStatusResponse, await a.c.get(`/v1/conversions/${id}/status`)).payload;
    expect(status).toMatchObject({
      id,
      status: "Processing",
      dataSourceType: "Api",
      matched: false,
      pendingDeletion: false,
    });
    const stored = sb.sandbox.store.get<{ record_count: number }>(
      "SELECT record_count FROM conversions WHERE id = ?",
      id,
    );
    expect(stored?.record_count).toBe(1);
  });

  test("more than 5,000 records are rejected whole with 400 and none is processed; 5,000 pass", async () => {
    const a = await newAccount(sb);
    const count = () => sb.sandbox.store.get<{ n: number }>("SELECT count(*) AS n FROM conversions")?.n ?? 0;
    const before = count();
    const big = Array.from({ length: 5001 }, (_, i) => conversion(i));
    const { errors } = expectError(await a.c.post("/v1/conversions", big), 400, "TOO_MANY_RECORDS");
    expect(errors).toMatch(/5001 records; at most 5000/);
    expect(count()).toBe(before);
    const ok = parsed(ConversionBatchResponse, await a.c.post("/v1/conversions", big.slice(0, 5000)));
    expect(ok.metadata).toMatchObject({ acceptedRecords: 5000 });
    expect(count()).toBe(before + 1);
  });

  test("a batch with no valid record, an empty batch or a non-array body is 400", async () => {
    const a = await newAccount(sb);
    expectError(await a.c.post("/v1/conversions", [conversion(1, { primaryEmail: "x" })]), 400);
    expectError(await a.c.post("/v1/conversions", []), 400);
    expectError(await a.c.post("/v1/conversions", conversion(1)), 400);
  });

  test("matching: Matched when a record's address was mailed by the account, Unmatched otherwise", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 0);
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [recipient({ address1: "7 Oak Avenue" })],
    });
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.advanceClock(3 + 3600 + 3 * 86400);
    const hit = (await a.c.post("/v1/conversions", [conversion(7)])).json.metadata.conversionId;
    const miss = (await a.c.post("/v1/conversions", [conversion(8)])).json.metadata.conversionId;
    await sb.control.advanceClock(DEFAULT_TIMINGS.conversionMatchSeconds);
    expect(
      parsed(ConversionStatusResponse, await a.c.get(`/v1/conversions/${hit}/status`)).payload,
    ).toMatchObject({ status: "Matched", matched: true });
    expect(
      parsed(ConversionStatusResponse, await a.c.get(`/v1/conversions/${miss}/status`)).payload,
    ).toMatchObject({ status: "Unmatched", matched: false });
  });
});

describe("DELETE /v1/conversions/{id} and status (entries 19, 20)", () => {
  test("marks for deletion (a string payload), pending until it completes asynchronously, then 404", async () => {
    const a = await newAccount(sb);
    const id = (await a.c.post("/v1/conversions", [conversion(1)])).json.metadata.conversionId;
    const r = parsed(ConversionDeleteResponse, await a.c.del(`/v1/conversions/${id}`));
    expect(r.payload).toMatch(/marked for deletion/);
    expect(
      parsed(ConversionStatusResponse, await a.c.get(`/v1/conversions/${id}/status`)).payload,
    ).toMatchObject({ status: "PendingDeletion", pendingDeletion: true });
    const again = expectError(await a.c.del(`/v1/conversions/${id}`), 400, "CONVERSION_NOT_DELETABLE_STATUS");
    expect(again.errors).toMatch(/already pending deletion/);
    await sb.control.advanceClock(DEFAULT_TIMINGS.conversionDeleteSeconds);
    expectError(await a.c.get(`/v1/conversions/${id}/status`), 404, "NOT_FOUND");
    expectError(await a.c.del(`/v1/conversions/${id}`), 404, "NOT_FOUND");
  });

  test("an unknown conversion id is 404", async () => {
    const a = await newAccount(sb);
    expectError(await a.c.get("/v1/conversions/123456/status"), 404, "NOT_FOUND");
  });
});

describe("address book (entries 21, 22)", () => {
  const entry = (overrides: Record<string, unknown> = {}) => ({
    firstName: "Ida",
    lastName: "Wells",
    toOrganization: "",
    address1: "300 west washington street",
    address2: "suite 5",
    city: "chicago",
    state: "illinois",
    zip: "60606",
    phoneNumber: null,
    ...overrides,
  });

  test.each(["/v1/address-book", "/v1/legacyActions/address-book"])(
    "%s validates, standardizes and saves; payload {id}, no errorCode or errorDetails",
    async (path) => {
      const a = await newAccount(sb);
      const r = await a.c.post(path, entry());
      const body = parsed(AddressBookResponse, r);
      expect(body.payload.id).toBeGreaterThan(0);
      expect("errorCode" in r.json).toBe(false);
      expect("errorDetails" in r.json).toBe(false);
      const saved = (await sb.control.addressBook(a.apiKey)).entries;
      expect(saved).toEqual([
        expect.objectContaining({
          id: body.payload.id,
          address1: "300 W WASHINGTON ST",
          address2: "STE 5",
          city: "CHICAGO",
          state: "IL",
          zip: "60606",
        }),
      ]);
    },
  );

  test("both paths behave identically, including on errors", async () => {
    const a = await newAccount(sb);
    for (const path of ["/v1/address-book", "/v1/legacyActions/address-book"]) {
      const missing = expectError(await a.c.post(path, { firstName: "x" }), 400);
      expect(missing.errors).toMatch(/^lastName: /m);
      expect(missing.errors).toMatch(/^phoneNumber: /m);
      const invalid = expectError(await a.c.post(path, entry({ zip: "1" })), 400, "ADDRESS_NOT_VALID");
      expect(invalid.errors).toMatch(/^zip: /m);
    }
    expect((await sb.control.addressBook(a.apiKey)).entries).toEqual([]);
  });

  test("401 for a missing key", async () => {
    expectError(await http(sb.url, "POST", "/v1/address-book", { body: entry() }), 401, "UNAUTHENTICATED");
  });
});
