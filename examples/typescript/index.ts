/**
 * A campaign in TypeScript: the same parts as a YAML campaign, with the types and the editor
 * support of code. Run it against the sandbox (`directmail sandbox --seed demo`) with
 * `pulumi config set directmail:apiKey --secret sbx_demo_key` and `pulumi up`.
 *
 * Charges nothing when applied as it is: a draft. It PAYS (at most `maxTotal`, default 20) once
 * the stack says so: `pulumi config set pay true`.
 */
import * as pulumi from "@pulumi/pulumi";
import { Campaign } from "pulumi-directmail";

const config = new pulumi.Config();

const reactivation = new Campaign("reactivation", {
  order: { templateId: config.getNumber("templateId") ?? 10001 },
  recipients: {
    recipients: [
      {
        firstName: "Barbara",
        lastName: "Liskov",
        address1: "9 Substitution St",
        city: "Boulder",
        state: "CO",
        zipCode: "80302",
      },
      {
        firstName: "Donald",
        lastName: "Knuth",
        address1: "42 Art Lane",
        city: "Madison",
        state: "WI",
        zipCode: "53703",
      },
    ],
  },
  // Pay only when the stack says so: `pulumi config set pay true`.
  checkout: config.getBoolean("pay")
    ? { postageType: "Standard", productionSpeed: "Normal", maxTotal: config.getNumber("maxTotal") ?? 20 }
    : undefined,
});

export const orderId = reactivation.orderId;
export const orderStatus = reactivation.orderStatus;
export const accepted = reactivation.acceptedCount;
export const totalCharges = reactivation.totalCharges;
