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
   * What the checkout charged, in US dollars, as the service's price preview announced it just
   * before; null when the order was already checked out and this resource only recorded it.
   */
  totalCharges: z.number().nullable(),
  /** The tax part of `totalCharges`, in US dollars; null as for `totalCharges`. */
  totalTax: z.number().nullable(),
  /** Account credits applied to the checkout, in US dollars; null as for `totalCharges`. */
  totalCredits: z.number().nullable(),
  /** `true` when the order was already checked out (elsewhere, or by an interrupted run) and only recorded. */
  recordedExisting: z.boolean(),
  /** When this resource checked the order out or recorded it (ISO 8601 date-time). */
  checkedOutAt: z.string(),
};
export type CheckoutOutputFields = OutputOf<typeof CheckoutOutputFields>;

/** The state of a Checkout: its inputs and its outputs. */
export type CheckoutOutputs = CheckoutInputs & CheckoutOutputFields;
