/**
 * `Campaign`: one direct-mail campaign as a Pulumi component: an order made from a template, its
 * recipients, an optional checkout that runs only once the recipients are in, and optional
 * address-book entries.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { DeliveryProgress } from "../api/schemas/order";
import { AddressBookEntry, type AddressBookEntryArgs } from "../resources/address-book-entry/resource";
import { Checkout, type CheckoutArgs } from "../resources/checkout/resource";
import { Conversions, type ConversionsArgs } from "../resources/conversions/resource";
import { Order, type OrderArgs } from "../resources/order/resource";
import type { DropSample } from "../resources/order-recipients/outputs";
import { OrderRecipients, type RecipientListArgs } from "../resources/order-recipients/resource";
import { COMPONENT_TYPE, childName } from "./names";

/** The arguments of a {@link Campaign}. `Key` is the recipients' `keyColumn`, inferred from it. */
export interface CampaignArgs<Key extends string = never> {
  /** The order: made from a template, or adopted (`existingOrderId`). See {@link OrderArgs}. */
  order: OrderArgs;
  /** The recipients: `file` (relative to the Pulumi project's folder) or `recipients` inline, and options. */
  recipients: RecipientListArgs<Key>;
  /** Pays for the order, once. Leave it out to keep the order a draft for review. */
  checkout?: Omit<CheckoutArgs, "orderId" | "expectedRecipientCount"> | undefined;
  /** Address-book entries to create with the campaign; each is named after its address. */
  addressBook?: AddressBookEntryArgs[] | undefined;
  /** Conversion records uploaded with the campaign (`<name>-conversions`), for matchback. See {@link ConversionsArgs}. */
  conversions?: ConversionsArgs | undefined;
  /**
   * true: when the campaign leaves the stack, its resources stay at the service as they are, even a
   * draft order (`retainOnDelete` on each of them). Without it a draft is deleted at the service; an
   * order past draft stays there in any case.
   */
  retain?: boolean | undefined;
}

/**
 * One direct-mail campaign: an {@link Order} made from a template, its {@link OrderRecipients}, an
 * optional {@link Checkout} that runs only once the recipients are in, and optional
 * {@link AddressBookEntry} entries. Its resources are named after `name`: renaming the campaign
 * replaces them.
 */
export class Campaign<Key extends string = never> extends pulumi.ComponentResource {
  /** The campaign's order, named after the campaign. */
  readonly order: Order;
  /** The order's recipients (`<name>-recipients`). */
  readonly recipients: OrderRecipients<Key>;
  /** The checkout (`<name>-checkout`), created once the recipients are in; undefined without one. */
  readonly checkout: Checkout | undefined;
  /** The address-book entries, each named after its address. */
  readonly addressBook: AddressBookEntry[];
  /** The conversion records (`<name>-conversions`); undefined without them. */
  readonly conversions: Conversions | undefined;

  /** The order's id at the service. */
  readonly orderId: pulumi.Output<number>;
  /**
   * The order's status: after the checkout when there is one (`Paid`, `Ready For Production`, or
   * `Payment Needed` while the payment settles), else the order's (`Draft`).
   */
  readonly orderStatus: pulumi.Output<string>;
  /** Declared recipients on the order and deliverable. */
  readonly acceptedCount: pulumi.Output<number>;
  /** Declared recipients the service dropped or marked undeliverable. */
  readonly droppedCount: pulumi.Output<number>;
  /** Dropped recipients: how many for each reason. */
  readonly dropReasons: pulumi.Output<Record<string, number>>;
  /** Up to ten dropped recipients with their row in the list and the reason. */
  readonly droppedSample: pulumi.Output<DropSample[]>;
  /** The order's status after the checkout (`Paid`, or `Payment Needed` while it settles); undefined without one. */
  readonly checkoutStatus: pulumi.Output<string | undefined>;
  /** What the checkout charged, in US dollars (null when it only recorded an earlier one); undefined without one. */
  readonly totalCharges: pulumi.Output<number | null | undefined>;
  /**
   * How many pieces are at each delivery stage, as the order's last read saw them (`pulumi refresh`
   * reads them again: the Order's `delivery`); null when the service gave none.
   */
  readonly delivery: pulumi.Output<DeliveryProgress | null>;
  /** QR code scans of the campaign's pieces, as the order's last read saw them (`pulumi refresh`). */
  readonly qrScans: pulumi.Output<number>;

  constructor(name: string, args: CampaignArgs<Key>, opts?: pulumi.ComponentResourceOptions) {
    super(COMPONENT_TYPE.Campaign, name, {}, opts);
    const child = { parent: this, ...(args.retain ? { retainOnDelete: true } : {}) };
    this.order = new Order(childName(name, "order"), args.order, child);
    this.recipients = new OrderRecipients(
      childName(name, "recipients"),
      { ...args.recipients, orderId: this.order.orderId },
      child,
    );
    // The checkout waits for the recipients: paying for an order whose list is still changing
    // would mail (and charge for) the wrong set.
    this.checkout = args.checkout
      ? new Checkout(
          childName(name, "checkout"),
          {
            ...args.checkout,
            orderId: this.order.orderId,
            // Recipients added or removed elsewhere since the list was applied: nothing is sent. (A
            // list applied by an earlier release has no count: the guard waits for its next change.)
            expectedRecipientCount: this.recipients.orderRecipientCount as pulumi.Output<number>,
          },
          { ...child, dependsOn: [this.recipients] },
        )
      : undefined;
    // Entries are named after their address, so reordering the list changes nothing.
    this.addressBook = (args.addressBook ?? []).map(
      (entry) => new AddressBookEntry(childName(name, "address", entryName(entry)), entry, child),
    );

    this.conversions = args.conversions
      ? new Conversions(childName(name, "conversions"), args.conversions, child)
      : undefined;

    this.orderId = this.order.orderId;
    this.orderStatus = this.checkout ? this.checkout.orderStatus : this.order.status;
    this.acceptedCount = this.recipients.acceptedCount;
    this.droppedCount = this.recipients.droppedCount;
    this.dropReasons = this.recipients.dropReasons;
    this.droppedSample = this.recipients.droppedSample;
    this.checkoutStatus = this.checkout ? this.checkout.orderStatus : pulumi.output(undefined);
    this.totalCharges = this.checkout ? this.checkout.totalCharges : pulumi.output(undefined);
    this.delivery = this.order.delivery;
    this.qrScans = this.order.qrScans;
    this.registerOutputs({
      orderId: this.orderId,
      orderStatus: this.orderStatus,
      acceptedCount: this.acceptedCount,
      droppedCount: this.droppedCount,
      dropReasons: this.dropReasons,
      droppedSample: this.droppedSample,
      checkoutStatus: this.checkoutStatus,
      totalCharges: this.totalCharges,
      delivery: this.delivery,
      qrScans: this.qrScans,
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
