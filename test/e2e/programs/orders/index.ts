import * as pulumi from "@pulumi/pulumi";
import { Checkout, Order, OrderRecipients, type Recipient } from "pulumi-directmail";

const config = new pulumi.Config();
// Recipients as data (a JSON config value), where the type checker cannot see a misspelled field.
const recipients = config.requireObject<Recipient[]>("recipients");
const count = config.getNumber("orders") ?? 1;
// With `checkout`, each order is checked out in the same change, at once (no order waits for another).
const checkout = config.getBoolean("checkout") ?? false;

export const orderIds = Array.from({ length: count }, (_, i) => {
  const order = new Order(`order-${i + 1}`, { templateId: config.requireNumber("templateId") });
  const list = new OrderRecipients(`recipients-${i + 1}`, { orderId: order.orderId, recipients });
  if (checkout)
    new Checkout(
      `checkout-${i + 1}`,
      {
        orderId: order.orderId,
        postageType: "Standard",
        productionSpeed: "Normal",
        settlementWaitSeconds: config.getNumber("settlementWaitSeconds"),
      },
      { dependsOn: [list] },
    );
  return order.orderId;
});
