/** What an `Order` declares. Each field's JSDoc is what a program's author reads on `OrderArgs`. */
import { z } from "zod";

/** The fields an Order declares. */
export const OrderInputFields = {
  /**
   * The id of the template the order is made from (a template is itself an order that is never
   * mailed). A change replaces the order, while it is still editable (`Draft`, `Edits Needed`).
   */
  templateId: z.int("templateId must be a whole number: the id of a template order").positive(),
  /**
   * `true` keeps the template's QR code, `false` removes it; omit it for the template's setting.
   * A change replaces the order, while it is still editable.
   */
  useQr: z.boolean("useQr must be true or false").optional(),
  /**
   * Where the QR code leads instead of the template's target: an absolute URL such as
   * `https://example.com/offer`. A change replaces the order, while it is still editable.
   */
  qrUrl: z.url("qrUrl must be an absolute URL such as https://example.com/offer").optional(),
  /**
   * One of the service's handwriting styles, by name; omit it for the template's default. A change
   * replaces the order, while it is still editable.
   */
  handwritingFont: z.string().trim().min(1, "handwritingFont must not be empty").optional(),
  /**
   * Adopt this existing order (one made in the web application, say) instead of creating one: it
   * must have been made from `templateId`. Nothing is created; destroy deletes it while it is a
   * draft. A change replaces the order, while it is still editable.
   */
  existingOrderId: z.int("existingOrderId must be a whole number: the id of an order").positive().optional(),
};
export const OrderInputs = z.strictObject(OrderInputFields);
export type OrderInputs = z.infer<typeof OrderInputs>;
