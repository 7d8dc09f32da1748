import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ErrorEnvelope, MeResponse, Profile } from "../../provider/api/schemas";
import { successEnvelope } from "../support/envelope";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { expectError, newAccount, newOrder, parsed } from "./fixtures";
import { api, http } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe("authentication (spec: Authentication 1, 5-8)", () => {
  test("GET /v1/me returns the key owner's profile in the envelope", async () => {
    const { apiKey, profile } = await sb.control.createAccount({ email: "me@shop.test" });
    const r = await http(sb.url, "GET", "/v1/me", { apiKey });
    expect(r.status).toBe(200);
    const body = parsed(MeResponse, r);
    expect(body.payload).toEqual(profile);
    expect(body.profile).toEqual(profile);
    expect(body.payload.email).toBe("me@shop.test");
    expect(body.hasErrors).toBe(false);
    expect(body.errors).toEqual([]);
    expect(Profile.safeParse(body.payload).success).toBe(true);
  });

  test("GET /v1/me answered again (its text written once per profile) is the same bytes, type and envelope", async () => {
    const { apiKey, profile } = await sb.control.createAccount({ email: "again@shop.test" });
    const first = await http(sb.url, "GET", "/v1/me", { apiKey });
    // A change to the account through the control API: its key's account is read again.
    await sb.control.updateAccount({ apiKey, tier: "basic" });
    const second = await http(sb.url, "GET", "/v1/me", { apiKey });
    for (const r of [first, second]) {
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(r.headers.get("date")).toMatch(
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      );
      expect(parsed(MeResponse, r)).toEqual(successEnvelope(profile, profile));
    }
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });

  test("a missing key is 401 with errorCode UNAUTHENTICATED", async () => {
    const r = await http(sb.url, "GET", "/v1/me");
    expectError(r, 401, "UNAUTHENTICATED");
    expect(r.json.profile).toBeNull();
  });

  test("an invalid key is 401 with errorCode UNAUTHENTICATED", async () => {
    expectError(await http(sb.url, "GET", "/v1/me", { apiKey: "sbx_not_a_key" }), 401, "UNAUTHENTICATED");
  });

  test("every endpoint requires the key (401 before anything else, even for a nonexistent id)", async () => {
    const paths: [string, string][] = [
      ["GET", "/v1/me"],
      ["POST", "/v1/order"],
      ["GET", "/v1/order"],
      ["DELETE", "/v1/order/1"],
      ["PUT", "/v1/order/1/recipients"],
      ["PUT", "/v1/order/1/recipients:append"],
      ["GET", "/v1/order/1/recipients"],
      ["DELETE", "/v1/order/1/recipients"],
      ["GET", "/v1/order/1/checkout"],
      ["POST", "/v1/order/1/checkout"],
      ["GET", "/v1/order/1/proof"],
      ["GET", "/v1/order/1/proof/2"],
      ["GET", "/v1/order/analytics?id=1"],
      ["GET", "/v1/order/transaction?id=1"],
      ["GET", "/v1/integration-orders"],
      ["POST", "/v1/integration-orders/1/recipients"],
      ["POST", "/v1/integration-orders/1-by-proximity"],
      ["POST", "/v1/order-recipients-statistics"],
      ["POST", "/v1/conversions"],
      ["DELETE", "/v1/conversions/1"],
      ["GET", "/v1/conversions/1/status"],
      ["POST", "/v1/address-book"],
      ["POST", "/v1/legacyActions/address-book"],
      ["GET", "/v1/templates"],
      ["GET", "/v1/fonts"],
      ["GET", "/v1/order/1/recipients/delivery-status?address1=x"],
    ];
    for (const [method, path] of paths) {
      const r = await http(sb.url, method, path, { body: method === "GET" ? undefined : {} });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.json.errorCode, `${method} ${path}`).toBe("UNAUTHENTICATED");
    }
  });

  test("the key is checked before the body: no key and a broken body is 401; basic and a broken body is 403", async () => {
    expectError(await http(sb.url, "POST", "/v1/order", { raw: "{broken" }), 401, "UNAUTHENTICATED");
    const { apiKey } = await sb.control.createAccount({ tier: "basic" });
    const r = await http(sb.url, "POST", "/v1/conversions", { apiKey, raw: "{broken" });
    expect(r.status).toBe(403);
    expect(r.bytes.length).toBe(0);
  });

  test("address-book operations answer 401, not 404, for a missing or invalid key (Authentication 8)", async () => {
    for (const path of ["/v1/address-book", "/v1/legacyActions/address-book"]) {
      expectError(await http(sb.url, "POST", path, { body: {} }), 401, "UNAUTHENTICATED");
      expectError(await http(sb.url, "POST", path, { apiKey: "nope", body: {} }), 401, "UNAUTHENTICATED");
    }
  });

  test("a new key does not revoke earlier keys (Authentication 4)", async () => {
    const { apiKey } = await sb.control.createAccount();
    const { apiKey: second } = await sb.control.addKey(apiKey);
    expect(second).not.toBe(apiKey);
    const a = await http(sb.url, "GET", "/v1/me", { apiKey });
    const b = await http(sb.url, "GET", "/v1/me", { apiKey: second });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.json.payload.id).toBe(a.json.payload.id);
  });
});

