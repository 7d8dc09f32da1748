import { z } from "zod";
import { dateTime, id, int, openEnum } from "./common";

export const IntegrationOrderStatus = openEnum(["Active", "Paused"]).meta({
  id: "IntegrationOrderStatus",
  description: "`Active` is listed; other values are not shown.",
});

/**
 * An integration order (automation). The spec says the listing carries template and configuration
 * details beyond these fields without showing them; `templateId` is this project's assumption.
 */
export const IntegrationOrder = z
  .object({
    id: id(),
    name: z.string(),
    createdDate: dateTime(),
    updatedDate: dateTime(),
    postageType: openEnum(["Standard", "FirstClass"]).nullable(),
    integrationOrderStatus: IntegrationOrderStatus.nullable(),
    templateId: id().nullish().describe("The template it mails; null when none is configured (assumption)."),
    recipientCount: int()
      .nullish()
      .describe("Recipients queued on it, added one by one or found by proximity searches (assumption)."),
    pendingProximitySearches: int()
      .nullish()
      .describe("Proximity searches still discovering addresses (assumption)."),
  })
  .meta({ id: "IntegrationOrder", description: "A standing order that mails each recipient added to it." });
export type IntegrationOrder = z.infer<typeof IntegrationOrder>;

/** Payload of `GET /v1/integration-orders`. */
export const IntegrationOrderList = z
  .array(IntegrationOrder)
  .meta({ id: "IntegrationOrderList", description: "The account's integration orders." });
export type IntegrationOrderList = z.infer<typeof IntegrationOrderList>;

const optText = () => z.string().nullish();

/**
 * Body of `POST /v1/integration-orders/{id}/recipients`. The spec does not show which fields are
 * required, so none is required here; the service rejects an incomplete one with 422 and a reasonCode.
 */
export const IntegrationRecipient = z
  .object({
    id: int().optional(),
    firstName: optText(),
    lastName: optText(),
    toOrganization: optText(),
    address1: optText(),
    address2: optText(),
    city: optText(),
    state: optText(),
    zipCode: optText(),
    country: optText(),
    custom1: optText(),
    custom2: optText(),
    custom3: optText(),
    custom4: optText(),
    custom5: optText(),
    custom6: optText(),
    image1: optText(),
    image2: optText(),
    image3: optText(),
    image4: optText(),
    image5: optText(),
    image6: optText(),
    salutation: optText(),
    birthDay: dateTime().nullish(),
    anniversary: dateTime().nullish(),
    returnTitle: optText(),
    returnFirstName: optText(),
    returnLastName: optText(),
    returnOrganization: optText(),
    returnAddress1: optText(),
    returnAddress2: optText(),
    returnCity: optText(),
    returnState: optText(),
    returnZip: optText(),
    qrUrl: optText(),
    email: optText(),
    fullAddress: optText(),
  })
  .meta({ id: "IntegrationRecipient", description: "A recipient to mail through an integration order." });
export type IntegrationRecipient = z.infer<typeof IntegrationRecipient>;

/** Why an integration recipient was rejected (422). */
export const INTEGRATION_REASON_CODES = [
  "RETURN_ADDRESS_PARTIAL",
  "RETURN_ADDRESS_MISSING_FIELDS",
  "RETURN_NAME_PARTIAL",
  "ORDER_NOT_AVAILABLE",
  "ADDRESS_NOT_VALID",
  "DUPLICATE_RECIPIENT",
  "DO_NOT_MAIL",
  "MISSING_MAIL_MERGE_FIELDS",
  "ORDER_TEMPLATE_MISSING",
] as const;
export const IntegrationReasonCode = openEnum(INTEGRATION_REASON_CODES).meta({
  id: "IntegrationReasonCode",
  description: "Why an integration recipient was rejected.",
});
export type IntegrationReasonCode = z.infer<typeof IntegrationReasonCode>;

