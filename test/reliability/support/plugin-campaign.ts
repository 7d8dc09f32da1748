/**
 * The campaign of the CLI runs (test/e2e/programs/campaign: an Order, its OrderRecipients from a
 * file, and a Checkout when asked) through the plugin door: the same resources as a Pulumi YAML
 * program of `directmail:index:*` types, served by the provider plugin. The soaks run their faults
 * through both doors with it.
 */
import { pluginOnPath } from "../../e2e/support/plugin";
import { createTestStack, type TestStack } from "../../e2e/support/pulumi";
import { yamlRef as ref, writeYamlProgram } from "../../e2e/support/yaml-program";

/** Which door a CLI run goes through: the TypeScript program's dynamic providers, or the plugin. */
export type Door = "dynamic" | "plugin";

/** The state's type token of a kind on each door. */
export const typeOn = (door: Door, kind: string) =>
  door === "plugin" ? `directmail:index:${kind}` : `pulumi-nodejs:dynamic/directmail:${kind}`;

export interface CampaignSettings {
  baseUrl: string;
  apiKey: string;
  templateId: number;
  /** The recipients file, in the stack's folder. */
  recipientsFile: string;
  keyColumn?: string | undefined;
  /** A Checkout of the order, with its settlement wait if given. */
  checkout?: { settlementWaitSeconds?: number | undefined } | undefined;
}

/**
 * A fresh stack of the campaign on `door`, its `pulumi` run with `env` added. The stack's outputs
 * hold `orderId` on both doors.
 */
export async function campaignStackOn(
  door: Door,
  settings: CampaignSettings,
  env: Record<string, string>,
): Promise<TestStack> {
  const service = {
    "directmail:baseUrl": { value: settings.baseUrl },
    "directmail:apiKey": { value: settings.apiKey, secret: true },
  };
  if (door === "dynamic") {
    const wait = settings.checkout?.settlementWaitSeconds;
    return createTestStack("campaign", {
      config: {
        ...service,
        templateId: { value: String(settings.templateId) },
        recipientsFile: { value: settings.recipientsFile },
        ...(settings.keyColumn ? { keyColumn: { value: settings.keyColumn } } : {}),
        ...(settings.checkout ? { checkout: { value: "true" } } : {}),
        ...(wait !== undefined ? { settlementWaitSeconds: { value: String(wait) } } : {}),
      },
      env,
    });
  }
  const plugin = pluginOnPath();
  const t = await createTestStack("yaml-program", { config: service, env: { ...env, ...plugin.env } });
  writeYamlProgram(t, {
    resources: {
      order: { type: "directmail:index:Order", properties: { templateId: settings.templateId } },
      recipients: {
        type: "directmail:index:OrderRecipients",
        properties: {
          orderId: ref("order.orderId"),
          file: settings.recipientsFile,
          ...(settings.keyColumn ? { keyColumn: settings.keyColumn } : {}),
        },
      },
      ...(settings.checkout
        ? {
            checkout: {
              type: "directmail:index:Checkout",
              properties: {
                orderId: ref("order.orderId"),
                postageType: "Standard",
                productionSpeed: "Normal",
                expectedRecipientCount: ref("recipients.orderRecipientCount"),
                ...(settings.checkout.settlementWaitSeconds !== undefined
                  ? { settlementWaitSeconds: settings.checkout.settlementWaitSeconds }
                  : {}),
              },
              options: { dependsOn: [ref("recipients")] },
            },
          }
        : {}),
    },
    outputs: { orderId: ref("order.orderId") },
  });
  return {
    ...t,
    async dispose() {
      await t.dispose();
      plugin.dispose();
    },
  };
}
