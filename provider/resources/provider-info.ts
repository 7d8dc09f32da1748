import * as pulumi from "@pulumi/pulumi";
import { packageVersion } from "../version";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { thinProvider } from "./thin-provider";

export interface ProviderInfoArgs {
  /** A label of the caller's choosing, kept in the outputs. */
  label: pulumi.Input<string>;
}

/**
 * Records which service the stack's directmail resources talk to: the base URL and whether an
 * API key is configured (never the key). Handy in stack outputs, and the smallest resource that
 * exercises the provider pattern every directmail resource uses.
 */
export class ProviderInfo extends pulumi.dynamic.Resource {
  declare readonly label: pulumi.Output<string>;
  declare readonly baseUrl: pulumi.Output<string>;
  declare readonly baseUrlSource: pulumi.Output<string>;
  declare readonly apiKeyConfigured: pulumi.Output<boolean>;
  declare readonly providerVersion: pulumi.Output<string>;

  constructor(name: string, args: ProviderInfoArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("ProviderInfo"),
      name,
      {
        label: args.label,
        baseUrl: undefined,
        baseUrlSource: undefined,
        apiKeyConfigured: undefined,
        providerVersion: undefined,
      },
      opts,
      "directmail",
      "ProviderInfo",
    );
  }
}

export function providerInfoImplementation(ctx: ProviderContext): ResourceImplementation {
  const outputs = (inputs: { label: string }) => {
    const settings = ctx.settings();
    return {
      label: inputs.label,
      baseUrl: settings.baseUrl,
      baseUrlSource: settings.baseUrlSource,
      apiKeyConfigured: settings.apiKey !== undefined,
      providerVersion: packageVersion(),
    };
  };
  return {
    async check(_olds, news) {
      if (typeof news.label !== "string" || news.label.trim() === "") {
        return {
          inputs: news,
          failures: [{ property: "label", reason: "label must be a non-empty string" }],
        };
      }
      return { inputs: { label: news.label } };
    },
    async diff(_id, olds, news) {
      const settings = ctx.settings();
      const changes =
        olds.label !== news.label ||
        olds.baseUrl !== settings.baseUrl ||
        olds.apiKeyConfigured !== (settings.apiKey !== undefined);
      return { changes };
    },
    async create(inputs) {
      return { id: `provider-info-${inputs.label}`, outs: outputs(inputs) };
    },
    async read(id, props) {
      return { id, props: { ...props, ...outputs(props) } };
    },
    async update(_id, _olds, news) {
      return { outs: outputs(news) };
    },
  };
}
