/**
 * Generated requests against every operation of the endpoint table, checking what the HTTP layer
 * answers: a bad path id, a body that is not JSON or is too large, a method or path the table does
 * not have, a request Node cannot parse. Every answer must be the envelope, with a status that the
 * committed OpenAPI document lists for the operation and an `errorCode` that docs/sandbox.md lists
 * (never fastify's internal `FST_ERR_*`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type EndpointDef, endpoints, fillPath, operations } from "../../provider/api/endpoints";
import { ErrorEnvelope } from "../../provider/api/schemas";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { type Account, newAccount, newOrder } from "./fixtures";
import { type HttpResult, http, rawHttp } from "./http";

const root = path.resolve(__dirname, "../..");
const openapi = JSON.parse(fs.readFileSync(path.join(root, "openapi", "directmail-v1.json"), "utf8"));

/** The statuses the committed OpenAPI document lists for an operation at one of its paths. */
function documented(def: EndpointDef, template: string): number[] {
  const op = openapi.paths[template]?.[def.method.toLowerCase()];
  if (!op) throw new Error(`the OpenAPI document has no ${def.method} ${template}`);
  return Object.keys(op.responses).map(Number);
}

/** The `errorCode`s docs/sandbox.md lists in its "error codes used" row. */
const DOCUMENTED_CODES: ReadonlySet<string> = (() => {
  const docs = fs.readFileSync(path.join(root, "docs", "sandbox.md"), "utf8");
  const row = docs.split("\n").find((line) => line.startsWith("| error codes used |"));
  if (!row) throw new Error("docs/sandbox.md has no 'error codes used' row");
  return new Set([...row.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] as string));
})();

/** An error answer in the envelope, with a documented code and (for an operation) a documented status. */
function expectDocumentedError(r: HttpResult, where: string, statuses?: readonly number[]): void {
  expect(r.status, where).toBeGreaterThanOrEqual(400);
  expect(ErrorEnvelope.safeParse(r.json).success, `${where}: ${r.bytes.toString().slice(0, 300)}`).toBe(true);
  expect(r.json.hasErrors, where).toBe(true);
  expect(r.json.errorCode, where).not.toMatch(/^FST_/);
  expect(DOCUMENTED_CODES, `${where}: ${r.json.errorCode} is listed in docs/sandbox.md`).toContain(
    r.json.errorCode,
  );
  if (statuses) expect(statuses, `${where} answered ${r.status}`).toContain(r.status);
}

/** Every (operation, path template) pair: each operation at its path and at its aliases. */
const ROUTES = operations.flatMap((def) =>
  [def.path, ...(def.aliases ?? [])].map((template) => ({ def, template })),
);

let sb: TestSandbox;
let a: Account;
/** Real ids of the account, so that only the parameter under test is wrong. */
let ids: { order: number; recipient: number; integrationOrder: number; conversion: number };

beforeAll(async () => {
  sb = await startTestSandbox();
  a = await newAccount(sb, { tier: "pro" });
  const order = await newOrder(a, 1);
  const recipient = (await a.c.get(`/v1/order/${order}/recipients`)).json.payload.recipients[0].id;
  const { id: integrationOrder } = await sb.control.createIntegrationOrder({
    apiKey: a.apiKey,
    name: "Probe automation",
    templateId: a.templateId,
  });
  const upload = await a.c.post("/v1/conversions", [{ firstName: "C", lastName: "B", type: "Conversion" }]);
  ids = { order, recipient, integrationOrder, conversion: upload.json.metadata.conversionId };
});
afterAll(() => sb.close());

/** The Host a local tool sends: the sandbox's own address (any other is refused). */
const host = () => new URL(sb.url).host;

/** Valid path parameters for an operation (the id's meaning depends on the entry, as in the spec). */
function validParams(def: EndpointDef): Record<string, number> {
  const id = [15, 16].includes(def.entry)
    ? ids.integrationOrder
    : [19, 20].includes(def.entry)
      ? ids.conversion
      : ids.order;
  return { id, recipient: ids.recipient };
}

/** The path of an operation with one parameter replaced by raw (already URL-encoded) text. */
function pathWith(def: EndpointDef, template: string, name: string, raw: string): string {
  const params = validParams(def);
  return template.replace(/\{(\w+)\}/g, (_, p: string) => (p === name ? raw : String(params[p])));
}

const request = (def: EndpointDef, p: string) =>
  http(sb.url, def.method, p, { apiKey: a.apiKey, ...(def.method === "GET" ? {} : { body: {} }) });

