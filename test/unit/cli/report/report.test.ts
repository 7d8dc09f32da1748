/**
 * `directmail report`'s model and page, without a service: the figures each chart takes from the
 * service's analytics and transactions entries, and the HTML drawn from them (escaped, with a table
 * under each chart). The browser test (test/e2e/report.test.ts) checks the drawn charts.
 */
import { describe, expect, it } from "vitest";
import { ordersOf } from "../../../../cli/report/gather";
import { escapeHtml, renderHtml, scriptJson } from "../../../../cli/report/html";
import {
  CARRIER_RETURNS,
  type ChartModel,
  chartsOf,
  type ReportData,
  reportOrder,
  summaryOf,
} from "../../../../cli/report/model";
import type { OrderAnalyticsEntry, OrderTransactionEntry } from "../../../../provider/api/schemas";
import { controlLaden, unsafeCharsIn } from "../../../support/unsafe-chars";

const HOSTILE = "<script>alert(1)</script>";

function analytics(orderId: number, over: Partial<OrderAnalyticsEntry> = {}): OrderAnalyticsEntry {
  return {
    orderId,
    status: "Success",
    qrCode: { totalScans: 0, lastScan: null, recipients: [] },
    totalCards: 0,
    mailed: 0,
    inTransit: 0,
    localFacility: 0,
    delivered: 0,
    undeliverable: 0,
    waitingUSPS: 0,
    paidDate: "2026-05-01T10:00:00Z",
    maxEstimatedDeliveredDate: null,
    minEstimatedDeliveredDate: null,
    postageType: "Standard",
    orderStatus: "Mailed",
    campaignName: "Postcard",
    product: "Postcard",
    productionSpeed: "Normal",
    ...over,
  };
}

function transactions(orderId: number, over: Partial<OrderTransactionEntry> = {}): OrderTransactionEntry {
  const charge = (id: number, amount: number, isCredit: boolean) => ({
    id,
    orderId,
    customerSubscriptionId: null,
    amount,
    description: null,
    createdDate: "2026-05-01T10:00:00Z",
    updatedDate: null,
    profileId: 1,
    transactionType: "LineItemDebit",
    transactionSubType: null,
    isCredit,
    recipientSearchId: null,
    recipientEnrichmentOrderId: null,
    radiusMailOrderId: null,
    hailTraceOrderId: null,
  });
  return {
    orderId,
    status: "Success",
    volume: 4,
    totalPrice: 6.8,
    costPerPiece: 1.7,
    email: "a@example.com",
    product: "Postcard",
    orderStatus: "Mailed",
    orderUpdatedDate: null,
    paidDate: null,
    createdDate: null,
    profileId: 1,
    isCredit: false,
    transactionType: "LineItemDebit",
    transactionSubType: null,
    detail: null,
    discount: null,
    transactions: [charge(1, 6.8, false), charge(2, 0.1, true), charge(3, 0.2, true)],
    ...over,
  };
}

const spring = reportOrder(
  11,
  "spring",
  analytics(11, {
    totalCards: 10,
    waitingUSPS: 1,
    mailed: 1,
    inTransit: 2,
    localFacility: 1,
    delivered: 3,
    undeliverable: 1,
    qrCode: {
      totalScans: 6,
      lastScan: "2026-05-12T08:00:00Z",
      recipients: [
        { id: 1, firstName: "A", lastName: "B", totalScans: "3", lastScan: "2026-05-09T23:59:00Z" },
        { id: 2, firstName: "C", lastName: "D", totalScans: "2", lastScan: "2026-05-12T08:00:00Z" },
        { id: 3, firstName: "E", lastName: "F", totalScans: "1", lastScan: "2026-05-09T01:00:00Z" },
      ],
    },
  }),
  transactions(11),
  {
    accepted: 10,
    dropped: 3,
    reasons: [
      { reason: "DO_NOT_MAIL: the address is on the account's do-not-mail list", count: 1 },
      { reason: "ADDRESS_NOT_VALID: address.zipCode: '1' is not a ZIP", count: 1 },
      { reason: "ADDRESS_NOT_VALID: address1 has no primary (house) number", count: 1 },
    ],
  },
);
const hostile = reportOrder(
  12,
  undefined,
  analytics(12, {
    campaignName: HOSTILE,
    totalCards: 2,
    delivered: 2,
    qrCode: {
      totalScans: 4,
      lastScan: "2026-05-10T12:00:00Z",
      recipients: [
        { id: 9, firstName: "G", lastName: "H", totalScans: "4", lastScan: "2026-05-10T12:00:00Z" },
      ],
    },
  }),
  transactions(12, { volume: 2, totalPrice: 3.4, costPerPiece: 1.7, transactions: [] }),
  undefined,
);
const missing = reportOrder(
  13,
  undefined,
  analytics(13, { status: "NotFound", campaignName: null }),
  transactions(13, { status: "NotFound" }),
  undefined,
);

const data: ReportData = {
  title: `Report of ${HOSTILE}`,
  source: "orders 11, 12, 13",
  service: "http://127.0.0.1:1",
  generatedAt: "2026-05-20T00:00:00Z",
  orders: [spring, hostile, missing],
  notes: [`note on ${HOSTILE}`],
};

