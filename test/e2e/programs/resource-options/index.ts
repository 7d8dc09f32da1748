import * as pulumi from "@pulumi/pulumi";
import { Checkout, Order, OrderRecipients, type Recipient } from "pulumi-directmail";

const config = new pulumi.Config();
const recipients = config.requireObject<Recipient[]>("recipients");
const count = config.getNumber("orders") ?? 1;
const checkout = config.getBoolean("checkout") ?? false;
/** Pulumi's resource options for each kind, as stack config (JSON), so a test turns one on at a time. */
const options =
  config.getObject<{
    order?: pulumi.CustomResourceOptions;
    list?: pulumi.CustomResourceOptions;
    checkout?: pulumi.CustomResourceOptions;
  }>("options") ?? {};

export const orderIds = Array.from({ length: count }, (_, i) => {
  const order = new Order(
    `order-${i + 1}`,
    { templateId: config.requireNumber("templateId") },
    options.order,
  );
  const list = new OrderRecipients(
    `recipients-${i + 1}`,
    { orderId: order.orderId, recipients },
    options.list,
  );
  if (checkout)
    new Checkout(
      `checkout-${i + 1}`,
      {
        orderId: order.orderId,
        postageType: "Standard",
        productionSpeed: "Normal",
        settlementWaitSeconds: config.getNumber("settlementWaitSeconds"),
      },
      { ...options.checkout, dependsOn: [list] },
    );
  return order.orderId;
});
