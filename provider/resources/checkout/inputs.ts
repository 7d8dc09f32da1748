/** What a `Checkout` declares. Each field's JSDoc is what a program's author reads on `CheckoutArgs`. */
import { z } from "zod";
import { PostageType, ProductionSpeed } from "../../api/schemas/checkout";

/** The fields a Checkout declares. */
export const CheckoutInputFields = {
  /**
   * The order to pay for, usually `order.orderId`. It cannot change once the order is checked out:
   * a Checkout is never replaced, as a second checkout charges again.
   */
  orderId: z.int("orderId must be a whole number: the id of an order").positive(),
  /**
   * `Standard` (in the base price) or `FirstClass` (a surcharge per piece). It cannot change once
   * the order is checked out.
   */
  postageType: PostageType,
  /**
   * `Normal`, `ExpeditedFaster` or `ExpeditedFastest` (expedited speeds cost more). It cannot change
   * once the order is checked out.
   */
  productionSpeed: ProductionSpeed,
  /**
   * Hold the order before production until this ISO 8601 date-time with a time zone, such as
   * `2027-01-15T09:00:00Z`; it must be later than the service's production estimate. It cannot
   * change once the order is checked out.
   */
  holdUntilDate: z.iso
    .datetime({
      offset: true,
      error: "holdUntilDate must be an ISO 8601 date-time such as 2027-01-15T09:00:00Z",
    })
    .optional(),
  /**
   * `true` (the default): the account's balance first, then its default payment method. `false`:
   * the balance must cover the order, or nothing is charged. It cannot change once the order is
   * checked out.
   */
  autoBill: z.boolean("autoBill must be true or false").default(true),
  /**
   * Spending guard, in US dollars: when the checkout would charge more than this (the service's
   * price preview, asked again just before the checkout is sent), it is refused and nothing is
   * charged; on an existing draft `pulumi preview` fails already, showing the price. When the
   * service charges more all the same (its price moved while the checkout was on its way: it holds
   * none), the update fails with the charge, which the state records, until maxTotal is raised to
   * it. May change at any time.
   */
  maxTotal: z.number("maxTotal must be a number").nonnegative("maxTotal must not be negative").optional(),
  /**
   * How many recipients the order must hold at the service when the checkout is sent, usually the
   * `orderRecipientCount` of the order's `OrderRecipients` (a `Campaign` sets it): another count
   * means recipients were added or removed elsewhere, and the checkout is refused, nothing charged.
   * Only guards the send: changing it never changes a checkout made.
   */
  expectedRecipientCount: z
    .int("expectedRecipientCount must be a whole number")
    .nonnegative("expectedRecipientCount must not be negative")
    .optional(),
  /**
   * How long to wait for the payment to settle, in seconds (0 to 3600); default the service's own
   * expectation. The payment settles whether or not the deployment waits. May change at any time.
   */
  settlementWaitSeconds: z
    .int("settlementWaitSeconds must be a whole number of seconds")
    .min(0)
    .max(3600, "settlementWaitSeconds is at most 3600; the order settles whether or not pulumi waits")
    .optional(),
};
export const CheckoutInputs = z.strictObject(CheckoutInputFields);
export type CheckoutInputs = z.infer<typeof CheckoutInputs>;
