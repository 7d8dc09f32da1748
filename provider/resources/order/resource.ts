import * as pulumi from "@pulumi/pulumi";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { OrderInputFields } from "./inputs";
import { OrderOutputFields } from "./outputs";

/** The arguments of an {@link Order}. */
export interface OrderArgs extends ArgsOf<typeof OrderInputFields> {}

// The resource's Output properties, merged into the class below: the outputs schema's fields and the
// required inputs, which the engine sets when the provider answers.
export interface Order extends OutputProperties<typeof OrderOutputFields, typeof OrderInputFields> {}

/**
 * One order of the service, made from a template (or adopted: an existing order, such as one made
 * in the web application, taken under management through `existingOrderId`).
 *
 * Every input change replaces the order (a new order, then the old one is deleted), and only while
 * the order is editable (`Draft`, `Edits Needed`): past that, the plan fails and says why. Destroy
 * deletes a draft; an order past draft stays at the service and leaves the stack.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only declares the Output properties the engine sets.
export class Order extends pulumi.CustomResource {
  constructor(name: string, args: OrderArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.Order, opts),
      name,
      withStoredProvider(KIND.Order, { ...args, ...outputPlaceholders(OrderOutputFields) }),
      opts,
    );
  }
}
