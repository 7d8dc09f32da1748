import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CreateOrderResponse,
  DeleteOrderResponse,
  FontListResponse,
  OrderListResponse,
  TemplateListResponse,
} from "../../provider/api/schemas";
import { HANDWRITING_STYLES } from "../../sandbox/assumptions";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { CHECKOUT, expectError, newAccount, newOrder, orderStatus, parsed } from "./fixtures";
import { recipients } from "./http";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe("POST /v1/order (entry 2)", () => {
  test("an order copies the template's design and product, starts in Draft, with no recipients", async () => {
    const a = await newAccount(sb);
    const { id: templateId } = await sb.control.createTemplate({
      apiKey: a.apiKey,
      name: "Spring sale",
      product: "Handwritten Letter",
    });
    const r = await a.c.post("/v1/order", { templateId });
    const body = parsed(CreateOrderResponse, r);
    expect(body.payload.status).toBe("Success");
    const list = parsed(OrderListResponse, await a.c.get(`/v1/order?id=${body.payload.orderId}`));
    expect(list.payload.orders[0]).toMatchObject({
      orderId: body.payload.orderId,
      orderStatus: "Draft",
      product: "Handwritten Letter",
      templateId,
      recipientCount: 0,
    });
  });

  test("useQr on a template with no QR element is rejected", async () => {
    const a = await newAccount(sb);
    for (const useQr of [true, false]) {
      const { errors } = expectError(
        await a.c.post("/v1/order", { templateId: a.templateId, useQr }),
        400,
        "TEMPLATE_HAS_NO_QR",
      );
      expect(errors).toMatch(/^useQr: /);
    }
    expect((await a.c.get("/v1/order")).json.payload.totalCount).toBe(0);
  });

  test("useQr true keeps the template QR target; qrUrl overrides it; useQr false removes it", async () => {
    const a = await newAccount(sb);
    const keep = (await a.c.post("/v1/order", { templateId: a.qrTemplateId, useQr: true })).json.payload
      .orderId;
    const override = (
      await a.c.post("/v1/order", {
        templateId: a.qrTemplateId,
        useQr: true,
        qrUrl: "https://x.example.com/q",
      })
    ).json.payload.orderId;
    const off = (await a.c.post("/v1/order", { templateId: a.qrTemplateId, useQr: false })).json.payload
      .orderId;
    const omitted = (await a.c.post("/v1/order", { templateId: a.qrTemplateId })).json.payload.orderId;
    const qrOf = async (orderId: number) => {
      await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1) });
      return (await a.c.get(`/v1/order/${orderId}/recipients`)).json.payload.recipients[0].metadata.qrUrl;
    };
    expect(await qrOf(keep)).toBe("https://shop.example.com/offer");
    expect(await qrOf(override)).toBe("https://x.example.com/q");
    expect(await qrOf(off)).toBeNull();
    expect(await qrOf(omitted)).toBe("https://shop.example.com/offer");
  });

  test("handwritingFont: a global style is accepted (any case), an uploaded account font and an unknown name are rejected", async () => {
    const a = await newAccount(sb);
    const style = HANDWRITING_STYLES[1] as string;
    expect(
      (await a.c.post("/v1/order", { templateId: a.templateId, handwritingFont: style.toUpperCase() }))
        .status,
    ).toBe(200);
    await sb.control.uploadFont(a.apiKey, "My Own Hand");
    const uploaded = expectError(
      await a.c.post("/v1/order", { templateId: a.templateId, handwritingFont: "My Own Hand" }),
      400,
      "UPLOADED_FONT_NOT_ALLOWED",
    );
    expect(uploaded.errors).toMatch(/^handwritingFont: /);
    expectError(
      await a.c.post("/v1/order", { templateId: a.templateId, handwritingFont: "Comic Sans" }),
      400,
      "UNKNOWN_HANDWRITING_FONT",
    );
  });

  test("qrUrl must be an http(s) URL", async () => {
    const a = await newAccount(sb);
    const { errors } = expectError(
      await a.c.post("/v1/order", {
        templateId: a.qrTemplateId,
        useQr: true,
        qrUrl: "ftp://files.example.com/x",
      }),
      400,
      "INVALID_QR_URL",
    );
    expect(errors).toMatch(/^qrUrl: /);
  });

  test("templateId must be a template of this account", async () => {
    const a = await newAccount(sb);
    const b = await newAccount(sb);
    expectError(await a.c.post("/v1/order", { templateId: b.templateId }), 400, "TEMPLATE_NOT_FOUND");
    expectError(await a.c.post("/v1/order", { templateId: 999_999 }), 400, "TEMPLATE_NOT_FOUND");
    const ordinary = await newOrder(a);
    expectError(await a.c.post("/v1/order", { templateId: ordinary }), 400, "TEMPLATE_NOT_FOUND");
    const { errors } = expectError(await a.c.post("/v1/order", {}), 400);
    expect(errors).toMatch(/^templateId: /);
  });

  test("a template is never fulfilled: append and checkout on its id are refused", async () => {
    const a = await newAccount(sb);
    expectError(
      await a.c.put(`/v1/order/${a.templateId}/recipients`, { recipients: recipients(1) }),
      400,
      "ORDER_IS_TEMPLATE",
    );
    expectError(await a.c.post(`/v1/order/${a.templateId}/checkout`, CHECKOUT), 400, "ORDER_IS_TEMPLATE");
  });
});

