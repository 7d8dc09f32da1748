/**
 * The sandbox's documented rules on every operation of the endpoint table, against the real
 * `directmail sandbox` process over raw sockets (docs/sandbox.md, "Who may call the sandbox",
 * "Bounds", "Errors of the HTTP layer"):
 *
 * - who may call /v1: a rebound Host or a foreign Origin is refused before anything runs, on reads
 *   and writes; the sandbox's own names (the loopback names, `*.localhost`) are not;
 * - a request without Host gets the envelope (/v1) or the control API's 403, never a bare 400;
 * - every body, as it was sent, is within the bounds: an object of 1,001 properties, a text of
 *   10,001 characters, a list of 10,001 items at any object of a valid body, or nesting over 64,
 *   is a 400 naming the bound, and nothing is stored;
 * - an operation without a body takes a request whose body is empty without any length header,
 *   whatever its Content-Type.
 *
 * The operations come from the endpoint table: one added there is tested here, and one with a body
 * needs a valid body below (a type error, and a failing test, until it has one).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import { type EndpointDef, type Endpoints, type OperationId, operations } from "../../provider/api/endpoints";
import { ErrorEnvelope, formatPath } from "../../provider/api/schemas";
import { type CliSandbox, spawnCliSandbox } from "../support/cli-sandbox";
import { controlClient, type SandboxControl } from "../support/sandbox";
import { type HttpResult, http, rawHttp, recipient } from "./http";

let s: CliSandbox;
let port: number;
let control: SandboxControl;
let apiKey: string;
/** Real ids of the account, so that only what is under test is wrong. */
let ids: { order: number; recipient: number; integrationOrder: number; conversion: number; template: number };

/** The operations that read a body. */
type WithBody = { [K in OperationId]: Endpoints[K] extends { body: z.ZodType } ? K : never }[OperationId];

/** A valid body of each operation that reads one (the bounds are checked after its schema). */
const VALID_BODIES: {
  [K in WithBody]: () => Endpoints[K] extends { body: infer B extends z.ZodType } ? z.input<B> : never;
} = {
  createOrder: () => ({ templateId: ids.template }),
  appendRecipients: () => ({ recipients: [recipient({ firstName: "Wide" })] }),
  deleteRecipients: () => ({ recipientIds: [ids.recipient] }),
  checkout: () => ({ postageType: "Standard", productionSpeed: "Normal" }),
  addIntegrationRecipient: () => ({
    firstName: "Ann",
    lastName: "Lee",
    address1: "10 Maple Street",
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  }),
  requestProximityMailing: () => ({
    Name: "Around the store",
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
  }),
  recordQrScan: () => ({
    orderId: ids.order,
    statisticName: 1,
    statisticValue: "1",
    orderRecipientId: ids.recipient,
  }),
  submitConversions: () => [
    { firstName: "Cy", lastName: "Buyer", type: "Conversion", primaryAddress: null, revenue: "12.50" },
  ],
  createAddressBookEntry: () => addressBookEntry(),
  createAddressBookEntryLegacy: () => addressBookEntry(),
};

function addressBookEntry() {
  return {
    firstName: "Ida",
    lastName: "Wells",
    toOrganization: "",
    address1: "300 West Washington Street",
    address2: "Suite 5",
    city: "Chicago",
    state: "IL",
    zip: "60606",
    phoneNumber: null,
  };
}

const validBody = (def: EndpointDef): unknown =>
  (VALID_BODIES as Record<string, () => unknown>)[def.operationId]?.();

/** The path of an operation with real ids (a delete gets one of its own: `fresh`). */
function pathOf(def: EndpointDef, own?: number): string {
  const id =
    own ??
    (def.idKind === "integration order"
      ? ids.integrationOrder
      : def.idKind === "conversion"
        ? ids.conversion
        : ids.order);
  const query: Record<string, string> = {
    getAnalytics: `?id=${ids.order}`,
    getTransactions: `?id=${ids.order}`,
    getDeliveryStatus: "?firstName=R1&lastName=Test",
  };
  return (
    def.path.replace("{id}", String(id)).replace("{recipient}", String(ids.recipient)) +
    (query[def.operationId] ?? "")
  );
}

