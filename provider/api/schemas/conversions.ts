import { z } from "zod";
import { dateTime, id, openEnum } from "./common";

export const ConversionAddress = z
  .object({
    fullAddress: z.string().nullish(),
    address1: z.string().nullish(),
    address2: z.string().nullish(),
    city: z.string().nullish(),
    state: z.string().nullish(),
    zipCode: z.string().nullish(),
    country: z.string().nullish(),
  })
  .meta({ id: "ConversionAddress" });

/**
 * A conversion event for matchback (request item, echoed in the response). The spec does not show
 * which fields are required, so none is; e-mails must be e-mail addresses.
 */
export const ConversionRecord = z
  .object({
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
    fullName: z.string().nullish(),
    businessName: z.string().nullish(),
    primaryAddress: ConversionAddress.nullish(),
    secondaryAddress: ConversionAddress.nullish(),
    couponCode: z.string().nullish(),
    primaryPhoneNumber: z.string().nullish(),
    secondaryPhoneNumber: z.string().nullish(),
    primaryEmail: z.email().nullish(),
    secondaryEmail: z.email().nullish(),
    revenue: z.string().nullish().describe("Amount as text."),
    type: openEnum(["Conversion"]).nullish().describe("`Conversion` is listed; the full set is not shown."),
    orderId: z.string().nullish(),
    storeId: z.string().nullish(),
    uniqueId: z.string().nullish(),
    crmId: z.string().nullish(),
    customerId: z.string().nullish(),
    eventDate: dateTime().nullish(),
  })
  .meta({ id: "ConversionRecord", description: "A conversion event for matchback and attribution." });
export type ConversionRecord = z.infer<typeof ConversionRecord>;

/** Most conversion records one request may carry; a larger batch is rejected whole. */
export const MAX_CONVERSIONS_PER_REQUEST = 5000;

/**
 * Body of `POST /v1/conversions`. The service rejects a batch over 5,000 whole, but processes the
 * valid records of a smaller batch even when others are invalid: a server should check the length
 * with this schema and each record with `ConversionRecord` on its own.
 */
export const ConversionBatch = z
  .array(ConversionRecord)
  .min(1)
  .max(MAX_CONVERSIONS_PER_REQUEST, `at most ${MAX_CONVERSIONS_PER_REQUEST} conversion records per request`)
  .meta({ id: "ConversionBatch", description: "Up to 5,000 conversion records." });
export type ConversionBatch = z.infer<typeof ConversionBatch>;

/**
 * Payload of `POST /v1/conversions`: the submitted records echoed as sent, invalid ones included
 * (their problems are in the envelope's `errors` and `warnings`), so the echo is not checked
 * against `ConversionRecord`.
 */
export const ConversionEcho = z
  .array(z.unknown())
  .meta({ id: "ConversionEcho", description: "The submitted records, as sent (valid or not)." });
export type ConversionEcho = z.infer<typeof ConversionEcho>;

/**
 * Processing state of an uploaded conversion. The spec says it reports whether the conversion is
 * matched or pending deletion without naming those fields; `matched` and `pendingDeletion` are this
 * project's names for them.
 */
export const ConversionStatus = z
  .object({
    id: id(),
    fileName: z.string().nullable(),
    dataSourceType: openEnum(["CsvImport", "Api"]).describe(
      "`CsvImport` is listed; the full set is not shown.",
    ),
    status: openEnum(["Processing", "Matched", "PendingDeletion", "Deleted"]).describe(
      "`Processing` is listed; the full set is not shown.",
    ),
    uploadDate: dateTime(),
    matched: z.boolean().optional(),
    pendingDeletion: z.boolean().optional(),
  })
  .meta({ id: "ConversionStatus", description: "Processing state of an uploaded conversion." });
export type ConversionStatus = z.infer<typeof ConversionStatus>;

/** Payload of `DELETE /v1/conversions/{id}`: a message; deletion completes asynchronously. */
export const ConversionDeleteResult = z
  .string()
  .meta({ id: "ConversionDeleteResult", description: "A message; the deletion completes asynchronously." });