/** Payload of a rejected integration recipient add (422). */
export const IntegrationRecipientResult = z
  .object({
    success: z.boolean(),
    errorMessage: z.string(),
    reasonCode: IntegrationReasonCode,
    integrationOrderId: int(),
    recipientDetails: z.object({
      firstName: z.string().nullable(),
      lastName: z.string().nullable(),
      processedAddress: z.string().nullable(),
      addressValidated: z.boolean(),
    }),
  })
  .meta({ id: "IntegrationRecipientResult", description: "Why an integration recipient was rejected." });
export type IntegrationRecipientResult = z.infer<typeof IntegrationRecipientResult>;

export const IntRange = z
  .object({ min: int(), max: int() })
  .refine((r) => r.min <= r.max, { message: "min must not exceed max", path: ["max"] })
  .meta({ id: "IntRange", description: "Inclusive integer range." });

export const ProximityAddress = z
  .object({
    address1: z.string(),
    address2: z.string().nullish(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
    DesiredCount: int().positive(),
  })
  .meta({
    id: "ProximityAddress",
    description: "A centre address and how many neighbours to find around it.",
  });

const RETURN_FIELDS = [
  "ReturnTitle",
  "ReturnFirstName",
  "ReturnLastName",
  "ReturnOrganization",
  "ReturnAddress1",
  "ReturnAddress2",
  "ReturnCity",
  "ReturnState",
  "ReturnZip",
] as const;

/**
 * Body of `POST /v1/integration-orders/{id}-by-proximity` (names exactly as the service spells
 * them). `Name` and `Addresses` are required here; the spec shows no other required field. The
 * return-address rules are checked before sending so the error names the field.
 */
export const ProximityRequest = z
  .object({
    Name: z.string().min(1),
    OwnerOrRenterFilter: int().optional().describe("Enumerated; meanings not shown."),
    PropertyTypeFilter: int().optional().describe("Enumerated; meanings not shown."),
    HouseHoldIncomeFilter: IntRange.optional(),
    LengthOfResidenceFilter: IntRange.optional(),
    YearBuiltFilter: IntRange.optional(),
    HomePriceFilter: IntRange.optional(),
    Addresses: z.array(ProximityAddress).min(1),
    MultiUse: z.boolean().optional().describe("Recipients may be used more than once."),
    ReturnTitle: z.string().optional(),
    ReturnFirstName: z.string().optional(),
    ReturnLastName: z.string().optional(),
    ReturnOrganization: z.string().optional(),
    ReturnAddress1: z.string().optional(),
    ReturnAddress2: z.string().optional(),
    ReturnCity: z.string().optional(),
    ReturnState: z.string().optional(),
    ReturnZip: z.string().optional(),
  })
  .superRefine((body, ctx) => {
    const given = (k: (typeof RETURN_FIELDS)[number]) => body[k] !== undefined && body[k] !== "";
    if (given("ReturnFirstName") !== given("ReturnLastName")) {
      ctx.addIssue({
        code: "custom",
        path: [given("ReturnFirstName") ? "ReturnLastName" : "ReturnFirstName"],
        message: "ReturnFirstName and ReturnLastName are given together",
      });
    }
    if (!given("ReturnAddress1") && RETURN_FIELDS.some((k) => k !== "ReturnAddress1" && given(k))) {
      ctx.addIssue({
        code: "custom",
        path: ["ReturnAddress1"],
        message: "ReturnAddress1 is required when any other return address field is given",
      });
    }
    if (given("ReturnAddress1")) {
      for (const k of ["ReturnCity", "ReturnState", "ReturnZip"] as const) {
        if (!given(k)) {
          ctx.addIssue({
            code: "custom",
            path: [k],
            message: `${k} is required when ReturnAddress1 is given`,
          });
        }
      }
    }
  })
  .meta({ id: "ProximityRequest", description: "Find and mail addresses around the given ones." });
export type ProximityRequest = z.infer<typeof ProximityRequest>;