/** A request line and headers, with the Host a local tool sends unless given (null: none). */
function head(def: { method: string }, path: string, headers: Record<string, string | null> = {}): string {
  const all: Record<string, string | null> = { Host: `127.0.0.1:${port}`, "X-API-KEY": apiKey, ...headers };
  return [
    `${def.method} ${path} HTTP/1.1`,
    ...Object.entries(all).flatMap(([k, v]) => (v === null ? [] : [`${k}: ${v}`])),
  ].join("\r\n");
}

/** A JSON request as a local tool sends it, with extra headers. */
const send = (def: EndpointDef, path: string, body: unknown, headers: Record<string, string | null> = {}) =>
  rawHttp(
    s.url,
    head(def, path, body === undefined ? headers : { "Content-Type": "application/json", ...headers }),
    body === undefined ? "" : JSON.stringify(body),
  );

/** An error in the envelope, with its status and code; returns its messages joined. */
function expectEnvelopeError(r: HttpResult, status: number, errorCode: string, where: string): string {
  expect(r.status, `${where}: ${r.bytes.toString().slice(0, 300)}`).toBe(status);
  expect(ErrorEnvelope.safeParse(r.json).success, where).toBe(true);
  expect(r.json.errorCode, where).toBe(errorCode);
  return (r.json.errors as string[]).join("\n");
}

/** What the account holds, as the sandbox lists it: unchanged by every refused request. */
async function holdings(): Promise<string> {
  const get = async (path: string) => (await http(s.url, "GET", path, { apiKey })).json.payload;
  return JSON.stringify({
    orders: await get("/v1/order?pageSize=100"),
    recipients: await get(`/v1/order/${ids.order}/recipients?pageSize=100`),
    ledger: await control.ledger(apiKey),
    addressBook: await control.addressBook(apiKey),
    automation: await control.integrationRecipients(apiKey, ids.integrationOrder),
  });
}

beforeAll(async () => {
  s = await spawnCliSandbox(["--port", "0", "--data", ":memory:", "--quiet"]);
  port = Number(new URL(s.url).port);
  control = controlClient(s.url);
  ({ apiKey } = await control.createAccount({ tier: "pro", balance: 100 }));
  const { id: template } = await control.createTemplate({
    apiKey,
    name: "Card",
    hasQr: true,
    qrUrl: "https://shop.example/q",
  });
  const order = (await http(s.url, "POST", "/v1/order", { apiKey, body: { templateId: template } })).json
    .payload.orderId;
  await http(s.url, "PUT", `/v1/order/${order}/recipients`, {
    apiKey,
    body: { recipients: [recipient({ firstName: "R1", lastName: "Test" })] },
  });
  const listed = await http(s.url, "GET", `/v1/order/${order}/recipients`, { apiKey });
  const { id: integrationOrder } = await control.createIntegrationOrder({
    apiKey,
    name: "Auto",
    templateId: template,
  });
  const upload = await http(s.url, "POST", "/v1/conversions", {
    apiKey,
    body: [{ firstName: "C", lastName: "B" }],
  });
  ids = {
    order,
    recipient: listed.json.payload.recipients[0].id,
    integrationOrder,
    conversion: upload.json.metadata.conversionId,
    template,
  };
});

afterAll(async () => {
  await s?.stop();
});