describe("GET /v1/order (entry 3)", () => {
  test("filters: id, status, paid (tri-state), product, postage; showRecipients; paging from 1", async () => {
    const a = await newAccount(sb);
    const { id: letterTemplate } = await sb.control.createTemplate({
      apiKey: a.apiKey,
      name: "L",
      product: "Handwritten Letter",
    });
    const draft = await newOrder(a, 2);
    const paid = await newOrder(a, 1);
    const letter = (await a.c.post("/v1/order", { templateId: letterTemplate })).json.payload.orderId;
    await a.c.post(`/v1/order/${paid}/checkout`, { postageType: "FirstClass", productionSpeed: "Normal" });
    await sb.control.advanceClock(5);
    expect(await orderStatus(a, paid)).not.toBe("Payment Needed");

    const ids = async (query: string) => {
      const r = await a.c.get(`/v1/order${query}`);
      return parsed(OrderListResponse, r).payload.orders.map((o) => o.orderId);
    };
    expect(await ids("")).toEqual([draft, paid, letter]);
    expect(await ids("?paid=true")).toEqual([paid]);
    expect(await ids("?paid=false")).toEqual([draft, letter]);
    expect(await ids("?status=Draft")).toEqual([draft, letter]);
    expect(await ids("?status=draft")).toEqual([draft, letter]);
    expect(await ids("?product=Handwritten%20Letter")).toEqual([letter]);
    expect(await ids("?postage=FirstClass")).toEqual([paid]);
    expect(await ids(`?id=${draft}`)).toEqual([draft]);
    expect(await ids("?pageSize=2")).toEqual([draft, paid]);
    expect(await ids("?pageSize=2&pageNumber=2")).toEqual([letter]);
    expect(await ids("?pageSize=2&pageNumber=3")).toEqual([]);

    const page = parsed(OrderListResponse, await a.c.get("/v1/order?pageSize=2"));
    expect(page.payload).toMatchObject({ pageNumber: 1, pageSize: 2, totalCount: 3 });
    const defaults = parsed(OrderListResponse, await a.c.get("/v1/order"));
    expect(defaults.payload).toMatchObject({ pageNumber: 1, pageSize: 100 });
    expect(defaults.payload.orders[0]?.recipients).toBeUndefined();
    const shown = parsed(OrderListResponse, await a.c.get(`/v1/order?id=${draft}&showRecipients=true`));
    expect(shown.payload.orders[0]?.recipients).toHaveLength(2);
  });

  test("pageSize above the maximum of 1000 is 400 naming pageSize", async () => {
    const a = await newAccount(sb);
    expect((await a.c.get("/v1/order?pageSize=1000")).status).toBe(200);
    const { errors } = expectError(await a.c.get("/v1/order?pageSize=1001"), 400);
    expect(errors).toMatch(/^pageSize: /);
  });

  test("templates are not listed as orders", async () => {
    const a = await newAccount(sb);
    expect((await a.c.get("/v1/order")).json.payload.orders).toEqual([]);
  });
});

