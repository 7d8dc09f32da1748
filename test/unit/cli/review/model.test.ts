/** The review's rules: each campaign's action, its ⚠ flags and problems, and the exit code. */
import { describe, expect, it } from "vitest";
import {
  actionsOf,
  type CampaignFacts,
  EXIT,
  exitCodeOf,
  reviewCampaign,
} from "../../../../cli/review/model";
import type { PlannedStep } from "../../../../cli/review/plan";
import type { CampaignDocument } from "../../../../provider/index";

function step(kind: string, op: string, extra: Partial<PlannedStep> = {}): PlannedStep {
  const type = kind === "Campaign" ? "directmail:index:Campaign" : `pulumi-nodejs:dynamic/directmail:${kind}`;
  return {
    op,
    urn: `urn:pulumi:s::p::${type}::x`,
    type,
    name: "x",
    kind,
    campaign: "x",
    newInputs: undefined,
    retained: false,
    ...extra,
  };
}

function doc(checkout?: { maxTotal?: number }, retain?: boolean): CampaignDocument {
  return {
    apiVersion: "directmail/v1",
    kind: "Campaign",
    metadata: { name: "x" },
    spec: {
      order: { templateId: 1 },
      recipients: { file: "x.csv" },
      ...(checkout ? { checkout: { postageType: "Standard", productionSpeed: "Normal", ...checkout } } : {}),
      ...(retain ? { retain } : {}),
    },
  };
}

function facts(extra: Partial<CampaignFacts>): CampaignFacts {
  return {
    name: "x",
    file: "campaigns/x.yaml",
    steps: [],
    diagnostics: [],
    planned: true,
    base: undefined,
    head: undefined,
    orderId: 7,
    orderStatus: "Draft",
    deployedCheckout: undefined,
    drops: undefined,
    recipients: undefined,
    quote: undefined,
    proof: undefined,
    notes: [],
    ...extra,
  };
}

const preview = (total: number, credits = 0) => ({
  orderId: 7,
  status: "Success",
  lineItems: [
    {
      tax: 0,
      rate: 2.5,
      total,
      name: "Handwritten Postcard",
      quantity: total / 2.5,
      transactionType: "LineItemDebit",
      transactionSubType: "HandWrittenPostCard",
      subItems: [],
    },
  ],
  credits: [],
  totalCharges: total,
  totalTax: 0,
  totalCredits: credits,
  balance: total - credits,
  productionSpeeds: { Normal: null, ExpeditedFaster: null, ExpeditedFastest: null, HailTrace: null },
  productionSpeedPrices: {},
  postageTypePrices: {},
  estimatedDeliveryDateMin: null,
  estimatedDeliveryDateMax: null,
});
const terms = { postageType: "Standard", productionSpeed: "Normal", autoBill: true, maxTotal: 10 };

describe("a campaign's action", () => {
  it("follows the plan: create, update, pay, retire, delete, no change", () => {
    const of = (steps: PlannedStep[], orderStatus = "Draft") => actionsOf(facts({ steps, orderStatus }));
    expect(
      of([step("Order", "create"), step("OrderRecipients", "create"), step("Checkout", "create")]),
    ).toEqual(["create", "pay"]);
    expect(of([step("Order", "same"), step("OrderRecipients", "update")])).toEqual(["update"]);
    expect(of([step("Order", "same"), step("OrderRecipients", "same"), step("Checkout", "create")])).toEqual([
      "pay",
    ]);
    expect(of([step("Order", "same"), step("OrderRecipients", "same")])).toEqual(["no change"]);
    expect(of([step("Order", "delete"), step("OrderRecipients", "delete")], "Paid")).toEqual(["retire"]);
    expect(of([step("Order", "delete"), step("OrderRecipients", "delete")], "Draft")).toEqual(["delete"]);
    expect(of([step("Order", "delete", { retained: true })], "Draft")).toEqual(["retire"]);
    // A paid order's checkout changing its guard records the guard; it charges nothing.
    expect(of([step("Order", "same"), step("Checkout", "update")], "Paid")).toEqual(["update"]);
    // On an order whose payment failed (back in Draft), the updated checkout pays.
    expect(of([step("Order", "same"), step("Checkout", "update")], "Draft")).toEqual(["pay"]);
    expect(of([step("Order", "replace")], "Draft")).toEqual(["create", "delete"]);
  });

  it("follows the files when the preview did not reach the campaign", () => {
    const of = (extra: Partial<CampaignFacts>) => actionsOf(facts({ planned: false, ...extra }));
    expect(of({ head: doc({ maxTotal: 5 }), orderId: undefined, orderStatus: undefined })).toEqual([
      "create",
      "pay",
    ]);
    expect(of({ base: doc(), head: doc({ maxTotal: 5 }) })).toEqual(["pay"]);
    expect(of({ base: doc(), head: doc() })).toEqual(["no change"]);
    expect(of({ base: doc({}), orderStatus: "Paid" })).toEqual(["retire"]);
    expect(of({ base: doc(undefined, true), orderStatus: "Draft" })).toEqual(["retire"]);
    expect(of({ base: doc(), orderStatus: "Draft" })).toEqual(["delete"]);
  });
});

