/**
 * The JSON Schemas in the OpenAPI document say what the zod schemas say: the same wire values
 * pass and fail both. (Ajv is the JSON Schema validator that fastify and the OpenAPI validator use.)
 */
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { buildOpenApiDocument } from "../../../provider/api/openapi";
import * as S from "../../../provider/api/schemas";
import * as F from "./fixtures";

const doc = buildOpenApiDocument("test");
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "directmail", components: doc.components });

function check(id: string, value: unknown): boolean {
  const validate = ajv.getSchema(`directmail#/components/schemas/${id}`);
  if (!validate) throw new Error(`no component ${id}`);
  return validate(value) as boolean;
}

const cases: [string, z.ZodType | undefined, unknown][] = [
  ["MeResponse", S.MeResponse, F.envelope(F.profile)],
  ["AppendRecipientsResponse", S.AppendRecipientsResponse, F.envelope(F.appendResult)],
  ["CheckoutPreviewResponse", S.CheckoutPreviewResponse, F.envelope(F.checkoutPreview)],
  ["CheckoutResponse", S.CheckoutResponse, F.envelope(F.checkoutResult)],
  ["OrderAnalyticsResponse", S.OrderAnalyticsResponse, F.envelope(F.analytics)],
  ["OrderTransactionResponse", S.OrderTransactionResponse, F.envelope(F.transactions)],
  ["IntegrationOrderListResponse", S.IntegrationOrderListResponse, F.envelope([F.integrationOrder])],
  ["ConversionStatusResponse", S.ConversionStatusResponse, F.envelope(F.conversionStatus)],
  ["RecipientDeliveryStatusResponse", S.RecipientDeliveryStatusResponse, F.envelope(F.deliveryStatus)],
  [
    "OrderListResponse",
    S.OrderListResponse,
    F.envelope({
      orders: [{ ...F.orderSummary, recipients: [F.recipient] }],
      pageNumber: 1,
      pageSize: 100,
      totalCount: 1,
    }),
  ],
  ["AppendRecipientsRequest", S.AppendRecipientsRequest, { recipients: [F.recipient] }],
  ["AddressBookEntry", S.AddressBookEntry, F.addressBookEntry],
  ["RecipientStatistic", S.RecipientStatistic, F.statistic],
];

describe("OpenAPI component schemas agree with the zod schemas", () => {
  it.each(cases)("%s accepts what zod accepts", (id, schema, value) => {
    expect(schema?.["~standard"].validate(value)).not.toHaveProperty("issues");
    expect(check(id, value), JSON.stringify(ajv.errors)).toBe(true);
  });

  it("both accept an unknown status (open enumeration) and a new field", () => {
    const value = F.envelope({ ...F.profile, plan: "gold" });
    expect(check("MeResponse", value)).toBe(true);
    const summary = { ...F.orderSummary, orderStatus: "On Hold" };
    expect(S.OrderSummary.safeParse(summary).success).toBe(true);
    expect(check("OrderSummary", summary)).toBe(true);
  });

  it.each([
    [
      "a missing required key",
      "Profile",
      (() => {
        const { email: _e, ...rest } = F.profile;
        return rest;
      })(),
    ],
    ["null where not nullable", "RecipientMetadata", { ...F.recipient.metadata, text: null }],
    ["a malformed date-time", "Profile", { ...F.profile, created: "yesterday" }],
    [
      "a closed enumeration's other value",
      "CheckoutRequest",
      { postageType: "HailTrace", productionSpeed: "Normal" },
    ],
    ["a recipient id beyond int32", "OrderRecipient", { ...F.recipient, id: 2 ** 31 }],
    ["a non-numeric statisticValue", "RecipientStatistic", { ...F.statistic, statisticValue: "1.5" }],
  ])("both reject %s", (_what, id, value) => {
    const schema = (S as unknown as Record<string, z.ZodType>)[id];
    expect(schema?.["~standard"].validate(value)).toHaveProperty("issues");
    expect(check(id, value)).toBe(false);
  });
});
