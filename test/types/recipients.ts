/**
 * Type-level tests of the public API, checked by `tsc -p test/tsconfig.json` (npm test runs it):
 * each `@ts-expect-error` line must be an error, or the type check fails. Never run.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  Campaign,
  type CheckoutArgs,
  type DropSample,
  type Order,
  OrderRecipients,
  type OrderRecipientsArgs,
  type Recipient,
} from "../../provider";

declare const orderId: pulumi.Output<number>;
declare const city: pulumi.Output<string>;

const ada: Recipient = {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "12 Analytical Row",
  city,
  state: "IL",
  zipCode: "62701",
  custom1: "spring",
};

export function typedRecipients(): void {
  new OrderRecipients("typed", { orderId, recipients: [ada] });

  new OrderRecipients("typo", {
    orderId,
    recipients: [
      {
        firstName: "Ada",
        // @ts-expect-error a misspelled field is not a recipient field
        adress1: "14 Maple Avenue",
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
      },
    ],
  });

  // @ts-expect-error address1 is required
  const noStreet: Recipient = { firstName: "Ada", city: "Springfield", state: "IL", zipCode: "62701" };
  // @ts-expect-error merge fields are text, not numbers
  const numeric: Recipient = { ...ada, custom2: 7 };

  // A key column is a field of the inline recipients, and only that one.
  new OrderRecipients("keyed", {
    orderId,
    keyColumn: "customerId",
    recipients: [{ ...ada, customerId: "C-1" }],
  });
  new OrderRecipients("keyed-typo", {
    orderId,
    keyColumn: "customerId",
    // @ts-expect-error only the key column may be added to the recipient fields
    recipients: [{ ...ada, customerID: "C-1" }],
  });

  new Campaign("campaign", {
    order: { templateId: 10001 },
    recipients: { keyColumn: "id", recipients: [{ ...ada, id: "7" }] },
    checkout: { postageType: "Standard", productionSpeed: "Normal", maxTotal: 20 },
  });
  new Campaign("campaign-typo", {
    order: { templateId: 10001 },
    // @ts-expect-error a misspelled field in a Campaign's recipients
    recipients: { recipients: [{ ...ada, zipcode: "62701" }] },
  });

  const args: OrderRecipientsArgs = { orderId, file: "recipients.csv", identityField: "custom5" };
  // @ts-expect-error identityField is one of custom1..custom6
  const wrongField: OrderRecipientsArgs = { orderId, file: "recipients.csv", identityField: "custom7" };
  // @ts-expect-error postageType is Standard or FirstClass
  const postage: CheckoutArgs = { orderId, postageType: "Express", productionSpeed: "Normal" };
  void [args, wrongField, postage, noStreet, numeric];
}

export function outputs(order: Order, recipients: OrderRecipients): void {
  const status: pulumi.Output<string> = order.status;
  const templateId: pulumi.Output<number> = order.templateId;
  const sample: pulumi.Output<DropSample[]> = recipients.droppedSample;
  const accepted: pulumi.Output<number> = recipients.acceptedCount;
  // @ts-expect-error an optional input is not an output property (it exists only when given)
  void order.useQr;
  void [status, templateId, sample, accepted];
}
