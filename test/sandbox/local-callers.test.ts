/**
 * Who may call the sandbox, against the real `directmail sandbox` process over real sockets: a web
 * page (a no-cors fetch, a foreign Origin, a rebound DNS name) is refused before anything runs,
 * local tools keep working, keys are compared exactly, and the request log never shows a key
 * however its query parameter is spelled.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DirectMailClient } from "../../provider";
import { type CliSandbox, spawnCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { http, rawHttp } from "./http";

const DEMO_KEY = "sbx_demo_key";

let s: CliSandbox;
let port: string;
/** An account made before the attacks: it must still work after each. */
let before: { apiKey: string };

beforeAll(async () => {
  // Not --quiet: the request log on stderr is under test.
  s = await spawnCliSandbox(["--port", "0", "--data", ":memory:", "--seed", "demo"]);
  port = new URL(s.url).port;
  before = await controlClient(s.url).createAccount({ email: "before@shop.test", balance: 7 });
});

afterAll(async () => {
  await s?.stop();
});

/** A request line and headers for the sandbox, with the Host a local tool sends unless given. */
const head = (requestLine: string, headers: Record<string, string> = {}) =>
  [
    requestLine,
    ...Object.entries({ Host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");

/** The database is intact: the account made before still answers, with its balance, and so does the demo one. */
async function expectIntact(): Promise<void> {
  const me = await http(s.url, "GET", "/v1/me", { apiKey: before.apiKey });
  expect(me.status).toBe(200);
  expect(me.json.payload.email).toBe("before@shop.test");
  expect((await controlClient(s.url).ledger(before.apiKey)).balance).toBe(7);
  expect((await http(s.url, "GET", "/v1/me", { apiKey: DEMO_KEY })).status).toBe(200);
}

describe("the control API answers local tools only", () => {
  test("a page's no-cors POST /_sandbox/reset (text/plain, no body) is refused, and nothing is reset", async () => {
    // What a browser sends for fetch(url, { method: "POST", mode: "no-cors" }) from another origin.
    const fromPage = await rawHttp(
      s.url,
      head("POST /_sandbox/reset HTTP/1.1", {
        Origin: "http://localhost:3000",
        "Content-Type": "text/plain;charset=UTF-8",
        "Content-Length": "0",
      }),
    );
    expect(fromPage.status).toBe(403);
    expect(fromPage.json.error).toMatch(/Origin "http:\/\/localhost:3000" is not this sandbox/);
    // The same without Origin (a client that leaves it out): the content type is refused.
    for (const type of [
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
    ]) {
      const r = await rawHttp(
        s.url,
        head("POST /_sandbox/reset HTTP/1.1", { "Content-Type": type, "Content-Length": "0" }),
      );
      expect(r.status, type).toBe(415);
      expect(r.json.error).toContain("Content-Type: application/json");
    }
    const untyped = await rawHttp(s.url, head("POST /_sandbox/reset HTTP/1.1", { "Content-Length": "0" }));
    expect(untyped.status).toBe(415);
    expect(untyped.json).toEqual({
      error: expect.stringMatching(/^Content-Type missing: .*application\/json/),
    });
    // A JSON body sent as text/plain (a form's trick) is refused too, and a path spelled with an
    // escape reaches the same route and the same checks.
    const asText = await rawHttp(
      s.url,
      head("POST /_sandbox/accounts HTTP/1.1", { "Content-Type": "text/plain" }),
      JSON.stringify({ balance: 1000 }),
    );
    expect(asText.status).toBe(415);
    const escaped = await rawHttp(
      s.url,
      head("POST /%5Fsandbox/reset HTTP/1.1", { "Content-Type": "text/plain", "Content-Length": "0" }),
    );
    expect(escaped.status).toBe(415);
    const deleted = await rawHttp(s.url, head("DELETE /_sandbox/faults HTTP/1.1"));
    expect(deleted.status).toBe(415);
    await expectIntact();
  });

  test("a foreign Origin is refused, reads included; the sandbox's own origin is not", async () => {
    for (const origin of [
      "http://localhost:3000",
      "https://evil.example",
      "null",
      `http://evil.example:${port}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${port}.evil.example`,
    ]) {
      const write = await rawHttp(
        s.url,
        head("POST /_sandbox/reset HTTP/1.1", { Origin: origin, "Content-Type": "application/json" }),
      );
      expect(write.status, origin).toBe(403);
      expect(write.json.error).toContain("it answers local tools, not web pages");
      const read = await rawHttp(
        s.url,
        head(`GET /_sandbox/ledger?apiKey=${DEMO_KEY} HTTP/1.1`, { Origin: origin }),
      );
      expect(read.status, origin).toBe(403);
    }
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]) {
      const own = await rawHttp(s.url, head("GET /_sandbox/clock HTTP/1.1", { Origin: origin }));
      expect(own.status, origin).toBe(200);
    }
    await expectIntact();
  });

  test("a rebound DNS name in Host is refused (403); the loopback names with the port are not", async () => {
    for (const host of [
      `evil.example:${port}`,
      "evil.example",
      `127.0.0.1.nip.io:${port}`,
      `127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`,
      "127.0.0.1",
      `localhost:${port}@evil.example`,
      "",
    ]) {
      const r = await rawHttp(
        s.url,
        head("POST /_sandbox/reset HTTP/1.1", { Host: host, "Content-Type": "application/json" }),
      );
      expect(r.status, host).toBe(403);
      expect(r.json.error).toMatch(/^Host .* is not this sandbox: call it by the address it listens on/);
      const read = await rawHttp(
        s.url,
        head(`GET /_sandbox/ledger?apiKey=${DEMO_KEY} HTTP/1.1`, { Host: host }),
      );
      expect(read.status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const r = await rawHttp(s.url, head("GET /_sandbox/clock HTTP/1.1", { Host: host }));
      expect(r.status, host).toBe(200);
    }
    await expectIntact();
  });

  test("local tools keep working: JSON writes with and without a body, reads, and /v1 from Node", async () => {
    const control = controlClient(s.url);
    const { id } = await control.addFault({ path: "/v1/nothing-here", kind: "status", status: 503 });
    expect((await control.listFaults()).faults.map((f) => f.id)).toEqual([id]);
    await control.clearFaults();
    expect((await control.listFaults()).faults).toEqual([]);
    // curl's spelling, with a parameter on the type.
    const curl = await rawHttp(
      s.url,
      head("POST /_sandbox/clock/advance HTTP/1.1", { "Content-Type": "application/json; charset=utf-8" }),
      JSON.stringify({ seconds: 60 }),
    );
    expect(curl.status).toBe(200);
    // /v1 on loopback: its own Host, an empty body of any type (test/sandbox/operation-rules.test.ts
    // holds the Host and Origin rules of /v1 on every operation).
    const order = await rawHttp(
      s.url,
      head("POST /v1/order HTTP/1.1", { "X-API-KEY": DEMO_KEY, "Content-Type": "application/json" }),
      JSON.stringify({ templateId: s.first.templates.postcard }),
    );
    expect(order.status).toBe(200);
    const orderId = order.json.payload.orderId as number;
    const removed = await rawHttp(
      s.url,
      head(`DELETE /v1/order/${orderId} HTTP/1.1`, {
        "X-API-KEY": DEMO_KEY,
        "Content-Type": "text/plain",
        "Content-Length": "0",
      }),
    );
    expect(removed.status).toBe(200);
    await expectIntact();
  });
});

describe("keys are compared exactly", () => {
  test("a key with a trailing space or a no-break space is another key: 404 (control API), 401 (X-API-KEY)", async () => {
    const control = await http(s.url, "POST", "/_sandbox/deliver", { body: { apiKey: `${DEMO_KEY} ` } });
    expect(control.status).toBe(404);
    expect(control.json).toEqual({ error: "no account has this apiKey" });
    expect((await http(s.url, "GET", `/_sandbox/ledger?apiKey=${DEMO_KEY}%20`)).status).toBe(404);
    expect((await http(s.url, "GET", `/_sandbox/ledger?apiKey=${DEMO_KEY.toUpperCase()}`)).status).toBe(404);
    // HTTP itself drops spaces and tabs around a header's value; a no-break space (byte 0xA0) is
    // part of the value, and was trimmed away by the sandbox before.
    const nbsp = await rawHttp(s.url, head("GET /v1/me HTTP/1.1", { "X-API-KEY": `${DEMO_KEY}\u00a0` }), "", {
      latin1: true,
    });
    expect(nbsp.status).toBe(401);
    expect(nbsp.json.errorCode).toBe("UNAUTHENTICATED");
    const upper = await http(s.url, "GET", "/v1/me", { apiKey: DEMO_KEY.toUpperCase() });
    expect(upper.status).toBe(401);
    expect((await http(s.url, "GET", "/v1/me", { apiKey: DEMO_KEY })).status).toBe(200);
    // A look-alike key cannot be made either: a header could not carry it as it is.
    const lookAlike = await http(s.url, "POST", "/_sandbox/accounts", { body: { apiKey: `${DEMO_KEY} ` } });
    expect(lookAlike.status).toBe(400);
    expect(lookAlike.json.error).toMatch(/^apiKey: a key is visible ASCII characters/);
  });
});

describe("the request log never shows a key", () => {
  test("however the query names it (case, %XX, +, double encoding, repeats, brackets), and never X-API-KEY", async () => {
    const key = `dm_log_${randomBytes(12).toString("hex")}`;
    await controlClient(s.url).createAccount({ apiKey: key, balance: 1 });
    const accepted = [`%61piKey=${key}`, `api%4Bey=${key}`, `api%4bey=${key}`];
    for (const query of accepted) {
      // fastify decodes the name: these reach the account.
      const r = await http(s.url, "GET", `/_sandbox/ledger?${query}`);
      expect(r.status, query).toBe(200);
    }
    const others = [
      `APIKEY=${key}`,
      `ApiKey=${key}&apiKey=${key}`,
      `apiKey[]=${key}`,
      `apikey%5B%5D=${key}`,
      `api+Key=${key}`,
      `%2561piKey=${key}`,
      `%252561piKey=${key}`,
      `x=1&api_key=${key}&y=2`,
      `%41%50%49%4B%45%59=${key}`,
      `apiKey=${key}&apiKey=${key}`,
    ];
    for (const query of others) await http(s.url, "GET", `/_sandbox/ledger?${query}`);
    await http(s.url, "GET", "/v1/me", { apiKey: key });
    await http(s.url, "GET", "/v1/order?pageSize=5", { apiKey: key });
    await new Promise((r) => setTimeout(r, 150));
    const log = s.stderr();
    expect(log).toContain("GET /_sandbox/ledger?%61piKey=*** 200");
    expect(log).toContain("GET /_sandbox/ledger?api%4Bey=*** 200");
    expect(log).toContain("GET /_sandbox/ledger?x=1&api_key=***&y=2 ");
    expect(log).toContain("GET /v1/order?pageSize=5 200");
    expect(log).not.toContain(key);
    expect(log).not.toContain(key.slice(7));
  });
});

describe("on a network address, /v1 gets the same checks, and writes the content type", () => {
  let wide: CliSandbox;
  let base: string;
  let widePort: string;

  beforeAll(async () => {
    wide = await spawnCliSandbox([
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--data",
      ":memory:",
      "--seed",
      "demo",
      "--quiet",
    ]);
    widePort = new URL(wide.url).port;
    base = `http://127.0.0.1:${widePort}`;
  });
  afterAll(async () => {
    await wide?.stop();
  });

  const v1 = (requestLine: string, headers: Record<string, string>) =>
    [requestLine, `X-API-KEY: ${DEMO_KEY}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join(
      "\r\n",
    );

  test("a page's simple POST, a foreign Origin and a rebound Host are refused with the envelope", async () => {
    const body = JSON.stringify({ templateId: wide.first.templates.postcard });
    const host = `127.0.0.1:${widePort}`;
    const textPlain = await rawHttp(
      base,
      v1("POST /v1/order HTTP/1.1", { Host: host, "Content-Type": "text/plain", "Content-Length": "0" }),
    );
    expect(textPlain.status).toBe(415);
    expect(textPlain.json).toMatchObject({
      errorCode: "UNSUPPORTED_MEDIA_TYPE",
      hasErrors: true,
      payload: null,
    });
    const emptyDelete = await rawHttp(base, v1("DELETE /v1/order/1 HTTP/1.1", { Host: host }));
    expect(emptyDelete.status).toBe(415);
    const origin = await rawHttp(
      base,
      v1("POST /v1/order HTTP/1.1", {
        Host: host,
        Origin: "http://evil.example",
        "Content-Type": "application/json",
      }),
      body,
    );
    expect(origin.status).toBe(403);
    expect(origin.json).toMatchObject({ errorCode: "ORIGIN_NOT_ALLOWED", hasErrors: true });
    const rebound = await rawHttp(
      base,
      v1("POST /v1/order HTTP/1.1", { Host: `evil.example:${widePort}`, "Content-Type": "application/json" }),
      body,
    );
    expect(rebound.status).toBe(403);
    expect(rebound.json).toMatchObject({ errorCode: "HOST_NOT_ALLOWED", hasErrors: true });
    expect((await http(base, "GET", "/v1/order", { apiKey: DEMO_KEY })).json.payload.orders).toEqual([]);

    // A local tool: created.
    const made = await http(base, "POST", "/v1/order", { apiKey: DEMO_KEY, body: JSON.parse(body) });
    expect(made.status).toBe(200);
    // The provider's client, whose body-less writes say JSON too.
    const client = new DirectMailClient({ baseUrl: base, apiKey: DEMO_KEY });
    const { orderId } = await client.createOrder({ templateId: wide.first.templates.postcard });
    expect((await client.deleteOrder(orderId)).orderId).toBe(orderId);
    await client.close();
    // Reads too: a rebound page sends X-API-KEY as its own site's header.
    const read = await rawHttp(base, v1("GET /v1/me HTTP/1.1", { Host: `elsewhere:${widePort}` }));
    expect(read.status).toBe(403);
    expect(read.json).toMatchObject({ errorCode: "HOST_NOT_ALLOWED", hasErrors: true });
    expect((await rawHttp(base, v1("GET /v1/me HTTP/1.1", { Host: host }))).status).toBe(200);
    // The control API from this machine, as the clients send it.
    expect((await controlClient(base).clock()).speed).toBe(1);
    const refused = await rawHttp(
      base,
      head("POST /_sandbox/reset HTTP/1.1", {
        Host: host,
        "Content-Type": "text/plain",
        "Content-Length": "0",
      }),
    );
    expect(refused.status).toBe(415);
    // And a reset by a local tool still resets.
    await controlClient(base).reset();
    expect((await http(base, "GET", "/v1/me", { apiKey: DEMO_KEY })).status).toBe(401);
  });
});
