/**
 * The kinds of the dynamic resources and the type token Pulumi gives each one.
 *
 * This list lives here, not in `campaign/names.ts` (the naming contract, which re-exports it):
 * the resources need their own kinds (each resource's constructor, the registry of
 * implementations, the stored inputs), and `resources/` never imports `campaign/`. It imports
 * nothing, so the contract, the resources and the CLI all read it without an import going up.
 *
 * A kind is stored in every stack twice: in the type of each resource
 * (`pulumi-nodejs:dynamic/directmail:Order`) and in its stored provider, which asks the installed
 * package for the implementation of that kind. Renaming one orphans every stack that holds it.
 */

/** Every kind of dynamic resource, by itself: `KIND.Order` is `"Order"`. */
export const KIND = {
  ProviderInfo: "ProviderInfo",
  Order: "Order",
  OrderRecipients: "OrderRecipients",
  Checkout: "Checkout",
  AddressBookEntry: "AddressBookEntry",
  Conversions: "Conversions",
  AutomationRecipients: "AutomationRecipients",
  ProximitySearch: "ProximitySearch",
} as const;

export type ResourceKind = (typeof KIND)[keyof typeof KIND];

/** The kinds in the order above. */
export const RESOURCE_KINDS: readonly ResourceKind[] = Object.values(KIND);

/** The module every dynamic resource is declared in (the part of its type before the kind). */
export const RESOURCE_MODULE = "directmail";

/** What Pulumi puts before a dynamic resource's kind to make its type. */
export const DYNAMIC_TYPE_PREFIX = `pulumi-nodejs:dynamic/${RESOURCE_MODULE}:`;

/** The type of a dynamic resource of a kind: `pulumi-nodejs:dynamic/directmail:Order`. */
export function dynamicType(kind: ResourceKind): string {
  return `${DYNAMIC_TYPE_PREFIX}${kind}`;
}

/**
 * What the provider plugin (`pulumi-resource-directmail`, provider/plugin/) puts before a kind or a
 * component to make its type; the TypeScript components have always been typed so too.
 */
export const PLUGIN_TYPE_PREFIX = `${RESOURCE_MODULE}:index:`;

/** The type of a kind on the plugin's path: `directmail:index:Order`. */
export function pluginType(kind: ResourceKind): string {
  return `${PLUGIN_TYPE_PREFIX}${kind}`;
}
