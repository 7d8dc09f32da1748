import * as pulumi from "@pulumi/pulumi";
import { Checkout, Order, OrderRecipients } from "pulumi-directmail";

const config = new pulumi.Config();
const order = new Order("order", {
  templateId: config.requireNumber("templateId"),
  existingOrderId: config.getNumber("existingOrderId"),
});
const recipients = new OrderRecipients("recipients", {
  orderId: order.orderId,
  file: config.require("recipientsFile"),
  keyColumn: config.get("keyColumn"),
  maxDroppedPercent: config.getNumber("maxDroppedPercent"),
});

export const orderId = order.orderId;
export const orderStatus = order.status;
export const accepted = recipients.acceptedCount;
export const dropped = recipients.droppedCount;

// Leaving the checkout out keeps the order a draft; adding it in a later change pays, once.
const checkout = config.getBoolean("checkout")
  ? new Checkout(
      "checkout",
      {
        orderId: order.orderId,
        postageType: (config.get("postageType") as "Standard" | "FirstClass" | undefined) ?? "Standard",
        productionSpeed: "Normal",
        maxTotal: config.getNumber("maxTotal"),
        // As a Campaign wires it: recipients added elsewhere since the list was applied stop the send.
        expectedRecipientCount: recipients.orderRecipientCount as pulumi.Output<number>,
        settlementWaitSeconds: config.getNumber("settlementWaitSeconds"),
      },
      { dependsOn: [recipients] },
    )
  : undefined;

export const checkoutStatus = checkout?.orderStatus;
export const totalCharges = checkout?.totalCharges;
