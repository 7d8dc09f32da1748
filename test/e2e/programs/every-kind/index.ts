import * as pulumi from "@pulumi/pulumi";
import {
  AddressBookEntry,
  AutomationRecipients,
  type AutomationRecipientsArgs,
  CampaignFolder,
  Checkout,
  Conversions,
  type ConversionsArgs,
  Order,
  OrderRecipients,
  ProviderInfo,
  ProximitySearch,
  type ProximitySearchArgs,
} from "pulumi-directmail";

const config = new pulumi.Config();
new ProviderInfo("target", { label: "every-kind" });
const order = new Order("order", { templateId: config.requireNumber("templateId") });
const recipients = new OrderRecipients("recipients", { orderId: order.orderId, file: "recipients.csv" });
new Checkout(
  "checkout",
  {
    orderId: order.orderId,
    postageType: "Standard",
    productionSpeed: "Normal",
    expectedRecipientCount: recipients.orderRecipientCount as pulumi.Output<number>,
  },
  { dependsOn: [recipients] },
);
new AddressBookEntry("entry", {
  firstName: "Ada",
  lastName: "Lovelace",
  address1: "1 Main St",
  city: "Springfield",
  state: "IL",
  zip: "62701",
});
new Conversions("sales", config.requireObject<ConversionsArgs>("conversions"));
new AutomationRecipients("welcome", config.requireObject<AutomationRecipientsArgs>("automation"));
new ProximitySearch("around-store", config.requireObject<ProximitySearchArgs>("search"));
// The lists of a campaign folder too, declared each way a campaign file can: a file or inline, keyed or not.
const campaignsDir = config.get("campaignsDir");
if (campaignsDir) new CampaignFolder("campaigns", { dir: campaignsDir });