const chart = (id: ChartModel["id"]) => chartsOf(data).find((c) => c.id === id) as ChartModel;
const series = (c: ChartModel) => Object.fromEntries(c.series.map((s) => [s.label, s.data]));

describe("the report's figures", () => {
  it("take each order's name from its campaign, else the service's campaign name, else its id", () => {
    expect([spring.name, hostile.name, missing.name]).toEqual(["spring", HOSTILE, "order 13"]);
    expect(missing.error).toBe("NotFound");
    expect(spring.cost).toEqual({
      volume: 4,
      totalPrice: 6.8,
      costPerPiece: 1.7,
      charged: 6.8,
      credited: 0.3,
      spent: 6.5,
    });
  });

  it("count a piece at every stage of the funnel up to its current status; orders the service cannot report on are left out", () => {
    const funnel = chart("funnel");
    expect(funnel.labels).toEqual([
      "Printed",
      "Handed to the carrier",
      "Mailed",
      "In transit",
      "At the local facility",
      "Delivered",
      "Undeliverable",
    ]);
    expect(series(funnel)).toEqual({ spring: [10, 9, 8, 7, 4, 3, 1], [HOSTILE]: [2, 2, 2, 2, 2, 2, 0] });
    expect(funnel.table.rows[0]).toEqual(["Printed", 10, 2, 12, 1]);
    expect(funnel.table.rows[5]).toEqual(["Delivered", 3, 2, 5, 5]);
    expect(funnel.empty).toBeUndefined();
  });

  it("count scans on the day of each recipient's last scan, every day between with a running total", () => {
    const scans = chart("scans");
    expect(scans.labels).toEqual(["2026-05-09", "2026-05-10", "2026-05-11", "2026-05-12"]);
    expect(series(scans)).toEqual({
      spring: [4, 0, 0, 2],
      [HOSTILE]: [0, 4, 0, 0],
      "Total so far": [4, 8, 8, 10],
    });
    expect(scans.table.rows[1]).toEqual(["2026-05-10", 0, 4, 4, 8]);
  });

  it("give each order's cost from its transactions (charges less credits, never its price) and its price per recipient", () => {
    const cost = chart("cost");
    expect(cost.labels).toEqual(["spring", HOSTILE]);
    // The hostile order's price is 3.40, but its transactions charged nothing.
    expect(series(cost)).toEqual({ "Total (USD)": [6.5, 0], "Per recipient (USD)": [1.7, 1.7] });
    expect(cost.table.rows).toEqual([
      ["spring", 4, "6.50 USD", "1.70 USD", "2.17 USD", "6.80 USD", "0.30 USD"],
      [HOSTILE, 2, "0.00 USD", "1.70 USD", "0.00 USD", "0.00 USD", "0.00 USD"],
    ]);
  });

  it("group drops by reason code, most frequent first, then the carrier's returns; orders without a stack's state are named", () => {
    const drops = chart("drops");
    expect(drops.labels).toEqual(["ADDRESS_NOT_VALID", "DO_NOT_MAIL", CARRIER_RETURNS]);
    expect(series(drops)).toEqual({ spring: [2, 1, 1], [HOSTILE]: [0, 0, 0] });
    expect(drops.caption).toContain(`Drops at upload are not known for ${HOSTILE}`);
  });

  it("sum up the orders the service reports on", () => {
    expect(summaryOf(data)).toEqual({
      orders: 2,
      printed: 12,
      delivered: 5,
      undeliverable: 1,
      scans: 10,
      scanningRecipients: 4,
      drafts: [],
      spent: 6.5,
    });
  });

  it("count only paid orders as printed and list drafts apart; spent is what the transactions charged", () => {
    // A draft's analytics count its recipients as cards and its transactions give it a price: it
    // is neither printed nor charged.
    const draft = reportOrder(
      14,
      "autumn",
      analytics(14, { orderStatus: "Draft", totalCards: 7, paidDate: null }),
      transactions(14, { orderStatus: "Draft", volume: 7, totalPrice: 17.5, transactions: [] }),
      undefined,
    );
    const paying = reportOrder(
      15,
      "winter",
      analytics(15, { orderStatus: "Payment Needed", totalCards: 3 }),
      transactions(15, { orderStatus: "Payment Needed", transactions: [] }),
      undefined,
    );
    const withDrafts = { ...data, orders: [spring, draft, paying] };
    expect(summaryOf(withDrafts)).toMatchObject({
      orders: 3,
      printed: 10,
      drafts: [{ name: "autumn", orderId: 14 }],
      spent: 6.5,
    });
    expect(chart("funnel").labels).toEqual(chartsOf(withDrafts)[0]?.labels);
    expect(chartsOf(withDrafts).map((c) => c.series.map((s) => s.label))).toEqual([
      ["spring"],
      ["spring", "Total so far"],
      ["Total (USD)", "Per recipient (USD)"],
      ["spring", "autumn", "winter"],
    ]);
    expect(chartsOf(withDrafts)[2]?.labels).toEqual(["spring"]);
    const page = renderHtml(withDrafts, "window.Chart = function () {};");
    expect(page).toContain("<h2>Drafts</h2>");
    expect(page).toMatch(/id="drafts-table">[\s\S]*<th scope="row">autumn<\/th><td>14<\/td><td>Draft<\/td>/);
    expect(page).not.toMatch(/id="orders-table">[\s\S]*autumn[\s\S]*id="drafts-table"/);
  });

  it("say so when there is nothing to draw", () => {
    const none = chartsOf({
      ...data,
      orders: [
        reportOrder(
          5,
          "draft",
          analytics(5),
          transactions(5, { totalPrice: 0, transactions: [] }),
          undefined,
        ),
      ],
    });
    expect(Object.fromEntries(none.map((c) => [c.id, c.empty]))).toEqual({
      funnel: "No piece has been printed yet.",
      scans: "No QR code has been scanned yet.",
      cost: "Nothing has been paid yet.",
      drops: "No recipient has been dropped.",
    });
  });
});