describe("entitlements: tier basic lacks automations and conversions (403, no body)", () => {
  const gated: [string, string, unknown][] = [
    ["GET", "/v1/integration-orders", undefined],
    ["POST", "/v1/integration-orders/1/recipients", {}],
    ["POST", "/v1/integration-orders/1-by-proximity", {}],
    ["POST", "/v1/conversions", []],
    ["DELETE", "/v1/conversions/1", undefined],
    ["GET", "/v1/conversions/1/status", undefined],
  ];
  test.each(gated)("%s %s is 403 with an empty body for basic", async (method, path, body) => {
    const { apiKey } = await sb.control.createAccount({ tier: "basic" });
    const r = await http(sb.url, method, path, { apiKey, body });
    expect(r.status).toBe(403);
    expect(r.bytes.length).toBe(0);
  });

  test("the same calls pass the entitlement check for pro (they reach validation or the lookup)", async () => {
    const { apiKey } = await sb.control.createAccount({ tier: "pro" });
    for (const [method, path, body] of gated) {
      const r = await http(sb.url, method, path, { apiKey, body });
      expect(r.status, `${method} ${path}`).not.toBe(403);
      expect([200, 400, 404]).toContain(r.status);
    }
  });

  test("basic keeps everything else (orders, profile, address book)", async () => {
    const a = await newAccount(sb, { tier: "basic" });
    expect((await a.c.get("/v1/me")).status).toBe(200);
    const orderId = await newOrder(a, 2);
    expect((await a.c.get(`/v1/order/${orderId}/recipients`)).status).toBe(200);
  });

  test("changing the tier takes effect on the next request", async () => {
    const { apiKey } = await sb.control.createAccount({ tier: "pro" });
    expect((await http(sb.url, "GET", "/v1/integration-orders", { apiKey })).status).toBe(200);
    await sb.control.updateAccount({ apiKey, tier: "basic" });
    expect((await http(sb.url, "GET", "/v1/integration-orders", { apiKey })).status).toBe(403);
  });
});

