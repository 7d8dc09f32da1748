/**
 * Bad input is a 4xx with the envelope, never a 500: generated bodies, queries and recipients
 * (fast-check, bounded runs) on every endpoint that takes them.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ErrorEnvelope } from "../../provider/api/schemas";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, newAccount, newOrder } from "./fixtures";
import { http, recipient } from "./http";

let sb: TestSandbox;
let a: Account;
let orderId: number;
let automationId: number;
beforeAll(async () => {
  sb = await startTestSandbox();
  a = await newAccount(sb);
  orderId = await newOrder(a, 2);
  automationId = (
    await sb.control.createIntegrationOrder({ apiKey: a.apiKey, name: "f", templateId: a.templateId })
  ).id;
});
afterAll(() => sb.close());

const RUNS = 25;

function expectNoServerError(r: { status: number; json: unknown }, what: string) {
  expect(r.status, what).toBeLessThan(500);
  if (r.status >= 400 && r.status !== 403) expect(ErrorEnvelope.safeParse(r.json).success, what).toBe(true);
}

describe("generated input never causes a 500", () => {
  const bodies = () => [
    ["POST", "/v1/order"],
    ["PUT", `/v1/order/${orderId}/recipients`],
    ["DELETE", `/v1/order/${orderId}/recipients`],
    ["POST", `/v1/order/${orderId}/checkout`],
    ["POST", `/v1/integration-orders/${automationId}/recipients`],
    ["POST", `/v1/integration-orders/${automationId}-by-proximity`],
    ["POST", "/v1/order-recipients-statistics"],
    ["POST", "/v1/conversions"],
    ["POST", "/v1/address-book"],
  ];

  test("arbitrary JSON bodies", async () => {
    for (const [method, path] of bodies()) {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (body) => {
          const r = await http(sb.url, method as string, path as string, {
            apiKey: a.apiKey,
            raw: JSON.stringify(body),
          });
          expectNoServerError(r, `${method} ${path} ${JSON.stringify(body)}`);
        }),
        { numRuns: RUNS },
      );
    }
  });

  test("recipients with arbitrary strings in every address and name field", async () => {
    const text = fc.option(fc.string({ maxLength: 40 }), { nil: null });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            firstName: text,
            lastName: text,
            address1: text,
            address2: text,
            city: text,
            state: text,
            zipCode: text,
            country: text,
            image1: text,
          }),
          { minLength: 1, maxLength: 5 },
        ),
        async (fields) => {
          const target = await newOrder(a);
          const r = await http(sb.url, "PUT", `/v1/order/${target}/recipients`, {
            apiKey: a.apiKey,
            body: { recipients: fields.map((f) => recipient(f)) },
          });
          expect(r.status, JSON.stringify(fields)).toBe(200);
          const p = r.json.payload;
          expect(p.acceptedRecipients + p.droppedRecipients).toBe(fields.length);
          const proof = await http(sb.url, "GET", `/v1/order/${target}/proof`, { apiKey: a.apiKey });
          expect([200, 400]).toContain(proof.status);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test("arbitrary query strings", async () => {
    const paths = [
      "/v1/order",
      `/v1/order/${orderId}/recipients`,
      `/v1/order/${orderId}/checkout`,
      "/v1/order/analytics",
      "/v1/order/transaction",
      `/v1/order/${orderId}/recipients/delivery-status`,
    ];
    const names = fc.constantFrom(
      "id",
      "status",
      "paid",
      "pageSize",
      "pageNumber",
      "postageType",
      "autoBill",
      "holdUntilDate",
      "search",
      "firstName",
      "lastName",
      "address1",
      "productionSpeed",
      "x",
    );
    for (const path of paths) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(names, fc.string({ maxLength: 20 })), { maxLength: 4 }),
          async (pairs) => {
            const query = new URLSearchParams(pairs).toString();
            const r = await http(sb.url, "GET", `${path}?${query}`, { apiKey: a.apiKey });
            expectNoServerError(r, `${path}?${query}`);
          },
        ),
        { numRuns: RUNS },
      );
    }
  });
});
