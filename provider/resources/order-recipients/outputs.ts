/** What an `OrderRecipients` reports, beside its inputs: one schema for the provider and the class. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { OrderRecipientsInputs } from "./inputs";

/** A recipient the service dropped, by its place in the list. */
export const DropSampleFields = {
  /** 1-based: the line of a CSV or JSON Lines file, the position in a JSON array or inline list. */
  row: z.int(),
  /**
   * Why the service dropped it (an undeliverable address, say), with the value the service quoted
   * taken out: `ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code`.
   */
  reason: z.string(),
};
export type DropSample = OutputOf<typeof DropSampleFields>;

/** A variable image of a recipient that the service could not use (the template's image is printed). */
export const ImageIssueSampleFields = {
  /** 1-based row of the recipient, as in DropSample. */
  row: z.int(),
  /** The image field: `image1`..`image6`. */
  field: z.string(),
  /** The service's code for the problem. */
  code: z.string(),
  /** The service's description of the problem. */
  message: z.string(),
};
export type ImageIssueSample = OutputOf<typeof ImageIssueSampleFields>;

export const OrderRecipientsOutputFields = {
  /** A digest of the declared list (every recipient's key and content): it changes with any edit. */
  digest: z.string(),
  /** How many distinct recipients the list declares (duplicate rows counted once). */
  declaredCount: z.int(),
  /** Rows identical to an earlier row (or with the same key column value): sent once. */
  duplicateRows: z.int(),
  /**
   * The compact record of which declared recipient is which recipient at the service (key →
   * content digest, recipient id). Kept in the state for updates; not meant to be read.
   */
  index: z.string(),
  /** Declared recipients on the order and deliverable. */
  acceptedCount: z.int(),
  /** Declared recipients the service dropped or marked undeliverable. */
  droppedCount: z.int(),
  /** Recipients of the order this resource did not put there (added elsewhere); left alone. */
  unmanagedCount: z.int(),
  /**
   * How many recipients the order holds at the service by this resource's record: the declared ones
   * on it (undeliverable ones included) and those added elsewhere. A Checkout given it refuses to
   * send when the order holds another count. Absent from a list applied by an earlier release until
   * the list changes.
   */
  orderRecipientCount: z.int().optional(),
  /** Dropped recipients: how many for each reason (redacted as in DropSample). */
  dropReasons: z.record(z.string(), z.int()),
  /** Up to ten dropped recipients, with their row in the list and the reason. */
  droppedSample: z.array(z.object(DropSampleFields)) as z.ZodArray<z.ZodObject<typeof DropSampleFields>>,
  /** Up to ten problems of variable images, with their row and field. */
  imageIssueSample: z.array(z.object(ImageIssueSampleFields)) as z.ZodArray<
    z.ZodObject<typeof ImageIssueSampleFields>
  >,
  /** The order's status when the recipients were last changed or read (`Draft`, ...). */
  orderStatus: z.string(),
};
export type OrderRecipientsOutputFields = OutputOf<typeof OrderRecipientsOutputFields>;

/** The state of an OrderRecipients: its inputs and its outputs. */
export type OrderRecipientsOutputs = OrderRecipientsInputs & OrderRecipientsOutputFields;