describe("envelope, query names, bad input", () => {
  test("query parameter names match case-insensitively", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    for (const name of ["id", "ID", "Id", "iD"]) {
      const r = await a.c.get(`/v1/order?${name}=${orderId}`);
      expect(r.status).toBe(200);
      expect(r.json.payload.orders.map((o: any) => o.orderId)).toEqual([orderId]);
    }
    const lower = await a.c.get(`/v1/order/${orderId}/checkout?postagetype=FirstClass`);
    const pascal = await a.c.get(`/v1/order/${orderId}/checkout?PostageType=FirstClass`);
    const standard = await a.c.get(`/v1/order/${orderId}/checkout?postageType=Standard`);
    expect(lower.json.payload.totalCharges).toBe(pascal.json.payload.totalCharges);
    expect(lower.json.payload.totalCharges).toBeGreaterThan(standard.json.payload.totalCharges);
    expect((await a.c.get(`/v1/order/analytics?ID=${orderId}`)).status).toBe(200);
    expect(
      (await a.c.get(`/v1/order/${orderId}/recipients?PAGESIZE=1&PageNumber=1`)).json.payload.recipients,
    ).toHaveLength(1);
  });

  test("a body that is not JSON is 400 in the envelope", async () => {
    const { apiKey } = await sb.control.createAccount();
    const r = await http(sb.url, "POST", "/v1/order", { apiKey, raw: "{not json" });
    const { errors } = expectError(r, 400, "INVALID_JSON");
    expect(errors).toMatch(/body/);
  });

  test("a body of the wrong shape is 400 with messages naming each field", async () => {
    const { apiKey } = await sb.control.createAccount();
    const r = await http(sb.url, "POST", "/v1/order", {
      apiKey,
      body: { templateId: "seven", useQr: "yes" },
    });
    const { errors, json } = expectError(r, 400, "INVALID_REQUEST");
    expect(errors).toMatch(/^templateId: /m);
    expect(errors).toMatch(/^useQr: /m);
    expect(json.errorDetails.map((d: any) => d.field).sort()).toEqual(["templateId", "useQr"]);
  });

  test("a body sent with another content type is not taken for JSON: 415 in the envelope, nothing created", async () => {
    const a = await newAccount(sb);
    const r = await http(sb.url, "POST", "/v1/order", {
      apiKey: a.apiKey,
      raw: JSON.stringify({ templateId: a.templateId }),
      contentType: "text/plain",
    });
    expectError(r, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect((await a.c.get("/v1/order")).json.payload.totalCount).toBe(0);
  });

  test("a path id that is not an integer is 400 naming id", async () => {
    const { apiKey } = await sb.control.createAccount();
    const { errors } = expectError(await http(sb.url, "GET", "/v1/order/abc/recipients", { apiKey }), 400);
    expect(errors).toMatch(/^id: /m);
  });

  test("an unknown path is 404 NOT_FOUND in the envelope", async () => {
    const { apiKey } = await sb.control.createAccount();
    expectError(await http(sb.url, "GET", "/v1/nothing-here", { apiKey }), 404, "NOT_FOUND");
  });

  test("garbage bodies on every endpoint give 4xx, never 500", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const bodies: unknown[] = [null, 42, "text", [], [1, 2], { recipients: "x" }, { a: { b: [null] } }, true];
    const paths: [string, string][] = [
      ["POST", "/v1/order"],
      ["PUT", `/v1/order/${orderId}/recipients`],
      ["DELETE", `/v1/order/${orderId}/recipients`],
      ["POST", `/v1/order/${orderId}/checkout`],
      ["POST", "/v1/integration-orders/1/recipients"],
      ["POST", "/v1/integration-orders/1-by-proximity"],
      ["POST", "/v1/order-recipients-statistics"],
      ["POST", "/v1/conversions"],
      ["POST", "/v1/address-book"],
      ["POST", "/v1/legacyActions/address-book"],
    ];
    for (const [method, path] of paths) {
      for (const body of bodies) {
        const r = await http(sb.url, method, path, { apiKey: a.apiKey, raw: JSON.stringify(body) });
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(ErrorEnvelope.safeParse(r.json).success).toBe(true);
      }
    }
    const queries = [
      "/v1/order?paid=maybe",
      "/v1/order?pageSize=0",
      "/v1/order?pageSize=1001",
      "/v1/order?pageNumber=-1",
      "/v1/order/analytics",
      "/v1/order/analytics?id=",
      `/v1/order/${orderId}/checkout?autoBill=perhaps`,
      `/v1/order/${orderId}/checkout?holdUntilDate=tomorrow`,
      `/v1/order/${orderId}/recipients/delivery-status`,
    ];
    for (const q of queries) {
      const r = await a.c.get(q);
      expect(r.status, q).toBe(400);
      expect(r.json.errors.length, q).toBeGreaterThan(0);
    }
  });

  test("a successful response carries the envelope keys of the spec", async () => {
    const { apiKey } = await sb.control.createAccount();
    const r = await api(sb, apiKey).get("/v1/me");
    expect(Object.keys(r.json).sort()).toEqual(
      [
        "errorCode",
        "errorDetails",
        "errors",
        "hasErrors",
        "hasWarnings",
        "metadata",
        "payload",
        "profile",
        "warnings",
      ].sort(),
    );
  });
});
