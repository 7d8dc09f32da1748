import * as pulumi from "@pulumi/pulumi";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { ProviderInfoInputFields } from "./inputs";
import { ProviderInfoOutputFields } from "./outputs";

/** The arguments of a {@link ProviderInfo}. */
export interface ProviderInfoArgs extends ArgsOf<typeof ProviderInfoInputFields> {}

// The resource's Output properties, merged into the class below: the outputs schema's fields and the
// required inputs, which the engine sets when the provider answers.
export interface ProviderInfo
  extends OutputProperties<typeof ProviderInfoOutputFields, typeof ProviderInfoInputFields> {}

/**
 * Records which service the stack's directmail resources talk to: the base URL and whether an
 * API key is configured (never the key). Handy in stack outputs, and the smallest resource that
 * exercises the provider pattern every directmail resource uses.
 */
export class ProviderInfo extends pulumi.CustomResource {
  constructor(name: string, args: ProviderInfoArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.ProviderInfo, opts),
      name,
      withStoredProvider(KIND.ProviderInfo, {
        label: args.label,
        ...outputPlaceholders(ProviderInfoOutputFields),
      }),
      opts,
    );
  }
}