describe("/v1 answers only a request that names the sandbox, from no web page", () => {
  test.each(operations.map((def) => [`${def.method} ${def.path}`, def] as const))(
    "%s: a rebound Host, a foreign Origin and no Host are refused before anything runs",
    async (label, def) => {
      const before = await holdings();
      const body = validBody(def);
      const rebound = await send(def, pathOf(def), body, {
        Host: `evil.example:${port}`,
        Origin: `http://evil.example:${port}`,
      });
      expect(expectEnvelopeError(rebound, 403, "HOST_NOT_ALLOWED", label)).toBe(
        `Host "evil.example:${port}" is not this sandbox: call it by the address it listens on, with its port ` +
          `(Host: 127.0.0.1:${port}, localhost:${port}, [::1]:${port}, NAME.localhost:${port})`,
      );
      const origin = await send(def, pathOf(def), body, { Origin: `http://evil.example:${port}` });
      expect(expectEnvelopeError(origin, 403, "ORIGIN_NOT_ALLOWED", label)).toMatch(
        new RegExp(
          `^Origin "http://evil.example:${port}" is not this sandbox: it answers local tools, not web pages`,
        ),
      );
      const noHost = await send(def, pathOf(def), body, { Host: null });
      expect(expectEnvelopeError(noHost, 403, "HOST_NOT_ALLOWED", label)).toMatch(
        /^no Host header: call it by the address it listens on, with its port \(Host: 127\.0\.0\.1:/,
      );
      expect(await holdings(), label).toBe(before);
    },
  );

  test("the sandbox's own names are answered, in Host and in Origin, and look-alikes are not", async () => {
    const me = { method: "GET" };
    const order = { method: "POST" };
    const own = [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `sandbox.localhost:${port}`,
      `Sandbox.LocalHost:${port}`,
      `my-shop.dev.localhost:${port}`,
    ];
    for (const host of own) {
      const read = await rawHttp(s.url, head(me, "/v1/me", { Host: host }));
      expect(read.status, host).toBe(200);
      const write = await rawHttp(
        s.url,
        head(order, "/v1/order", {
          Host: host,
          Origin: `http://${host}`,
          "Content-Type": "application/json",
        }),
        JSON.stringify({ templateId: ids.template }),
      );
      expect(write.status, host).toBe(200);
      expect(write.json.payload.orderId).toEqual(expect.any(Number));
    }
    const before = await holdings();
    const other = port === 65535 ? 1 : port + 1;
    for (const host of [
      `localhost.evil.example:${port}`,
      `evil-localhost:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `sandbox.localhost:${other}`,
      "sandbox.localhost",
      `.localhost:${port}`,
      `a..localhost:${port}`,
      `-a.localhost:${port}`,
      `localhost:${port}@evil.example`,
      "",
    ]) {
      const read = await rawHttp(s.url, head(me, "/v1/me", { Host: host }));
      expectEnvelopeError(read, 403, "HOST_NOT_ALLOWED", host);
      const write = await rawHttp(
        s.url,
        head(order, "/v1/order", { Origin: `http://${host}`, "Content-Type": "application/json" }),
        JSON.stringify({ templateId: ids.template }),
      );
      expectEnvelopeError(write, 403, "ORIGIN_NOT_ALLOWED", host);
    }
    for (const origin of ["null", `https://127.0.0.1:${port}`, "http://localhost:3000"]) {
      const read = await rawHttp(s.url, head(me, "/v1/me", { Origin: origin }));
      expectEnvelopeError(read, 403, "ORIGIN_NOT_ALLOWED", origin);
    }
    expect(await holdings()).toBe(before);
  });

  test("without Host, the control API answers its documented 403, and so does HTTP/1.0", async () => {
    for (const requestLine of ["GET /_sandbox/clock HTTP/1.1", "GET /_sandbox/clock HTTP/1.0"]) {
      const r = await rawHttp(s.url, requestLine);
      expect(r.status, requestLine).toBe(403);
      expect(r.json.error).toMatch(/^no Host header: call it by the address it listens on, with its port/);
    }
    const reset = await rawHttp(s.url, "POST /_sandbox/reset HTTP/1.1\r\nContent-Type: application/json");
    expect(reset.status).toBe(403);
    const old = await rawHttp(s.url, `GET /v1/me HTTP/1.0\r\nX-API-KEY: ${apiKey}`);
    expectEnvelopeError(old, 403, "HOST_NOT_ALLOWED", "HTTP/1.0");
    expect((await http(s.url, "GET", "/v1/me", { apiKey })).status).toBe(200);
  });
});

/** A value nested `levels` deep in arrays. */
const nested = (levels: number): unknown => {
  let value: unknown = 0;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

/** The paths of every object (not list) in a value, the value itself first. */
function objectPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== "object" || value === null) return [];
  const own = Array.isArray(value) ? [] : [path];
  return [
    ...own,
    ...Object.entries(value).flatMap(([k, v]) =>
      objectPaths(v, [...path, Array.isArray(value) ? Number(k) : k]),
    ),
  ];
}

/** A copy of `body` with `extra` merged into the object at `path`. */
function widened(body: unknown, path: (string | number)[], extra: Record<string, unknown>): unknown {
  const copy = structuredClone(body) as any;
  let node = copy;
  for (const part of path) node = node[part];
  Object.assign(node, extra);
  return copy;
}