describe("every path id that is not a whole number of at least 1 is a 400 naming it, and documented", () => {
  // Encoded as sent; the message shows the decoded value.
  const BAD_IDS: [raw: string, shown: string][] = [
    ["0", "0"],
    ["abc", '"abc"'],
    ["-1", '"-1"'],
    ["1.5", '"1.5"'],
    ["%207", '" 7"'],
    ["7%20", '"7 "'],
    ["%2B7", '"+7"'],
    ["1e3", '"1e3"'],
    ["0x10", '"0x10"'],
    ["99999999999999999999", '"99999999999999999999"'],
  ];
  const cases = ROUTES.flatMap(({ def, template }) =>
    Object.keys(def.pathParams?.shape ?? {}).map(
      (name) => [`${def.method} ${template}`, name, def, template] as const,
    ),
  );
  test.each(cases)("%s, {%s}", async (_label, name, def, template) => {
    for (const [raw, shown] of BAD_IDS) {
      const p = pathWith(def, template, name, raw);
      const r = await request(def, p);
      expectDocumentedError(r, `${def.method} ${p}`, documented(def, template));
      expect(r.status, p).toBe(400);
      expect(r.json.errorCode, p).toBe("INVALID_REQUEST");
      expect(r.json.errors[0], p).toBe(
        `${name}: ${shown} is not a whole number from 1 to 9007199254740991 written in digits only`,
      );
    }
    // A well-formed id the account does not have: documented too (404, or 400 for a body or a
    // required query checked first).
    const p = pathWith(def, template, name, "987654321");
    const r = await request(def, p);
    expectDocumentedError(r, `${def.method} ${p}`, documented(def, template));
    if (!def.body && def.operationId !== "getDeliveryStatus") expect(r.status, p).toBe(404);
  });
});