describe("flags, problems and the exit code", () => {
  it("a checkout is flagged with its exact price; above maxTotal it is a problem as well", () => {
    const steps = [step("Order", "same"), step("Checkout", "create")];
    const within = reviewCampaign(facts({ steps, quote: { preview: preview(5, 2), terms } }));
    expect(within.flags).toEqual([{ kind: "checkout", detail: "pays 5.00 USD for 2 pieces (order 7)" }]);
    expect(within.problems).toEqual([]);
    expect(within.price).toMatchObject({
      kind: "quote",
      quote: { total: 5, recipients: 2, coveredByBalance: 2, toPaymentMethod: 3, aboveMaxTotal: false },
    });
    const above = reviewCampaign(facts({ steps, quote: { preview: preview(12.5), terms } }));
    expect(above.problems).toEqual([
      "the checkout of order 7 would charge 12.50 USD, more than maxTotal 10.00 USD: `pulumi up` refuses it, " +
        "charging nothing. Raise maxTotal if that is intended, or change the order.",
    ]);
    // The Checkout's own refusal in the preview is the same problem, said once.
    const refusedTwice = reviewCampaign(
      facts({
        steps,
        quote: { preview: preview(12.5), terms },
        diagnostics: [
          { severity: "error", message: "would charge 12.5", urn: "u", kind: "Checkout", campaign: "x" },
        ],
      }),
    );
    expect(refusedTwice.problems).toEqual(above.problems);
    expect(exitCodeOf({ campaigns: [within], validation: [], problems: [] })).toBe(EXIT.needsApproval);
    expect(exitCodeOf({ campaigns: [within, above], validation: [], problems: [] })).toBe(EXIT.problems);
  });

  it("a checkout of an order not created yet is flagged, its price known after the draft", () => {
    const r = reviewCampaign(
      facts({
        steps: [step("Order", "create"), step("Checkout", "create")],
        orderId: undefined,
        orderStatus: undefined,
      }),
    );
    expect(r.price).toEqual({ kind: "after-draft" });
    expect(r.flags.map((f) => f.kind)).toEqual(["checkout"]);
    expect(r.notes[0]).toMatch(
      /^the price is known once the draft is applied: merge the campaign without `checkout:`/,
    );
  });

  it("a paid order leaving the stack is flagged; a draft deleted is not", () => {
    const leaving = [step("Order", "delete"), step("Checkout", "delete")];
    expect(reviewCampaign(facts({ steps: leaving, orderStatus: "Paid" })).flags).toEqual([
      {
        kind: "paid-order-leaves",
        detail: 'order 7 is "Paid": it stays at the service and leaves this stack',
      },
    ]);
    expect(reviewCampaign(facts({ steps: leaving, orderStatus: "Draft" })).flags).toEqual([]);
  });

  it("a resource that sends recipients to an automation is flagged by its kind, whatever its name", () => {
    const steps = [step("AutomationRecipients", "update", { name: "x-walk-ins" })];
    expect(reviewCampaign(facts({ steps })).flags).toEqual([
      { kind: "automation-recipients", detail: "AutomationRecipients x-walk-ins (update)" },
    ]);
  });

  it("AutomationRecipients and ProximitySearch are flagged; the Automation component that groups them is not", () => {
    const steps = [
      step("AutomationRecipients", "create", { name: "welcome-recipients" }),
      step("ProximitySearch", "create", { name: "welcome-search-around" }),
      { ...step("Automation", "create", { name: "welcome" }), type: "directmail:index:Automation" },
      step("AutomationRecipients", "same", { name: "other-recipients" }),
    ];
    expect(reviewCampaign(facts({ steps })).flags).toEqual([
      { kind: "automation-recipients", detail: "AutomationRecipients welcome-recipients (create)" },
      { kind: "automation-recipients", detail: "ProximitySearch welcome-search-around (create)" },
    ]);
  });

  it("an address book entry created or replaced is flagged, since the service cannot delete it; one kept or forgotten is not", () => {
    const steps = [
      step("Order", "same"),
      step("AddressBookEntry", "create", { name: "x-address-1a2b" }),
      step("AddressBookEntry", "replace", { name: "x-address-3c4d" }),
      step("AddressBookEntry", "same", { name: "x-address-5e6f" }),
      step("AddressBookEntry", "delete", { name: "x-address-7a8b" }),
    ];
    const r = reviewCampaign(facts({ steps }));
    expect(r.actions).toEqual(["update"]);
    expect(r.flags).toEqual([
      { kind: "address-book-entry", detail: "AddressBookEntry x-address-1a2b (create)" },
      { kind: "address-book-entry", detail: "AddressBookEntry x-address-3c4d (replace)" },
    ]);
    expect(exitCodeOf({ campaigns: [r], validation: [], problems: [] })).toBe(EXIT.needsApproval);
    const kept = reviewCampaign(facts({ steps: [steps[0], steps[3], steps[4]] as PlannedStep[] }));
    expect(kept.flags).toEqual([]);
    expect(exitCodeOf({ campaigns: [kept], validation: [], problems: [] })).toBe(EXIT.nothingToApprove);
  });

  it("the preview's errors are the campaign's problems, its other messages are kept as messages", () => {
    const r = reviewCampaign(
      facts({
        diagnostics: [
          { severity: "error", message: "Order 7 is gone", urn: undefined, kind: "Order", campaign: "x" },
          {
            severity: "info",
            message: "[directmail] planned: 1 added",
            urn: undefined,
            kind: undefined,
            campaign: "x",
          },
        ],
      }),
    );
    expect(r.problems).toEqual(["preview: Order 7 is gone"]);
    expect(r.messages).toEqual(["[directmail] planned: 1 added"]);
    expect(exitCodeOf({ campaigns: [r], validation: [], problems: [] })).toBe(EXIT.problems);
  });

  it("nothing flagged and no problem: exit code 0; a validation problem alone: 1", () => {
    const quiet = reviewCampaign(facts({ steps: [step("Order", "same")] }));
    expect(exitCodeOf({ campaigns: [quiet], validation: [], problems: [] })).toBe(EXIT.nothingToApprove);
    expect(
      exitCodeOf({
        campaigns: [quiet],
        validation: [{ file: "a.yaml", line: 1, column: 1, message: "x" }],
        problems: [],
      }),
    ).toBe(EXIT.problems);
  });
});