describe("the report's page", () => {
  const library = "window.Chart = function () {};";
  const html = renderHtml(data, library);

  it("escapes every text of the service and the stack, in the markup and in the inlined figures", () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain(`<title>Report of ${escapeHtml(HOSTILE)}</title>`);
    expect(html).toContain(`<th scope="row">${escapeHtml(HOSTILE)}</th>`);
    expect(html).toContain(`<li>note on ${escapeHtml(HOSTILE)}</li>`);
    expect(html).toContain("\\u003cscript>alert(1)\\u003c/script>");
    expect(escapeHtml(`"'&<>`)).toBe("&quot;&#39;&amp;&lt;&gt;");
    expect(JSON.parse(scriptJson({ a: "</script>" }))).toEqual({ a: "</script>" });
    expect(scriptJson({ a: "</script>\u2028" })).not.toMatch(/<|\u2028/);
  });

  it("shows the control characters of a text as escapes, in the markup and in the charts' labels", () => {
    const text = controlLaden("Postcard");
    expect(unsafeCharsIn(escapeHtml(text), { inLine: true })).toEqual([]);
    expect(escapeHtml("a\u202eb\u001b[2J")).toBe("a\\u202eb\\u001b[2J");
    // The labels a chart draws: escaped in the data itself, not only in its JSON.
    const label: string = JSON.parse(scriptJson({ label: text })).label;
    expect(label).toContain("Postcard\\u001b]0;owned\\u0007\\u001b[2J");
    expect(unsafeCharsIn(label, { inLine: true })).toEqual([]);
  });

  it("has a canvas and a table of figures for each chart, the library inlined and no outside resource", () => {
    for (const id of ["funnel", "scans", "cost", "drops"]) {
      expect(html).toContain(`<canvas id="chart-${id}"`);
      expect(html).toContain(`<table id="figures-${id}">`);
    }
    expect(html).toContain(`<script>${library}</script>`);
    expect(html).not.toMatch(/\b(src|href)=/);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain("not reported: NotFound");
  });

  it("draws no canvas for a chart without figures", () => {
    const empty = renderHtml({ ...data, orders: [missing] }, library);
    expect(empty).not.toContain("<canvas");
    expect(empty).toContain('<p class="empty">No QR code has been scanned yet.</p>');
  });

  it("refuses a library whose source would end its script element", () => {
    expect(() => renderHtml(data, "var s = '</SCRIPT>';")).toThrow(/cannot be inlined/);
  });
});

describe("the orders of a stack", () => {
  const resource = (
    kind: string,
    name: string,
    campaign: string | undefined,
    outputs: Record<string, unknown>,
  ) => ({
    urn: `urn:pulumi:e2e::p::pulumi-nodejs:dynamic:Resource::${name}`,
    type: `pulumi-nodejs:dynamic/directmail:${kind}`,
    name,
    kind,
    campaign,
    outputs,
  });

  it("are its Order resources, named after their campaign (else the resource), with the drops of their recipients", () => {
    const refs = ordersOf([
      resource("Order", "spring", "spring", { orderId: 7, status: "Draft" }),
      resource("OrderRecipients", "spring-recipients", "spring", {
        orderId: 7,
        acceptedCount: 3,
        droppedCount: 2,
        dropReasons: { "DO_NOT_MAIL: on the list": 1, "DUPLICATE: same": 1 },
      }),
      resource("Checkout", "spring-checkout", "spring", { orderId: 7, totalCharges: 5 }),
      resource("Order", "standalone", undefined, { orderId: 8 }),
      // An order whose creation never finished has no id: nothing to report.
      resource("Order", "broken", "broken", {}),
    ]);
    expect(refs).toEqual([
      {
        orderId: 7,
        campaign: "spring",
        drops: {
          accepted: 3,
          dropped: 2,
          reasons: [
            { reason: "DO_NOT_MAIL: on the list", count: 1 },
            { reason: "DUPLICATE: same", count: 1 },
          ],
        },
      },
      { orderId: 8, campaign: "standalone", drops: undefined },
    ]);
  });
});