describe("bodies the operation cannot read: the envelope, documented codes and statuses", () => {
  const withBody = ROUTES.filter(({ def }) => def.method !== "GET");
  const labels = withBody.map(({ def, template }) => [`${def.method} ${template}`, def, template] as const);

  test.each(labels)("%s", async (_label, def, template) => {
    const p = fillPath(template, validParams(def));
    const head = `${def.method} ${p} HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}`;
    const statuses = documented(def, template);

    // Not JSON: 415 naming the content type it got.
    for (const type of ["application/xml", "text/plain", "application/x-www-form-urlencoded", ""]) {
      const r = await rawHttp(sb.url, type ? `${head}\r\nContent-Type: ${type}` : head, "<order/>");
      expectDocumentedError(r, `${def.method} ${p} as '${type}'`, statuses);
      expect(r.status).toBe(415);
      expect(r.json.errorCode).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(r.json.errors[0]).toBe(
        `Content-Type ${type ? `'${type}'` : "missing"}: a body must be JSON, sent with Content-Type: application/json`,
      );
    }

    // JSON that does not parse: 400 INVALID_JSON.
    const broken = await rawHttp(sb.url, `${head}\r\nContent-Type: application/json`, '{"a":');
    expectDocumentedError(broken, `${def.method} ${p} broken JSON`, statuses);
    expect([broken.status, broken.json.errorCode]).toEqual([400, "INVALID_JSON"]);

    // Announced larger than the service reads: 413 before the body is read.
    const large = await rawHttp(
      sb.url,
      `${head}\r\nContent-Type: application/json\r\nContent-Length: 100000000`,
    );
    expectDocumentedError(large, `${def.method} ${p} too large`, statuses);
    expect([large.status, large.json.errorCode]).toEqual([413, "PAYLOAD_TOO_LARGE"]);

    // Nested deeper than any request needs: refused before anything reads (or echoes) it.
    for (const depth of [65, 100_000]) {
      const deep = `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
      const r = await rawHttp(sb.url, `${head}\r\nContent-Type: application/json`, deep);
      expectDocumentedError(r, `${def.method} ${p} nested ${depth}`, statuses);
      expect([r.status, r.json.errorCode, r.json.errors[0]]).toEqual([
        400,
        "INVALID_JSON",
        "body: arrays and objects nested deeper than 64 levels; no request of this service needs more than a few",
      ]);
    }

    // Bodies of every JSON shape, up to the nesting limit (brackets inside a string do not count).
    const atLimit = `${"[".repeat(64)}${"]".repeat(64)}`;
    for (const body of ["null", "42", '"text"', "[]", "{}", JSON.stringify(["[".repeat(100)]), atLimit]) {
      const r = await rawHttp(sb.url, `${head}\r\nContent-Type: application/json`, body);
      if (r.status >= 400) expectDocumentedError(r, `${def.method} ${p} ${body.slice(0, 20)}`, statuses);
      else expect(statuses.concat(200)).toContain(r.status);
    }
  });

  test("a body on a GET is not read: the operation answers as without it", async () => {
    for (const { def, template } of ROUTES.filter((r) => r.def.method === "GET")) {
      const p = fillPath(template, validParams(def));
      const r = await rawHttp(
        sb.url,
        `GET ${p} HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}\r\nContent-Type: application/xml`,
        "<order/>",
      );
      if (r.status >= 400) expectDocumentedError(r, `GET ${p}`, documented(def, template));
      else expect(r.status, p).toBe(200);
    }
  });
});

describe("methods and paths the table does not have", () => {
  test("another method on a path of the table is 405 METHOD_NOT_ALLOWED with Allow, whatever the body", async () => {
    const byPath = new Map<string, Set<string>>();
    for (const { def, template } of ROUTES) {
      const p = fillPath(template, validParams(def));
      byPath.set(p, (byPath.get(p) ?? new Set()).add(def.method));
    }
    for (const [p, methods] of byPath) {
      const allowed = [...methods, ...(methods.has("GET") ? ["HEAD"] : [])].sort();
      for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "PROPFIND", "QUERY"]) {
        if (methods.has(method)) continue;
        const head = `${method} ${p} HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}`;
        for (const [withBody, body] of [
          [head, ""],
          [`${head}\r\nContent-Type: application/xml`, "<order/>"],
        ] as const) {
          const r = await rawHttp(sb.url, withBody, body);
          if (/^\/v1\/order\/(analytics|transaction)$/.test(p) && method === "DELETE") {
            // DELETE /v1/order/{id} with the id `analytics`: the order delete answers (and refuses).
            expectDocumentedError(r, `${method} ${p}`, documented(endpoints.deleteOrder, "/v1/order/{id}"));
            continue;
          }
          expectDocumentedError(r, `${method} ${p} ${body}`);
          expect([r.status, r.json.errorCode], `${method} ${p} ${body}`).toEqual([405, "METHOD_NOT_ALLOWED"]);
          // Exactly the methods the OpenAPI document has for this path.
          expect(r.headers.get("allow")?.split(", "), `${method} ${p}`).toEqual(allowed);
          expect(r.json.errors[0]).toMatch(new RegExp(`^${method} is not an operation of ${p}; it answers `));
        }
      }
    }
  });

  test("a path the table does not have is 404 NOT_FOUND", async () => {
    for (const p of ["/v1/nothing", "/v2/me", "/v1/me/extra", "/v1/me/", "//v1/me", "/"]) {
      const r = await rawHttp(sb.url, `GET ${p} HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}`);
      expectDocumentedError(r, p);
      expect([r.status, r.json.errorCode]).toEqual([404, "NOT_FOUND"]);
    }
  });
});

describe("requests the HTTP layer cannot read", () => {
  test("a path with a broken escape is 400 INVALID_REQUEST in the envelope", async () => {
    for (const p of ["/v1/order/%E0%A4%A/recipients", "/v1/%zz", "/v1/conversions/%/status"]) {
      const r = await rawHttp(sb.url, `GET ${p} HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}`);
      expectDocumentedError(r, p);
      expect([r.status, r.json.errorCode]).toEqual([400, "INVALID_REQUEST"]);
      expect(r.json.errors[0]).toMatch(/^the path is not valid: /);
    }
  });

  test("a malformed header, a Content-Length that lies, and headers too large: the envelope", async () => {
    const cases: [string, string, number, string][] = [
      [`GET /v1/me HTTP/1.1\r\nHost: ${host()}\r\nBad Header`, "", 400, "INVALID_REQUEST"],
      [
        `POST /v1/order HTTP/1.1\r\nHost: ${host()}\r\nX-API-KEY: ${a.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 10`,
        "{}",
        400,
        "INVALID_REQUEST",
      ],
      [
        `GET /v1/me HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${"a".repeat(20_000)}`,
        "",
        431,
        "HEADERS_TOO_LARGE",
      ],
      [
        `GET /v1/order/analytics?id=${"1,".repeat(9_000)}1 HTTP/1.1\r\nHost: ${host()}`,
        "",
        431,
        "HEADERS_TOO_LARGE",
      ],
    ];
    for (const [head, body, status, code] of cases) {
      // Half-closed after writing: the request ends where the bytes end, as a broken client's would.
      const r = await rawHttp(sb.url, head, body, { halfClose: true });
      expectDocumentedError(r, head.slice(0, 60));
      expect([r.status, r.json.errorCode]).toEqual([status, code]);
    }
  });

  test("without a key, a body that is not JSON is still a 401 first", async () => {
    const r = await rawHttp(
      sb.url,
      `POST /v1/order HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/xml`,
      "<a/>",
    );
    expectDocumentedError(r, "POST /v1/order without key", documented(endpoints.createOrder, "/v1/order"));
    expect([r.status, r.json.errorCode]).toEqual([401, "UNAUTHENTICATED"]);
  });
});
