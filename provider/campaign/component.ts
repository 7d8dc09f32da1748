/**
 * `Campaign`: one direct-mail campaign as a Pulumi component: an order made from a template, its
 * recipients, an optional checkout that runs only once the recipients are in, and optional
 * address-book entries.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { AddressBookEntry, type AddressBookEntryArgs } from "../resources/address-book-entry";
import { Checkout, type CheckoutArgs } from "../resources/checkout";
import { Order, type OrderArgs } from "../resources/order";
import { OrderRecipients, type OrderRecipientsArgs } from "../resources/order-recipients";

export interface CampaignArgs {
  order: OrderArgs;
  /** The recipients: `file` (relative to the Pulumi project's folder) or `recipients` inline, and options. */
  recipients: Omit<OrderRecipientsArgs, "orderId">;
  /** Pays for the order, once. Leave it out to keep the order a draft for review. */
  checkout?: Omit<CheckoutArgs, "orderId">;
  addressBook?: AddressBookEntryArgs[];
  /**
   * true: when the campaign leaves the stack, its resources stay at the service as they are, even a
   * draft order (`retainOnDelete` on each of them). Without it a draft is deleted at the service; an
   * order past draft stays there in any case.
   */
  retain?: boolean;
}

export class Campaign extends pulumi.ComponentResource {
  readonly order: Order;
  readonly recipients: OrderRecipients;
  readonly checkout: Checkout | undefined;
  readonly addressBook: AddressBookEntry[];

  readonly orderId: pulumi.Output<number>;
  readonly orderStatus: pulumi.Output<string>;
  readonly acceptedCount: pulumi.Output<number>;
  readonly droppedCount: pulumi.Output<number>;
  readonly dropReasons: pulumi.Output<Record<string, number>>;
  /** Up to ten dropped recipients with their row in the list and the reason. */
  readonly droppedSample: pulumi.Output<{ row: number; reason: string }[]>;
  /** The order's status after the checkout (`Paid`, or `Payment Needed` while it settles); undefined without one. */
  readonly checkoutStatus: pulumi.Output<string | undefined>;
  readonly totalCharges: pulumi.Output<number | null | undefined>;

  constructor(name: string, args: CampaignArgs, opts?: pulumi.ComponentResourceOptions) {
    super("directmail:index:Campaign", name, {}, opts);
    const child = { parent: this, ...(args.retain ? { retainOnDelete: true } : {}) };
    this.order = new Order(name, args.order, child);
    this.recipients = new OrderRecipients(
      `${name}-recipients`,
      { ...args.recipients, orderId: this.order.orderId },
      child,
    );
    // The checkout waits for the recipients: paying for an order whose list is still changing
    // would mail (and charge for) the wrong set.
    this.checkout = args.checkout
      ? new Checkout(
          `${name}-checkout`,
          { ...args.checkout, orderId: this.order.orderId },
          { ...child, dependsOn: [this.recipients] },
        )
      : undefined;
    // Entries are named after their address, so reordering the list changes nothing.
    this.addressBook = (args.addressBook ?? []).map(
      (entry) => new AddressBookEntry(`${name}-address-${entryName(entry)}`, entry, child),
    );

    this.orderId = this.order.orderId;
    this.orderStatus = this.checkout ? this.checkout.orderStatus : this.order.status;
    this.acceptedCount = this.recipients.acceptedCount;
    this.droppedCount = this.recipients.droppedCount;
    this.dropReasons = this.recipients.dropReasons;
    this.droppedSample = this.recipients.droppedSample;
    this.checkoutStatus = this.checkout ? this.checkout.orderStatus : pulumi.output(undefined);
    this.totalCharges = this.checkout ? this.checkout.totalCharges : pulumi.output(undefined);
    this.registerOutputs({
      orderId: this.orderId,
      orderStatus: this.orderStatus,
      acceptedCount: this.acceptedCount,
      droppedCount: this.droppedCount,
      dropReasons: this.dropReasons,
      droppedSample: this.droppedSample,
      checkoutStatus: this.checkoutStatus,
      totalCharges: this.totalCharges,
    });
  }
}

function entryName(entry: AddressBookEntryArgs): string {
  const fields = [
    entry.firstName,
    entry.lastName,
    entry.toOrganization,
    entry.address1,
    entry.address2,
    entry.city,
    entry.state,
    entry.zip,
  ];
  if (fields.some((f) => f !== undefined && typeof f !== "string")) {
    throw new Error(
      "address-book entries of a Campaign take plain strings (their address names the resource)",
    );
  }
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex").slice(0, 10);
}
