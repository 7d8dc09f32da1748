/** What a `Checkout` reports, beside its inputs: one schema for the provider and the resource class. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { CheckoutInputs } from "./inputs";

export const CheckoutOutputFields = {
  /**
   * The order's status after the checkout, when last read: `Paid` or `Ready For Production` (or
   * later) once the payment settled, `Payment Needed` while it goes on.
   */
  orderStatus: z.string(),
  /**
   * What the service charged for the order, in US dollars: the debits of its transaction report,
   * never the price asked before. Null while the payment settles (nothing is charged yet; `pulumi
   * refresh` reads it later).
   */
  totalCharges: z.number().nullable(),
  /**
   * Null: the service's transaction report gives no tax part. (A stack deployed before the charge
   * was read from the transactions holds the tax of the preview.)
   */
  totalTax: z.number().nullable(),
  /** Credits (refunds) of the order's transaction report, in US dollars; null as for `totalCharges`. */
  totalCredits: z.number().nullable(),
  /** `true` when the order was already checked out (elsewhere, or by an interrupted run) and only recorded. */
  recordedExisting: z.boolean(),
  /** When this resource checked the order out or recorded it (ISO 8601 date-time). */
  checkedOutAt: z.string(),
};
export type CheckoutOutputFields = OutputOf<typeof CheckoutOutputFields>;

/** The state of a Checkout: its inputs and its outputs. */
export type CheckoutOutputs = CheckoutInputs & CheckoutOutputFields;