const WIDE = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`extra${i}`, 1]));

describe("every body, as it was sent, is within the documented bounds", () => {
  const withBody = operations.filter((def) => def.body !== undefined);

  test("each operation that reads a body has a valid one here", () => {
    expect(Object.keys(VALID_BODIES).sort()).toEqual(withBody.map((def) => def.operationId).sort());
  });

  test.each(withBody.map((def) => [`${def.method} ${def.path}`, def] as const))(
    "%s: an object of 1,001 properties, a text of 10,001 characters, a list of 10,001 items anywhere, or nesting over 64 is refused, and nothing is stored",
    async (label, def) => {
      const before = await holdings();
      const body = validBody(def);
      const cases: [
        what: string,
        path: (string | number)[],
        extra: Record<string, unknown>,
        bound: string,
      ][] = objectPaths(body).flatMap((path) => [
        ["wide", path, WIDE, "at most 1000 properties (a bound of the sandbox; the spec states none)"],
        [
          "long text",
          path,
          { extra: "x".repeat(10_001) },
          "at most 10000 characters (a bound of the sandbox",
        ],
        ["long list", path, { extra: Array(10_001).fill(0) }, "at most 10000 items (a bound of the sandbox"],
      ]);
      expect(cases.length, label).toBeGreaterThan(0);
      for (const [what, path, extra, bound] of cases) {
        const where = `${label}, ${what} at ${JSON.stringify(path)}`;
        const r = await send(def, pathOf(def), widened(body, path, extra));
        const errors = expectEnvelopeError(r, 400, "INVALID_REQUEST", where);
        // Named by its field: the object itself, or the property added to it.
        const field = formatPath(what === "wide" ? path : [...path, "extra"]) || "body";
        expect(errors, where).toContain(`${field}: ${bound}`);
      }
      const deepAt = objectPaths(body)[0] as (string | number)[];
      const deep = await send(def, pathOf(def), widened(body, deepAt, { extra: nested(65) }));
      expect(expectEnvelopeError(deep, 400, "INVALID_JSON", label)).toContain("nested deeper than 64 levels");
      expect(await holdings(), label).toBe(before);
    },
  );
});

describe("an empty body without length headers is no body, whatever its type", () => {
  const withoutBody = operations.filter((def) => def.body === undefined);

  /** A target of its own for a delete (each request removes it), the shared ids otherwise. */
  async function fresh(def: EndpointDef): Promise<number | undefined> {
    if (def.method !== "DELETE") return undefined;
    if (def.idKind === "conversion") {
      const upload = await http(s.url, "POST", "/v1/conversions", {
        apiKey,
        body: [{ firstName: "D", lastName: "E" }],
      });
      return upload.json.metadata.conversionId;
    }
    return (await http(s.url, "POST", "/v1/order", { apiKey, body: { templateId: ids.template } })).json
      .payload.orderId;
  }

  test.each(withoutBody.map((def) => [`${def.method} ${def.path}`, def] as const))(
    "%s: answered with neither Content-Length nor Transfer-Encoding, or with no chunk",
    async (label, def) => {
      for (const type of [null, "text/plain", "application/json", "application/x-www-form-urlencoded"]) {
        const r = await rawHttp(s.url, head(def, pathOf(def, await fresh(def)), { "Content-Type": type }));
        expect(r.status, `${label} with Content-Type ${type}: ${r.bytes.toString().slice(0, 300)}`).toBe(200);
      }
      if (def.method === "GET") return;
      // A chunked body of no chunk is empty too; a chunk of text is a body, and not JSON.
      const chunked = { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" };
      const empty = await rawHttp(s.url, head(def, pathOf(def, await fresh(def)), chunked), "0\r\n\r\n");
      expect(empty.status, `${label}, chunked without a chunk`).toBe(200);
      const text = await rawHttp(
        s.url,
        head(def, pathOf(def, await fresh(def)), chunked),
        "3\r\nabc\r\n0\r\n\r\n",
      );
      expect(expectEnvelopeError(text, 415, "UNSUPPORTED_MEDIA_TYPE", label)).toBe(
        "Content-Type 'text/plain': a body must be JSON, sent with Content-Type: application/json",
      );
    },
  );
});