describe("DELETE /v1/order/{id} (entry 4, state table row 4)", () => {
  test("a Draft order is deleted at once, whatever its size, and then behaves as a nonexistent id everywhere", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 0);
    expect((await a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(5000) })).status).toBe(
      200,
    );
    const r = await a.c.del(`/v1/order/${orderId}`);
    const body = parsed(DeleteOrderResponse, r);
    expect(body.payload).toMatchObject({ orderId, status: "Success" });
    expect(
      sb.sandbox.store.get<{ n: number }>("SELECT count(*) AS n FROM recipients WHERE order_id = ?", orderId)
        ?.n,
    ).toBe(0);

    const gone = [
      a.c.del(`/v1/order/${orderId}`),
      a.c.put(`/v1/order/${orderId}/recipients`, { recipients: recipients(1) }),
      a.c.get(`/v1/order/${orderId}/recipients`),
      a.c.del(`/v1/order/${orderId}/recipients`, { recipientIds: [1] }),
      a.c.get(`/v1/order/${orderId}/checkout`),
      a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT),
      a.c.get(`/v1/order/${orderId}/proof`),
      a.c.get(`/v1/order/${orderId}/proof/1`),
      a.c.get(`/v1/order/${orderId}/recipients/delivery-status?address1=1%20Oak%20Ave`),
    ];
    const never = 987_654;
    const nonexistent = await a.c.del(`/v1/order/${never}`);
    for (const r of await Promise.all(gone)) {
      expectError(r, 404, "NOT_FOUND");
      expect(r.status).toBe(nonexistent.status);
    }
    expect((await a.c.get(`/v1/order?id=${orderId}`)).json.payload.orders).toEqual([]);
    const analytics = await a.c.get(`/v1/order/analytics?id=${orderId}`);
    expect(analytics.json.payload.orders[0].status).toBe("NotFound");
  });

  test("an order in Edits Needed (the rule's 'Needs Edits') can be deleted", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    await sb.control.setOrderState(orderId, { apiKey: a.apiKey, status: "Edits Needed" });
    expect((await a.c.del(`/v1/order/${orderId}`)).status).toBe(200);
  });

  test("orders past Draft are not deletable: the standard invalid-status 400, with reasonCode ORDER_NOT_DELETABLE_STATUS", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a, 1);
    await a.c.post(`/v1/order/${orderId}/checkout`, CHECKOUT);
    // The same errorCode as every other operation refused by status (spec: "the standard 400
    // invalid-status error"); the delete's own reason code is in the payload.
    const inPayment = expectError(await a.c.del(`/v1/order/${orderId}`), 400, "INVALID_ORDER_STATUS");
    expect(inPayment.errors).toBe(
      `order ${orderId} is in status 'Payment Needed'; deleting the order is allowed only in Draft or Needs Edits`,
    );
    expect(inPayment.json.payload).toEqual({
      orderId,
      status: "Failed",
      reasonCode: "ORDER_NOT_DELETABLE_STATUS",
    });
    await sb.control.advanceClock(5);
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
    expectError(await a.c.del(`/v1/order/${orderId}`), 400, "INVALID_ORDER_STATUS");
    expect(await orderStatus(a, orderId)).toBe("Ready For Production");
  });

  test("an order used as an automation template is not deletable", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await sb.control.createIntegrationOrder({ apiKey: a.apiKey, name: "auto", templateId: orderId });
    expectError(await a.c.del(`/v1/order/${orderId}`), 400, "ORDER_USED_AS_AUTOMATION_TEMPLATE");
    expect(await orderStatus(a, orderId)).toBe("Draft");
  });

  test("an order with paid recipient searches is not deletable", async () => {
    const a = await newAccount(sb);
    const orderId = await newOrder(a);
    await sb.control.setOrderState(orderId, { apiKey: a.apiKey, paidRecipientSearches: 1 });
    expectError(await a.c.del(`/v1/order/${orderId}`), 400, "ORDER_HAS_PAID_RECIPIENT_SEARCHES");
  });
});

describe("templates and fonts listings (entries 23, 24; assumed paths)", () => {
  test("GET /v1/templates lists the account's templates with QR and merge-field settings", async () => {
    const a = await newAccount(sb);
    await sb.control.createTemplate({
      apiKey: a.apiKey,
      name: "Needs custom1",
      requiredMergeFields: ["custom1"],
    });
    const body = parsed(TemplateListResponse, await a.c.get("/v1/templates"));
    expect(body.payload.map((t) => t.name)).toEqual(["Plain card", "QR card", "Needs custom1"]);
    expect(body.payload[1]).toMatchObject({
      id: a.qrTemplateId,
      hasQr: true,
      qrUrl: "https://shop.example.com/offer",
    });
    expect(body.payload[2]?.requiredMergeFields).toEqual(["custom1"]);
  });

  test("GET /v1/fonts lists the global handwriting styles and the account's uploads, whose URLs expire in 7 days", async () => {
    const a = await newAccount(sb);
    await sb.control.uploadFont(a.apiKey, "Grandma");
    const r = await a.c.get("/v1/fonts");
    parsed(FontListResponse, r);
    // type, url and urlExpiresAt are beyond the shared schema (which keeps name and displayName).
    const fonts = r.json.payload as any[];
    expect(fonts.filter((f) => f.type === "Global").map((f) => f.name)).toEqual(HANDWRITING_STYLES);
    const upload = fonts.find((f) => f.name === "Grandma");
    expect(upload.type).toBe("Uploaded");
    const now = Date.parse((await sb.control.clock()).now);
    expect(Date.parse(upload.urlExpiresAt) - now).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(Date.parse(upload.urlExpiresAt) - now).toBeLessThanOrEqual(7 * 86400_000);
  });
});
