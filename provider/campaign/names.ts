/**
 * The naming contract: how the campaign components name themselves and their resources, and what of
 * a deployed resource the CLI reads. The components (`component.ts`, `folder.ts`) build names
 * through it; `directmail review`, `status`, `report`, `orders` and `scans` read a stack's plan and
 * state through it (cli/review/plan.ts). A name written here is stored in every stack: changing one
 * replaces resources (a new order, a new checkout) in every stack deployed before.
 *
 * It imports no code at run time (the resource kinds come from `resources/kinds.ts`, which
 * imports nothing), so the CLI reads it without loading the components or the resources.
 */
import type { CheckoutOutputFields } from "../resources/checkout/outputs";
import { DYNAMIC_TYPE_PREFIX, KIND, PLUGIN_TYPE_PREFIX, type ResourceKind } from "../resources/kinds";
import type { OrderOutputFields } from "../resources/order/outputs";
import type { OrderRecipientsInputFields } from "../resources/order-recipients/inputs";
import type { OrderRecipientsOutputFields } from "../resources/order-recipients/outputs";

export {
  DYNAMIC_TYPE_PREFIX,
  dynamicType,
  KIND,
  PLUGIN_TYPE_PREFIX,
  pluginType,
  RESOURCE_KINDS,
  RESOURCE_MODULE,
  type ResourceKind,
} from "../resources/kinds";

/**
 * What the components' type tokens start with: the plugin's, which serves them to Pulumi YAML
 * programs (provider/plugin/) under the same types as the TypeScript components.
 */
const COMPONENT_TYPE_PREFIX = PLUGIN_TYPE_PREFIX;

/** The type tokens of the components. */
export const COMPONENT_TYPE = {
  /** A `Campaign`: its name is the campaign's `metadata.name`. */
  Campaign: `${COMPONENT_TYPE_PREFIX}Campaign`,
  /** A `CampaignFolder`: the campaigns of a folder of campaign files. */
  CampaignFolder: `${COMPONENT_TYPE_PREFIX}CampaignFolder`,
  /** The resources of a `kind: Automation` document, named after it; reviewed as a campaign of that name. */
  Automation: `${COMPONENT_TYPE_PREFIX}Automation`,
} as const;

/** The components whose name is a campaign's (or an automation's) `metadata.name`. */
const CAMPAIGN_GROUPS: ReadonlySet<string> = new Set([COMPONENT_TYPE.Campaign, COMPONENT_TYPE.Automation]);

/** Whether a resource of this type is a campaign (or an automation) whose resources are its children. */
export function isCampaignGroup(type: string): boolean {
  return CAMPAIGN_GROUPS.has(type);
}

/**
 * The kind of a directmail resource or component from its type, on either path: the dynamic one
 * (`pulumi-nodejs:dynamic/directmail:Order` → `Order`) or the plugin's (`directmail:index:Order` →
 * `Order`, `directmail:index:Campaign` → `Campaign`); a type of another package stays whole.
 */
export function kindOfType(type: string): string {
  for (const prefix of [DYNAMIC_TYPE_PREFIX, PLUGIN_TYPE_PREFIX]) {
    if (type.startsWith(prefix)) return type.slice(prefix.length);
  }
  return type;
}

/**
 * What a child of a campaign (or of an automation) adds to its name: the order is named after the
 * campaign itself; an address-book entry and a proximity search are named with what follows
 * (`-address-<hash of the address>`, `-search-<the search's name>`).
 */
const SUFFIX = {
  order: "",
  recipients: "-recipients",
  checkout: "-checkout",
  conversions: "-conversions",
  address: "-address-",
  search: "-search-",
} as const;

export type ChildRole = keyof typeof SUFFIX;
/** The roles named by the campaign and a qualifier of their own. */
type QualifiedRole = "address" | "search";

/** The name of a campaign's (or an automation's) child: `childName("spring", "recipients")` is `spring-recipients`. */
export function childName(campaign: string, role: Exclude<ChildRole, QualifiedRole>): string;
export function childName(campaign: string, role: QualifiedRole, qualifier: string): string;
export function childName(campaign: string, role: ChildRole, qualifier = ""): string {
  return `${campaign}${SUFFIX[role]}${qualifier}`;
}

/** The role a resource of each kind plays under a campaign or an automation. */
const ROLE_OF_KIND: Partial<Record<ResourceKind, ChildRole>> = {
  [KIND.Order]: "order",
  [KIND.OrderRecipients]: "recipients",
  [KIND.AutomationRecipients]: "recipients",
  [KIND.Checkout]: "checkout",
  [KIND.Conversions]: "conversions",
  [KIND.AddressBookEntry]: "address",
  [KIND.ProximitySearch]: "search",
};

/**
 * The campaign (or automation) a child of that kind and name was named after, undefined when the
 * name is not one {@link childName} gives a child of that kind.
 */
export function campaignOfChild(kind: string, name: string): string | undefined {
  const role = ROLE_OF_KIND[kind as ResourceKind];
  if (role === undefined) return undefined;
  const suffix = SUFFIX[role];
  if (role === "address" || role === "search") {
    // The address's hash has no dash; a search's name may have some, a campaign's too: the first
    // `-search-` is taken, as a name checked by the campaign schema rarely holds two.
    const at = role === "address" ? name.lastIndexOf(suffix) : name.indexOf(suffix);
    return at > 0 && at + suffix.length < name.length ? name.slice(0, at) : undefined;
  }
  if (!name.endsWith(suffix) || name.length === suffix.length) return undefined;
  return name.slice(0, name.length - suffix.length);
}

/** The names of the outputs of the resources that hold them. */
type StateKey =
  | keyof typeof OrderOutputFields
  | keyof typeof OrderRecipientsInputFields
  | keyof typeof OrderRecipientsOutputFields
  | keyof typeof CheckoutOutputFields;

/**
 * The outputs of the deployed resources that the review, `status`, the report, `orders` and `scans`
 * read from a stack's state; nothing else of the state leaves the reader (cli/review/plan.ts).
 * Checked against the resources' own output fields.
 */
export const STATE_OUTPUTS = [
  // Order, OrderRecipients, Checkout: the order they belong to.
  "orderId",
  // Order: the status the last read saw.
  "status",
  // Checkout: the status it left the order in.
  "orderStatus",
  // OrderRecipients: its drop report.
  "acceptedCount",
  "droppedCount",
  "dropReasons",
  "droppedSample",
  // Checkout: what it charged.
  "totalCharges",
  // OrderRecipients' index of keys (hashes) and fates, and how they are keyed: the prediction of a
  // draft and the scans by key.
  "index",
  "keyColumn",
  "identityField",
] as const satisfies readonly StateKey[];

export type StateOutput = (typeof STATE_OUTPUTS)[number];
