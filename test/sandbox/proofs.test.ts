import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { expectError, newAccount, newOrder } from "./fixtures";
import { recipient } from "./http";
import { pdfText } from "./pdf-text";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe("proofs (entries 10, 11)", () => {
  test("GET /proof renders a real PDF for the lowest-id recipient not marked do-not-mail, with its merge fields", async () => {
    const a = await newAccount(sb);
    // The template prints custom1 (its merge-field list); custom2 is carried but never printed.
    const { id: templateId } = await sb.control.createTemplate({
      apiKey: a.apiKey,
      name: "Coupon card",
      hasQr: true,
      qrUrl: "https://shop.example.com/offer",
      requiredMergeFields: ["custom1"],
    });
    const orderId = (await a.c.post("/v1/order", { templateId })).json.payload.orderId;
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "1 Skip Street",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [
        recipient({ firstName: "Skipped", lastName: "Person", address1: "1 Skip St", custom1: "x" }),
        recipient({
          firstName: "Grace",
          lastName: "Hopper",
          address1: "2 Navy Way",
          text: "Your coupon: SAVE20",
          custom1: "Gold member",
          custom2: "internal-key-123",
        }),
        recipient({ firstName: "Later", lastName: "One", address1: "3 Navy Way", custom1: "y" }),
      ],
    });
    const r = await a.c.get(`/v1/order/${orderId}/proof`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    expect(r.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(r.bytes.subarray(-8).toString("latin1")).toContain("%%EOF");
    const text = pdfText(r.bytes).join("\n");
    expect(text).toContain("Dear Grace,");
    expect(text).toContain("Your coupon: SAVE20");
    expect(text).toContain("custom1: Gold member");
    expect(text).not.toContain("internal-key-123");
    expect(text).toContain("Grace Hopper");
    expect(text).toContain("2 NAVY WAY");
    expect(text).toContain("SPRINGFIELD, IL 62701-");
    expect(text).toContain("QR: https://shop.example.com/offer");
    expect(text).not.toContain("Skipped");
  });

  test("GET /proof/{recipient} renders that recipient, which must belong to the order", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const other = await newOrder(a, 1);
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [
        recipient({ firstName: "First", address1: "1 Oak Ave" }),
        recipient({ firstName: "Second", address1: "2 Oak Ave" }),
      ],
    });
    const [first, second] = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients;
    const r = await a.c.get(`/v1/order/${orderId}/proof/${second.id}`);
    expect(r.status).toBe(200);
    const text = pdfText(r.bytes).join("\n");
    expect(text).toContain("Dear Second,");
    expect(text).toContain(`recipient ${second.id}`);
    expect(text).not.toContain("Dear First,");
    expect(first.id).toBeLessThan(second.id);
    const foreign = (await a.c.get(`/v1/order/${other}/recipients`)).json.payload.recipients[0].id;
    const wrong = await a.c.get(`/v1/order/${orderId}/proof/${foreign}`);
    expectError(wrong, 404, "NOT_FOUND");
    expect(wrong.headers.get("content-type")).toMatch(/json/);
  });

  test("a recipient marked do-not-mail still gets a proof when asked for by id", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await sb.control.addDoNotMail({
      apiKey: a.apiKey,
      address1: "9 Quiet Rd",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [recipient({ firstName: "Quiet", address1: "9 Quiet Road" })],
    });
    const id = (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients[0].id;
    expect(pdfText((await a.c.get(`/v1/order/${orderId}/proof/${id}`)).bytes).join("\n")).toContain(
      "Dear Quiet,",
    );
    // ...but the order-level proof has nobody to show: the error is JSON, so the status decides how to read.
    const r = await a.c.get(`/v1/order/${orderId}/proof`);
    expectError(r, 400, "NO_MAILABLE_RECIPIENT");
  });

  test("a long message is wrapped over several lines, every word kept in order", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    await a.c.put(`/v1/order/${orderId}/recipients`, {
      recipients: [recipient({ firstName: "Wrap", text: long })],
    });
    const lines = pdfText((await a.c.get(`/v1/order/${orderId}/proof`)).bytes);
    const wrapped = lines.filter((l) => l.startsWith("word"));
    expect(wrapped.length).toBeGreaterThan(2);
    expect(wrapped.join(" ")).toBe(long);
  });

  test("an order with no recipients has no proof (400); a nonexistent order is 404", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    expectError(await a.c.get(`/v1/order/${orderId}/proof`), 400, "NO_MAILABLE_RECIPIENT");
    expectError(await a.c.get("/v1/order/999999/proof"), 404, "NOT_FOUND");
  });
});
