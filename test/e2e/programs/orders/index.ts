import * as pulumi from "@pulumi/pulumi";
import { Order, OrderRecipients, type Recipient } from "pulumi-directmail";

const config = new pulumi.Config();
// Recipients as data (a JSON config value), where the type checker cannot see a misspelled field.
const recipients = config.requireObject<Recipient[]>("recipients");
const count = config.getNumber("orders") ?? 1;

export const orderIds = Array.from({ length: count }, (_, i) => {
  const order = new Order(`order-${i + 1}`, { templateId: config.requireNumber("templateId") });
  new OrderRecipients(`recipients-${i + 1}`, { orderId: order.orderId, recipients });
  return order.orderId;
});
