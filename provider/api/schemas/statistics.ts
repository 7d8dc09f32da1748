import { z } from "zod";
import { DIGITS, dateTime, id, int, MAX_INT32, wholeNumberFromText, wholeNumberMessage } from "./common";

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
 * `statisticValue`: text that parses as a whole number ({@link wholeNumberFromText}: digits only,
 * nothing trimmed) of at most {@link MAX_INT32}, a scan count. The error names the value (spec).
 */
const statisticValueError = (value: unknown) => wholeNumberMessage(0, MAX_INT32, value);

const StatisticValue = z
  .string({ error: (issue) => (issue.input === undefined ? undefined : statisticValueError(issue.input)) })
  .regex(DIGITS, { abort: true, error: (issue) => statisticValueError(issue.input) })
  .refine((text) => (wholeNumberFromText(text) ?? Number.POSITIVE_INFINITY) <= MAX_INT32, {
    error: (issue) => statisticValueError(issue.input),
  });

/**
 * A QR code scan record (body and echoed payload of `POST /v1/order-recipients-statistics`).
 * `statisticValue` must parse as a whole number; the service answers 400 naming it otherwise.
 */
export const RecipientStatistic = z
  .object({
    orderId: id(),
    statisticName: int().describe("Enumerated; meanings not shown."),
    statisticValue: StatisticValue,
    orderRecipientId: id(),
    orderRecipient: StatisticRecipient.nullish(),
  })
  .meta({ id: "RecipientStatistic", description: "A QR code scan of one recipient." });
export type RecipientStatistic = z.infer<typeof RecipientStatistic>;
