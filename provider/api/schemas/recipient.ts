import { z } from "zod";
import { count, id, int, openEnum, wholeNumber } from "./common";

const text = () => z.string().nullable();

/** Address group of an order recipient: every key present, each string or null. */
export const RecipientAddress = z
  .object({
    address1: text(),
    address2: text(),
    city: text(),
    state: text(),
    zipCode: text(),
    zip4: text(),
    zip2: text(),
    country: text(),
  })
  .meta({ id: "RecipientAddress", description: "Mailing address of an order recipient." });
export type RecipientAddress = z.infer<typeof RecipientAddress>;

/** Personal group of an order recipient. */
export const RecipientPersonal = z
  .object({
    firstName: text(),
    lastName: text(),
    toOrganization: text(),
    salutation: text(),
  })
  .meta({ id: "RecipientPersonal", description: "Name and organization of an order recipient." });
export type RecipientPersonal = z.infer<typeof RecipientPersonal>;

/** Address deliverability code (`Y` listed; full set not shown). */
export const DpvConfirmationCode = openEnum(["Y", "N", "S", "D"]).meta({
  id: "DpvConfirmationCode",
  description: "Address deliverability code; `Y` is listed, the full set is not shown.",
});

/** Carrier delivery status of a recipient (`Waiting on USPS Info` listed; full set not shown). */
export const DeliveryStatusValue = openEnum([
  "Waiting on USPS Info",
  "Mailed",
  "In Transit",
  "Local Facility",
  "Delivered",
  "Undeliverable",
]).meta({
  id: "DeliveryStatusValue",
  description: "Carrier delivery status; `Waiting on USPS Info` is listed, the full set is not shown.",
});

/**
 * Metadata group of an order recipient: merge fields, variable images (public URLs resolved per
 * recipient at send time, falling back to the template default), return address and tracking.
 * `text`, `text2` and `fullAddress` are strings, never null; every other key is string or null.
 */
export const RecipientMetadata = z
  .object({
    dpvConfirmationCode: DpvConfirmationCode.nullable(),
    custom1: text(),
    custom2: text(),
    custom3: text(),
    custom4: text(),
    custom5: text(),
    custom6: text(),
    image1: text(),
    image2: text(),
    image3: text(),
    image4: text(),
    image5: text(),
    image6: text(),
    salutation: text(),
    returnTitle: text(),
    returnFirstName: text(),
    returnLastName: text(),
    returnOrganization: text(),
    returnAddress1: text(),
    returnAddress2: text(),
    returnCity: text(),
    returnZip: text(),
    returnState: text(),
    email: text(),
    qrUrl: text(),
    radiusPinStreet: text(),
    radiusPinAddress: text(),
    deliveryStatus: DeliveryStatusValue.nullable(),
    text: z.string(),
    text2: z.string(),
    fullAddress: z.string(),
  })
  .meta({ id: "RecipientMetadata", description: "Merge fields, images, return address and tracking." });
export type RecipientMetadata = z.infer<typeof RecipientMetadata>;

/**
 * An order recipient, as appended and as listed: all keys required, nullability as in the spec.
 * On append `id` is assigned by the service; send 0. `newOrderRecipient()` in the client builds a
 * complete record from the fields you have.
 */
export const OrderRecipient = z
  .object({
    id: z.int32().nonnegative().describe("Recipient id; 0 on append, assigned by the service."),
    address: RecipientAddress,
    personal: RecipientPersonal,
    metadata: RecipientMetadata,
  })
  .meta({ id: "OrderRecipient", description: "A recipient of an order." });
export type OrderRecipient = z.infer<typeof OrderRecipient>;

/** Most recipients one append request may carry. */
export const MAX_RECIPIENTS_PER_REQUEST = 5000;

/** Body of `PUT /v1/order/{id}/recipients`. */
export const AppendRecipientsRequest = z
  .object({
    recipients: z
      .array(OrderRecipient)
      .min(1)
      .max(MAX_RECIPIENTS_PER_REQUEST, `at most ${MAX_RECIPIENTS_PER_REQUEST} recipients per request`),
  })
  .meta({ id: "AppendRecipientsRequest", description: "Recipients to append (at most 5,000)." });
export type AppendRecipientsRequest = z.infer<typeof AppendRecipientsRequest>;

/** A recipient the append dropped, with the reason. */
export const UndeliverableRecipient = OrderRecipient.extend({ reason: z.string() }).meta({
  id: "UndeliverableRecipient",
  description: "A submitted recipient that was dropped, with the reason.",
});

/** An issue with one variable image of one recipient. */
export const VariableImageIssue = z
  .object({
    field: z.string().describe("image1..image6"),
    code: openEnum(["IMAGE_BROKEN_LINK"]).describe(
      "`IMAGE_BROKEN_LINK` is listed; the full set is not shown.",
    ),
    message: z.string(),
    httpStatus: int(),
  })
  .meta({ id: "VariableImageIssue" });

