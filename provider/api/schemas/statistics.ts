import { z } from "zod";
import { dateTime, id, int } from "./common";

/** The recipient a QR scan belongs to, as the service describes it. */
export const StatisticRecipient = z
  .object({
    id: id(),
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
    toOrganization: z.string().nullish(),
    fullAddress: z.string().nullish(),
    address1: z.string().nullish(),
    address2: z.string().nullish(),
    city: z.string().nullish(),
    state: z.string().nullish(),
    zipCode: z.string().nullish(),
    country: z.string().nullish(),
    createdDate: dateTime().nullish(),
    qrCode: z.string().nullish(),
    qrUrl: z.string().nullish(),
    qrCodeScanCount: int().nonnegative().nullish(),
    customerEmail: z.string().nullish(),
    customerName: z.string().nullish(),
    customerOrganization: z.string().nullish(),
    salespersonName: z.string().nullish(),
  })
  .meta({ id: "StatisticRecipient", description: "The recipient a QR scan belongs to." });

/**
 * A QR code scan record (body and echoed payload of `POST /v1/order-recipients-statistics`).
 * `statisticValue` must parse as a whole number; the service answers 400 naming it otherwise.
 */
export const RecipientStatistic = z
  .object({
    orderId: id(),
    statisticName: int().describe("Enumerated; meanings not shown."),
    statisticValue: z.string().regex(/^\d+$/, "must be a whole number"),
    orderRecipientId: id(),
    orderRecipient: StatisticRecipient.nullish(),
  })
  .meta({ id: "RecipientStatistic", description: "A QR code scan of one recipient." });
export type RecipientStatistic = z.infer<typeof RecipientStatistic>;