describe("the drops predicted after the change", () => {
  const withLimit = (maxDroppedPercent: number): CampaignDocument => {
    const d = doc();
    d.spec.recipients.maxDroppedPercent = maxDroppedPercent;
    return d;
  };
  const predicted = {
    declared: 12,
    dropped: 2,
    rows: [4, 9],
    reasons: [
      { reason: "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number", count: 2 },
    ],
  };

  it("above maxDroppedPercent are a problem before merge, naming both figures and every row: exit 1", () => {
    const review = reviewCampaign(facts({ base: withLimit(10), head: withLimit(10), predicted }));
    expect(review.predicted).toEqual(predicted);
    expect(review.problems).toEqual([
      "after this change the service will drop 2 of 12 recipients (16.7%), more than maxDroppedPercent 10: " +
        "rows 4, 9 (ADDRESS_NOT_VALID 2): merged, `pulumi up` fails on it. Fix or remove those rows, or raise maxDroppedPercent.",
    ]);
    expect(exitCodeOf({ campaigns: [review], validation: [], problems: [] })).toBe(1);
  });

  it("within it, or without one, are shown and refuse nothing", () => {
    for (const head of [withLimit(20), doc()]) {
      const review = reviewCampaign(facts({ base: head, head, predicted }));
      expect(review.problems).toEqual([]);
      expect(exitCodeOf({ campaigns: [review], validation: [], problems: [] })).toBe(0);
    }
  });
});

describe("an offline review", () => {
  const offline = (extra: Partial<CampaignFacts>) =>
    facts({ planned: false, offline: true, orderId: undefined, orderStatus: undefined, ...extra });

  it("takes a campaign at the base as deployed, and one with a checkout at the base as paid", () => {
    expect(actionsOf(offline({ head: doc() }))).toEqual(["create"]);
    expect(actionsOf(offline({ base: doc(), head: doc() }))).toEqual(["no change"]);
    expect(actionsOf(offline({ base: doc(), head: doc({ maxTotal: 50 }) }))).toEqual(["pay"]);
    expect(actionsOf(offline({ base: doc({ maxTotal: 50 }), head: doc({ maxTotal: 50 }) }))).toEqual([
      "no change",
    ]);
    expect(actionsOf(offline({ base: doc() }))).toEqual(["delete"]);
    expect(actionsOf(offline({ base: doc({ maxTotal: 50 }) }))).toEqual(["retire"]);
  });

  it("flags a checkout without asking its price", () => {
    const review = reviewCampaign(offline({ base: doc(), head: doc({ maxTotal: 50 }) }));
    expect(review.price).toEqual({ kind: "offline" });
    expect(review.flags).toEqual([
      { kind: "checkout", detail: "pays for the order, at a price the offline review does not ask" },
    ]);
  });

  it("needs approval when the change alters code, even when its campaign files spend nothing", () => {
    const quiet = reviewCampaign(offline({ base: doc(), head: doc() }));
    const review = { campaigns: [quiet], validation: [], problems: [] };
    expect(exitCodeOf({ ...review, offline: { codeChanges: [] } })).toBe(EXIT.nothingToApprove);
    expect(exitCodeOf({ ...review, offline: { codeChanges: ["index.ts"] } })).toBe(EXIT.needsApproval);
    expect(exitCodeOf({ ...review, problems: ["x"], offline: { codeChanges: ["index.ts"] } })).toBe(
      EXIT.problems,
    );
  });
});