/**
 * Payload of an append. `deliverable.addressValidated`, `undeliverable.doNotMail` and
 * `undeliverable.duplicated` are cumulative over the whole order, not just this batch.
 */
export const AppendResult = z
  .object({
    orderId: id(),
    status: z.string(),
    totalRecipients: count(),
    submittedRecipients: count(),
    acceptedRecipients: count(),
    droppedRecipients: count(),
    deliverable: z.object({
      addressValidated: count().describe("Cumulative over the order."),
      addressInvalidated: count(),
    }),
    undeliverable: z.object({
      duplicated: count().describe("Cumulative over the order."),
      doNotMail: count().describe("Cumulative over the order."),
      invalidAddress: count(),
      undeliverableRecipients: z.array(UndeliverableRecipient),
    }),
    variableImages: z.object({
      summary: z.object({
        accepted: count(),
        aspectRatioMismatch: count(),
        lowDpi: count(),
        unsupportedOrBroken: count(),
        missing: count(),
        doesNotExist: count(),
      }),
      recipientsWithIssues: z.array(
        z.object({
          recipientIndex: count().describe("Index in the submitted batch."),
          issues: z.array(VariableImageIssue),
        }),
      ),
    }),
  })
  .meta({ id: "AppendResult", description: "Outcome of an append." });
export type AppendResult = z.infer<typeof AppendResult>;

/**
 * Query of `GET /v1/order/{id}/recipients`. The search parameter's name is not shown by the spec;
 * `search` is this project's assumption (configurable in the client).
 */
export const ListRecipientsQuery = z
  .object({
    search: z.string().min(1).optional().describe("Filter on recipient name, address or organization."),
    pageNumber: wholeNumber({ min: 1 }).optional().describe("Pages count from 1."),
    pageSize: wholeNumber({ min: 1, max: 1000 }).optional().describe("Default 100, maximum 1000."),
  })
  .meta({ id: "ListRecipientsQuery" });
export type ListRecipientsQuery = z.input<typeof ListRecipientsQuery>;

/** Payload of `GET /v1/order/{id}/recipients`. */
export const RecipientList = z
  .object({ orderId: id(), status: z.string(), recipients: z.array(OrderRecipient) })
  .meta({ id: "RecipientList", description: "One page of an order's recipients." });
export type RecipientList = z.infer<typeof RecipientList>;

/** Body of `DELETE /v1/order/{id}/recipients` (shape not shown by the spec; design assumption). */
export const DeleteRecipientsRequest = z
  .object({ recipientIds: z.array(z.int32().positive()).min(1) })
  .meta({ id: "DeleteRecipientsRequest", description: "Ids of the recipients to remove." });
export type DeleteRecipientsRequest = z.infer<typeof DeleteRecipientsRequest>;

/** Payload of `DELETE /v1/order/{id}/recipients`. */
export const DeleteRecipientsResult = z
  .object({
    orderId: id().optional(),
    status: z.string().optional(),
    requestedRecipients: count().describe("Distinct ids submitted."),
    deletedRecipients: count().describe("Rows removed."),
    notFoundRecipientIds: z.array(int()).describe("Submitted ids matching no recipient of the order."),
  })
  .meta({ id: "DeleteRecipientsResult", description: "Outcome of a recipient delete." });
export type DeleteRecipientsResult = z.infer<typeof DeleteRecipientsResult>;

/**
 * Query of the recipient delivery status (entry 25; path and parameters not shown, design
 * assumption): by first and last name together, or by an address line.
 */
export const DeliveryStatusQuery = z
  .object({
    firstName: z.string().min(1).optional(),
    lastName: z.string().min(1).optional(),
    address1: z.string().min(1).optional(),
  })
  .superRefine((q, ctx) => {
    const byName = q.firstName !== undefined || q.lastName !== undefined;
    if (byName && (q.firstName === undefined || q.lastName === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [q.firstName === undefined ? "firstName" : "lastName"],
        message: "firstName and lastName are given together",
      });
    }
    if (!byName && q.address1 === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["address1"],
        message: "give firstName and lastName, or address1",
      });
    }
  })
  .meta({
    id: "DeliveryStatusQuery",
    description: "Identify the recipient by firstName+lastName or by address1.",
  });
export type DeliveryStatusQuery = z.infer<typeof DeliveryStatusQuery>;

/** Payload of the recipient delivery status (design assumption; the spec shows no result shape). */
export const RecipientDeliveryStatus = z
  .object({
    orderId: id(),
    recipientId: id(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    address1: z.string().nullable(),
    deliveryStatus: DeliveryStatusValue.nullable().describe("Latest carrier status; null before any."),
    updatedDate: z.iso.datetime({ offset: true, local: true }).nullable(),
  })
  .meta({ id: "RecipientDeliveryStatus", description: "Latest carrier delivery status of one recipient." });
export type RecipientDeliveryStatus = z.infer<typeof RecipientDeliveryStatus>;
