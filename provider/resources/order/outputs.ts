/** What an `Order` reports, beside its inputs: one schema for the provider and the resource class. */
import { z } from "zod";
import { DeliveryProgress } from "../../api/schemas/order";
import type { OutputOf } from "../types";
import type { OrderInputs } from "./inputs";

export const OrderOutputFields = {
  /** The order's id at the service. */
  orderId: z.int(),
  /**
   * The order's status when last read (spaced display text): `Draft`, `Edits Needed`,
   * `Payment Needed`, `Paid`, `Ready For Production`, or a later one. It changes at the service
   * without a deployment (a checkout, production); `pulumi refresh` reads it again.
   */
  status: z.string(),
  /** The product the template prints (a postcard, a letter, ...), as the service names it; null if none. */
  product: z.string().nullable(),
  /** The postage type the service reports for the order (`Standard`, `FirstClass`, ...); null when it has none. */
  postageType: z.string().nullable(),
  /** How many recipients the order held when last read. */
  recipientCount: z.int(),
  /** When the service created the order (ISO 8601 date-time). */
  createdDate: z.string(),
  /** When the service last changed the order (ISO 8601 date-time). */
  updatedDate: z.string(),
  /** `true` when the order was adopted through `existingOrderId` rather than created. */
  adopted: z.boolean(),
  /**
   * How many pieces are at each delivery stage (`totalCards`, `mailed`, `inTransit`,
   * `localFacility`, `delivered`, `undeliverable`, `waitingUSPS`) when last read; null when the
   * service gave none. It changes at the service after the mailing; `pulumi refresh` reads it again.
   */
  delivery: DeliveryProgress.nullable(),
  /** QR code scans of the order's pieces when last read (0 before any); `pulumi refresh` reads it again. */
  qrScans: z.int(),
  /** When the last QR code scan happened (ISO 8601 date-time); null before any. */
  lastScan: z.string().nullable(),
};
export type OrderOutputFields = OutputOf<typeof OrderOutputFields>;

/** The state of an Order: its inputs and its outputs. */
export type OrderOutputs = OrderInputs & OrderOutputFields;
