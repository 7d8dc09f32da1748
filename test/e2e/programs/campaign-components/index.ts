import * as pulumi from "@pulumi/pulumi";
import { Campaign } from "pulumi-directmail";

const templateId = new pulumi.Config().requireNumber("templateId");

// campaigns/autumn.yaml of the YAML twin, as arguments.
const autumn = new Campaign("autumn", {
  order: { templateId },
  recipients: { file: "campaigns/autumn.csv", keyColumn: "customerId" },
  checkout: { postageType: "Standard", productionSpeed: "Normal", maxTotal: 50 },
});
const spring = new Campaign("spring", {
  order: { templateId },
  recipients: {
    recipients: [
      {
        firstName: "Ada",
        lastName: "Lovelace",
        address1: "1 Main St",
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
      },
      {
        firstName: "Alan",
        lastName: "Turing",
        address1: "12 Analytical St",
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
      },
    ],
  },
});

/** A campaign's outputs, under the names the plugin's Campaign gives them. */
const outputsOf = (campaign: Campaign) => ({
  orderId: campaign.orderId,
  orderStatus: campaign.orderStatus,
  acceptedCount: campaign.acceptedCount,
  droppedCount: campaign.droppedCount,
  dropReasons: campaign.dropReasons,
  droppedSample: campaign.droppedSample,
  checkoutStatus: campaign.checkoutStatus,
  totalCharges: campaign.totalCharges,
  delivery: campaign.delivery,
  qrScans: campaign.qrScans,
});

export const autumnOutputs = outputsOf(autumn);
export const springOutputs = outputsOf(spring);
