/**
 * Who may call the sandbox, against the real `directmail sandbox` process over real sockets: a web
 * page (a no-cors fetch, a foreign Origin, a rebound DNS name) is refused before anything runs,
 * local tools keep working, keys are compared exactly, and the request log never shows a key
 * however its query parameter is spelled.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliSandbox, spawnCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { http, rawHttp } from "./http";

const DEMO_KEY = "sbx_demo_key";

let s: CliSandbox;
let port: string;

beforeAll(async () => {
  // Not --quiet: the request log on stderr is under test.
  s = await spawnCliSandbox(["--port", "0", "--data", ":memory:", "--seed", "demo"]);
  port = new URL(s.url).port;
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
