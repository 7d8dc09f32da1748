/** `directmail status`: the delivery progress in words, the table, and how --recipient is read. */
import { describe, expect, it } from "vitest";
import { deliveryText, formatStatusTable, type OrderStatusReport } from "../../../cli/commands/status";
import { recipientQuery } from "../../../cli/stack/targets";

function report(patch: Partial<OrderStatusReport["delivery"]>, extra: Partial<OrderStatusReport> = {}) {
  return {
    orderId: 12,
    campaign: "spring",
    status: "Mailed",
    found: true,
    paidDate: "2026-11-20T10:00:00.000Z",
    delivery: {
      totalCards: 10,
      waitingUSPS: 0,
      mailed: 0,
      inTransit: 0,
      localFacility: 0,
      delivered: 0,
      undeliverable: 0,
      estimatedMin: "2026-11-26T10:00:00.000Z",
      estimatedMax: "2026-11-28T10:00:00.000Z",
      ...patch,
    },
    qrScans: { total: 7, lastScan: null },
    transactions: { count: 2, charged: 25, credited: 0, entries: [] },
    ...extra,
  } satisfies OrderStatusReport;
}

describe("directmail status", () => {
  it("words every delivery stage that holds a piece, and the expected date before the mailing", () => {
    expect(
      deliveryText(
        report({ delivered: 5, waitingUSPS: 1, mailed: 1, inTransit: 1, localFacility: 1, undeliverable: 1 }),
      ),
    ).toBe(
      "5/10 delivered, 1 waiting on USPS, 1 mailed, 1 in transit, 1 at the local facility, 1 undeliverable",
    );
    expect(deliveryText(report({}))).toBe("10 pieces, not mailed yet (delivery expected by 2026-11-28)");
    expect(deliveryText(report({ totalCards: 1 }, { paidDate: null }))).toBe("1 piece, not mailed");
    expect(deliveryText(report({}, { found: false }))).toBe("-");
  });

  it("aligns the table and adds one line per --recipient answer", () => {
    const who = {
      orderId: 12,
      recipientId: 40,
      firstName: "Ada",
      lastName: "Lovelace",
      address1: "1 MAIN ST",
      deliveryStatus: "Delivered",
      updatedDate: "2026-11-27T10:00:00.000Z",
    };
    expect(
      formatStatusTable([
        report({ delivered: 10 }, { recipient: who }),
        report(
          {},
          {
            orderId: 1234567,
            campaign: null,
            status: "NotFound",
            found: false,
            paidDate: null,
            recipient: null,
          },
        ),
      ]),
    ).toBe(
      [
        "ORDER    CAMPAIGN  STATUS                                   PAID        SCANS  CHARGED    TRANSACTIONS  DELIVERY",
        "12       spring    Mailed                                   2026-11-20  7      25.00 USD  2             10/10 delivered",
        "1234567  -         NotFound (not an order of this account)  -           -      -          -             -",
        "order 12, recipient 40 (Ada Lovelace): Delivered since 2026-11-27T10:00:00.000Z",
        "order 1234567: no recipient matches",
      ].join("\n"),
    );
  });

  it("reads --recipient as a name, or as an address line when it has a digit", () => {
    expect(recipientQuery(" Ada  Lovelace ")).toEqual({ firstName: "Ada", lastName: "Lovelace" });
    expect(recipientQuery("Mary Ann Smith")).toEqual({ firstName: "Mary Ann", lastName: "Smith" });
    expect(recipientQuery("100 Main Street")).toEqual({ address1: "100 Main Street" });
    expect(recipientQuery("Cher")).toEqual({ address1: "Cher" });
  });
});
