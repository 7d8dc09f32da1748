import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { CHECKOUT, newAccount, newOrder, orderStatus } from "./fixtures";
import { http, recipient, recipients } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe("control API (design brief contract)", () => {
  test("POST /_sandbox/accounts: defaults and every option", async () => {
    const plain = await sb.control.createAccount();
    expect(plain).toMatchObject({ tier: "pro", balance: 0, payment: "succeed" });
    expect(plain.apiKey).toMatch(/^sbx_/);
    expect(plain.profile.email).toMatch(/@sandbox\.test$/);
    const custom = await sb.control.createAccount({
      email: "x@y.test",
      tier: "basic",
      balance: 12.5,
      payment: "hang",
    });
    expect(custom).toMatchObject({
      tier: "basic",
      balance: 12.5,
      payment: "hang",
      profile: { email: "x@y.test" },
    });
    const ledger = await sb.control.ledger(custom.apiKey);
    expect(ledger.balance).toBe(12.5);
    expect(ledger.entries.map((e) => [e.kind, e.method, e.amount])).toEqual([["credit", "balance", 12.5]]);
  });

  test("POST /_sandbox/accounts with a chosen apiKey: that key works; a key taken is 409", async () => {
    const chosen = `dm_test_${Date.now()}`;
    const account = await sb.control.createAccount({ apiKey: chosen, balance: 3 });
    expect(account.apiKey).toBe(chosen);
    const profile = await http(sb.url, "GET", "/v1/me", { apiKey: chosen });
    expect(profile.status).toBe(200);
    expect((await sb.control.ledger(chosen)).balance).toBe(3);
    const taken = await http(sb.url, "POST", "/_sandbox/accounts", { body: { apiKey: chosen } });
    expect(taken.status).toBe(409);
    expect(taken.json.error).toMatch(/already an account's key/);
  });

  test("bad control bodies are 400 with a message; an unknown apiKey is 404", async () => {
    const bad = await http(sb.url, "POST", "/_sandbox/accounts", { body: { tier: "gold" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/tier/);
    const unknown = await http(sb.url, "POST", "/_sandbox/templates", {
      body: { apiKey: "nope", name: "x" },
    });
    expect(unknown.status).toBe(404);
    expect((await http(sb.url, "GET", "/_sandbox/ledger?apiKey=nope")).status).toBe(404);
  });

  test("timed work that fails is rolled back, dropped and logged; later requests and work go on", async () => {
    const lines: string[] = [];
    const own = await startTestSandbox({ log: (line) => lines.push(line) });
    try {
      const a = await newAccount(own);
      own.sandbox.scheduler.on("boom", () => {
        own.sandbox.store.run("UPDATE accounts SET balance = 999");
        throw new Error("handler exploded");
      });
      own.sandbox.scheduler.schedule(new Date(Date.now() - 1000).toISOString(), "boom", 1);
      const orderId = await newOrder(a, 1);
      await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
      await own.control.advanceClock(3);
      expect(await orderStatus(a, orderId)).toBe("Ready For Production");
      expect(lines.join("\n")).toMatch(/timed work boom 1 failed and was dropped: Error: handler exploded/);
      expect((await own.control.ledger(a.apiKey)).balance).toBe(0);
      expect(
        own.sandbox.store.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE kind = 'boom'")?.n,
      ).toBe(0);
    } finally {
      await own.close();
    }
  });

  test("a do-not-mail address is validated like any address (400 naming the field)", async () => {
    const { apiKey } = await sb.control.createAccount();
    const r = await http(sb.url, "POST", "/_sandbox/do-not-mail", {
      body: { apiKey, address1: "1 Main St", city: "Springfield", state: "IL", zip: "12" },
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/^zip: /);
  });

  test("an unexpected failure is a 500 envelope INTERNAL_ERROR, logged, without details for the client", async () => {
    const lines: string[] = [];
    const own = await startTestSandbox({ log: (line) => lines.push(line) });
    try {
      const a = await newAccount(own);
      own.sandbox.accounts.profile = () => {
        throw new Error("disk on fire");
      };
      const r = await a.c.get("/v1/me");
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({
        errorCode: "INTERNAL_ERROR",
        errors: ["unexpected server failure"],
        hasErrors: true,
      });
      expect(JSON.stringify(r.json)).not.toContain("disk on fire");
      expect(lines.join("\n")).toContain("disk on fire");
    } finally {
      await own.close();
    }
  });

  test("a v1 answer that breaks its schema is never sent: a 500 envelope, logged naming the field", async () => {
    const lines: string[] = [];
    const own = await startTestSandbox({ log: (line) => lines.push(line) });
    try {
      const a = await newAccount(own);
      own.sandbox.templates.list = () => [{ id: "not an id" } as any];
      const r = await a.c.get("/v1/templates");
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ errorCode: "INTERNAL_ERROR", errors: ["unexpected server failure"] });
      expect(JSON.stringify(r.json)).not.toContain("not an id");
      expect(lines.join("\n")).toMatch(
        /GET \/v1\/templates \(200\) does not match its schema: payload\[0\]\.id: /,
      );
      // Other answers go on.
      expect((await a.c.get("/v1/me")).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  test("an error answer is written through the error envelope's schema too", async () => {
    const lines: string[] = [];
    const own = await startTestSandbox({ log: (line) => lines.push(line) });
    try {
      const a = await newAccount(own);
      // A profile that breaks its schema: the 200 answer cannot be written, nor the 500 with it.
      own.sandbox.accounts.profile = () => ({ id: "x" }) as any;
      const r = await a.c.get("/v1/me");
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ profile: null, errorCode: "INTERNAL_ERROR", hasErrors: true });
      expect(lines.join("\n")).toMatch(/GET \/v1\/me \(200\) does not match its schema: .*payload\.aadId: /);
    } finally {
      await own.close();
    }
  });

  test("a control answer that breaks its schema is never sent: a 500 { error } naming the field", async () => {
    const own = await startTestSandbox({ log: () => {} });
    try {
      const { apiKey } = await own.control.createAccount();
      own.sandbox.templates.create = () => ({ id: "x" }) as any;
      const r = await http(own.url, "POST", "/_sandbox/templates", { body: { apiKey, name: "Card" } });
      expect(r.status).toBe(500);
      expect(r.json.error).toMatch(/POST \/_sandbox\/templates \(200\) does not match its schema: id: /);
    } finally {
      await own.close();
    }
  });

  test("clock: advance moves time forward and runs what became due; reads without advance follow wall time", async () => {
    const { now: t0 } = await sb.control.clock();
    const { now: t1 } = await sb.control.advanceClock(3600);
    expect(Date.parse(t1) - Date.parse(t0)).toBeGreaterThanOrEqual(3600_000);
    expect(Date.parse(t1) - Date.parse(t0)).toBeLessThan(3600_000 + 5_000);
    const { now: t2 } = await sb.control.clock();
    expect(Date.parse(t2)).toBeGreaterThanOrEqual(Date.parse(t1));
    const bad = await http(sb.url, "POST", "/_sandbox/clock/advance", { body: { seconds: -1 } });
    expect(bad.status).toBe(400);
  });

  test("clock speed: a faster clock settles sooner in wall time", async () => {
    const fast = await startTestSandbox({ speed: 20 });
    try {
      const a = await newAccount(fast);
      const orderId = await newOrder(a, 1);
      await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
      // Settlement is 2 sandbox seconds: 100 ms of wall time at speed 20.
      await new Promise((r) => setTimeout(r, 250));
      expect(await orderStatus(a, orderId)).not.toBe("Payment Needed");
      expect((await fast.control.clock()).speed).toBe(20);
    } finally {
      await fast.close();
    }
  });

  test("the ledger is current without any API request: settlement due on wall time shows in it", async () => {
    const fast = await startTestSandbox({ timings: { settlementSeconds: 0.2 } });
    try {
      const a = await newAccount(fast);
      const orderId = await newOrder(a, 1);
      await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
      await new Promise((r) => setTimeout(r, 400));
      const charges = (await fast.control.ledger(a.apiKey)).entries.filter((e) => e.kind === "charge");
      expect(charges.map((e) => e.outcome)).toEqual(["succeeded"]);
    } finally {
      await fast.close();
    }
  });

  test("settlementSeconds is configurable", async () => {
    const slow = await startTestSandbox({
      timings: { settlementSeconds: 60, settlementExpectedWithinSeconds: 90 },
    });
    try {
      const a = await newAccount(slow);
      const orderId = await newOrder(a, 1);
      const r = await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
      expect(r.json.payload.settlementExpectedWithinSeconds).toBe(90);
      await slow.control.advanceClock(59);
      expect(await orderStatus(a, orderId)).toBe("Payment Needed");
      await slow.control.advanceClock(1);
      expect(await orderStatus(a, orderId)).toBe("Ready For Production");
    } finally {
      await slow.close();
    }
  });

  test("reset empties everything: keys stop working, faults are cleared, ids start again", async () => {
    const own = await startTestSandbox();
    try {
      const a = await newAccount(own);
      const first = await newOrder(a, 1);
      await own.control.addFault({ path: "/v1/me", kind: "status", status: 500 });
      await own.control.advanceClock(86400);
      await own.control.reset();
      expect((await http(own.url, "GET", "/v1/me", { apiKey: a.apiKey })).status).toBe(401);
      expect((await own.control.listFaults()).faults).toEqual([]);
      const b = await newAccount(own);
      expect((await b.c.get("/v1/me")).status).toBe(200);
      expect(await newOrder(b)).toBe(first);
      const drift = Date.parse((await own.control.clock()).now) - Date.now();
      expect(Math.abs(drift)).toBeLessThan(5_000);
    } finally {
      await own.close();
    }
  });

  test("setOrderState and updateAccount (extensions) change what the public API sees", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    const state = await sb.control.setOrderState(orderId, { apiKey: a.apiKey, status: "Needs Edits" });
    expect(state).toMatchObject({ orderId, status: "Edits Needed" });
    expect(
      (await a.c.get("/v1/order?status=Needs%20Edits")).json.payload.orders.map((o: any) => o.orderId),
    ).toEqual([orderId]);
    const updated = await sb.control.updateAccount({ apiKey: a.apiKey, balance: 40, payment: "fail" });
    expect(updated).toMatchObject({ balance: 40, payment: "fail" });
  });

  test("the control API answers loopback clients only", async () => {
    const { Sandbox } = await import("../../sandbox/sandbox.js");
    const remote = new Sandbox({ storage: ":memory:", log: () => {} });
    try {
      const r = await remote.app.inject({
        method: "POST",
        url: "/_sandbox/reset",
        headers: { "content-type": "application/json" },
        remoteAddress: "192.0.2.10",
      });
      expect(r.statusCode).toBe(403);
      const local = await remote.app.inject({
        method: "POST",
        url: "/_sandbox/reset",
        headers: { "content-type": "application/json" },
        remoteAddress: "127.0.0.1",
      });
      expect(local.statusCode).toBe(200);
    } finally {
      await remote.close();
    }
  });
});

describe("delivery and scans (extensions behind `directmail sandbox deliver` and `scan`)", () => {
  const DAY = 86_400_000;

  test("deliver runs the clock step by step until the paid order's pieces have all arrived", async () => {
    const a = await newAccount(sb, { balance: 100 });
    const created = await a.c.post("/v1/order", { templateId: a.qrTemplateId });
    const orderId = created.json.payload.orderId as number;
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [
        ...recipients(2),
        // A multi-unit building without a unit (DPV D) comes back undeliverable.
        recipient({ firstName: "Unit", lastName: "Less", address1: "9 Harbor Towers" }),
      ],
    });
    const draft = await newOrder(a, 1);
    expect((await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT)).status).toBe(200);
    const before = Date.parse((await sb.control.clock()).now);

    const result = await sb.control.deliver(a.apiKey);
    expect(result.orders).toEqual([
      { orderId, status: "Complete", totalCards: 3, delivered: 2, undeliverable: 1, waiting: null },
    ]);
    // Settlement (2 s), mailing 3 days after Ready For Production, the end of Standard's 5-day window.
    const moved = Date.parse(result.now) - Date.parse(result.from);
    expect(moved).toBeGreaterThanOrEqual(8 * DAY);
    expect(moved).toBeLessThan(8 * DAY + 60_000);
    expect(Date.parse(result.from)).toBeGreaterThanOrEqual(before);
    expect(await orderStatus(a, orderId)).toBe("Complete");
    expect(await orderStatus(a, draft)).toBe("Draft");

    // Nothing left on its way: the clock stays.
    const again = await sb.control.deliver(a.apiKey);
    expect(again.orders).toEqual([]);
    expect(Date.parse(again.now) - Date.parse(again.from)).toBeLessThan(60_000);
  });

  test("deliver stops at the clock's end with a 409 naming it and the orders left; control calls take turns", async () => {
    const own = await startTestSandbox({ speed: 0 });
    try {
      const a = await newAccount(own, { balance: 100 });
      const soon = await newOrder(a, 1);
      const held = await newOrder(a, 1);
      expect((await a.c.post(`/v1/order/${soon}/checkout`, CHECKOUT)).status).toBe(200);
      // Held until two days before the clock's end: mailed three days later, after it.
      const hold = "2999-12-30T00:00:00.000Z";
      const checkout = await a.c.post(`/v1/order/${held}/checkout`, { ...CHECKOUT, holdUntilDate: hold });
      expect(checkout.status).toBe(200);
      // A reset and a clock step sent meanwhile wait for the delivery, then run in turn.
      const [refused, step, reset] = await Promise.all([
        http(own.url, "POST", "/_sandbox/deliver", { body: { apiKey: a.apiKey } }),
        http(own.url, "POST", "/_sandbox/clock/advance", { body: { seconds: 1 } }),
        http(own.url, "POST", "/_sandbox/reset", { body: {} }),
      ]);
      expect(refused.status).toBe(409);
      expect(refused.json.error).toBe(
        "deliver stopped at the end of the sandbox clock (2999-12-31T23:59:59.000Z): the next step is due at " +
          `3000-01-02T00:00:00.000Z, after it; 1 of 2 orders are not Complete: order ${held} (In Production). ` +
          "The steps before it ran and the clock is now 2999-12-30T01:00:00.000Z; an order held until after the " +
          "clock's end is never mailed in the sandbox",
      );
      expect(step.json).toEqual({ now: "2999-12-30T01:00:01.000Z" });
      // The reset ran last: the clock is back to wall time.
      expect(reset.status).toBe(200);
      expect(Math.abs(Date.parse((await own.control.clock()).now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await own.close();
    }
  });

  test("deliver refuses a draft and a template, names a payment that hangs, and 404s a foreign order", async () => {
    const a = await newAccount(sb, { balance: 100, payment: "hang" });
    const draft = await newOrder(a, 1);
    const refused = await http(sb.url, "POST", "/_sandbox/deliver", {
      body: { apiKey: a.apiKey, orderId: draft },
    });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe(
      `order ${draft} is Draft: an order is mailed once its checkout is paid; give its campaign a checkout: section and run pulumi up, then deliver it`,
    );
    const template = await http(sb.url, "POST", "/_sandbox/deliver", {
      body: { apiKey: a.apiKey, orderId: a.templateId },
    });
    expect(template.json).toEqual({ error: `order ${a.templateId} is a template, which is never mailed` });
    await a.c.post(`/v1/order/${draft}/checkout`, CHECKOUT);
    expect((await sb.control.deliver(a.apiKey, draft)).orders).toEqual([
      {
        orderId: draft,
        status: "Payment Needed",
        totalCards: 1,
        delivered: 0,
        undeliverable: 0,
        waiting: "its payment hangs: the account's payment behaviour is hang",
      },
    ]);
    const other = await newAccount(sb);
    const foreign = await http(sb.url, "POST", "/_sandbox/deliver", {
      body: { apiKey: other.apiKey, orderId: draft },
    });
    expect(foreign.status).toBe(404);
    const bad = await http(sb.url, "POST", "/_sandbox/deliver", { body: { apiKey: a.apiKey, orderId: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^orderId: /);
  });

  test("scan spreads scans over the mailed pieces, at once; a draft, an order without QR and a bad count are refused", async () => {
    const a = await newAccount(sb, { balance: 100 });
    const created = await a.c.post("/v1/order", { templateId: a.qrTemplateId });
    const orderId = created.json.payload.orderId as number;
    await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(3) });
    const notYet = await http(sb.url, "POST", `/_sandbox/orders/${orderId}/scans`, {
      body: { apiKey: a.apiKey, count: 2 },
    });
    expect(notYet.json).toEqual({
      error: `order ${orderId} is Draft: its pieces are not mailed yet, so nobody can scan them; deliver it first (directmail sandbox deliver ${orderId})`,
    });
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    await sb.control.deliver(a.apiKey, orderId);

    expect(await sb.control.scan(orderId, { apiKey: a.apiKey, count: 5 })).toEqual({
      orderId,
      recorded: 5,
      recipients: 3,
      totalScans: 5,
    });
    expect(await sb.control.scan(orderId, { apiKey: a.apiKey })).toMatchObject({
      recorded: 1,
      totalScans: 6,
    });
    const analytics = (await a.c.get(`/v1/order/analytics?id=${orderId}`)).json.payload.orders[0];
    expect(analytics.qrCode.totalScans).toBe(6);
    expect(analytics.qrCode.recipients.map((r: any) => r.totalScans)).toEqual(["3", "2", "1"]);

    for (const count of [0, 100_001, 1.5, "5"]) {
      const bad = await http(sb.url, "POST", `/_sandbox/orders/${orderId}/scans`, {
        body: { apiKey: a.apiKey, count },
      });
      expect(bad.status, String(count)).toBe(400);
      expect(bad.json.error).toMatch(/^count: /);
    }
    const plain = await newOrder(a, 1);
    await a.c.post(`/v1/order/${plain}/checkout`, CHECKOUT);
    await sb.control.deliver(a.apiKey, plain);
    const noQr = await http(sb.url, "POST", `/_sandbox/orders/${plain}/scans`, {
      body: { apiKey: a.apiKey },
    });
    expect(noQr.json).toEqual({ error: `order ${plain} prints no QR code, so nobody can scan it` });
  });
});

describe("timed work in slices", () => {
  test("a clock step that makes a second of work due runs it in slices: /v1/me answers meanwhile, and the step answers once all of it ran", async () => {
    const own = await startTestSandbox();
    try {
      const a = await newAccount(own);
      let ran = 0;
      own.sandbox.scheduler.on("slow", () => {
        const until = performance.now() + 2;
        while (performance.now() < until) {
          // Work that holds the process, as settling a large order does.
        }
        ran += 1;
      });
      const due = new Date(Date.now() + 30_000).toISOString();
      for (let i = 0; i < 500; i++) own.sandbox.scheduler.schedule(due, "slow", i);
      let stepped = false;
      const step = own.control.advanceClock(60).then(() => {
        stepped = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const me = await http(own.url, "GET", "/v1/me", { apiKey: a.apiKey });
      const meanwhile = ran;
      const answeredBeforeStep = !stepped;
      await step;
      expect(me.status).toBe(200);
      // Answered between slices, while the step's work was under way, before the step answered.
      expect(meanwhile).toBeGreaterThan(0);
      expect(meanwhile).toBeLessThan(500);
      expect(answeredBeforeStep).toBe(true);
      expect(ran).toBe(500);
    } finally {
      await own.close();
    }
  });
});
