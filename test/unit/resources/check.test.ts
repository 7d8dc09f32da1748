import { describe, expect, it } from "vitest";
import { checkInputs, UNKNOWN } from "../../../provider/resources/check";
import { CheckoutInputs } from "../../../provider/resources/checkout/inputs";
import { OrderInputs } from "../../../provider/resources/order/inputs";

describe("a resource's check hook", () => {
  it("keeps the input schema's own words for a property", () => {
    expect(checkInputs(OrderInputs, { templateId: "five" }).failures).toEqual([
      { property: "templateId", reason: "templateId must be a whole number: the id of a template order" },
    ]);
  });

  it("says in plain words what the schema leaves to zod: an unknown key with the one meant, a value not allowed", () => {
    expect(checkInputs(OrderInputs, { templateId: 5, qrURL: "https://example.com" }).failures).toEqual([
      {
        property: "",
        reason:
          'unknown key "qrURL" (did you mean "qrUrl"?); allowed keys: templateId, useQr, qrUrl, handwritingFont, existingOrderId',
      },
    ]);
    const checkout = checkInputs(CheckoutInputs, {
      orderId: 1,
      postageType: "Standard",
      productionSpeed: "Slow",
    });
    expect(checkout.failures).toEqual([
      {
        property: "productionSpeed",
        reason: 'must be one of Normal, ExpeditedFaster, ExpeditedFastest; found "Slow"',
      },
    ]);
  });

  it("does not judge a property not known yet (a preview), and passes the inputs on", () => {
    const planned = checkInputs(CheckoutInputs, {
      orderId: UNKNOWN,
      postageType: "Standard",
      productionSpeed: "Normal",
    });
    expect(planned.failures ?? []).toEqual([]);
    // The known inputs get their defaults all the same: a preview compares what `up` will send.
    expect(planned.inputs).toEqual({
      orderId: UNKNOWN,
      postageType: "Standard",
      productionSpeed: "Normal",
      autoBill: true,
    });
    const ok = checkInputs(OrderInputs, { templateId: 5, __provider: "stored" });
    expect(ok).toEqual({ inputs: { templateId: 5 } });
  });
});
