import * as pulumi from "@pulumi/pulumi";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { CheckoutInputFields } from "./inputs";
import { CheckoutOutputFields } from "./outputs";

/** The arguments of a {@link Checkout}. */
export interface CheckoutArgs extends ArgsOf<typeof CheckoutInputFields> {}

// The resource's Output properties, merged into the class below: the outputs schema's fields and the
// required inputs, which the engine sets when the provider answers.
export interface Checkout extends OutputProperties<typeof CheckoutOutputFields, typeof CheckoutInputFields> {}

/**
 * Pays for an order, once: prices it (refusing above `maxTotal`, charging nothing), checks it out,
 * and waits for the payment to settle. Never replaced, as a replacement would charge twice; an
 * order already checked out is recorded, never charged again. Make it depend on the order's
 * recipients, so that the list is complete before it is paid for. Destroy leaves the order as it
 * is: nothing is refunded.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only declares the Output properties the engine sets.
export class Checkout extends pulumi.CustomResource {
  constructor(name: string, args: CheckoutArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.Checkout, opts),
      name,
      withStoredProvider(KIND.Checkout, { ...args, ...outputPlaceholders(CheckoutOutputFields) }),
      opts,
    );
  }
}
