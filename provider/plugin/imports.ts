/**
 * `pulumi import` and the `import:` resource option on the plugin's path: which kinds an id adopts,
 * the id's own check (before any request about it), and the one line a refusal prints.
 *
 * The engine asks Read with the id alone (no state, no inputs), so a kind can be imported only when
 * its id names one object the service reads back whole, inputs included. Of the service's objects
 * only an order is so (spec: GET /v1/order); every other kind says why not and what to do instead.
 */
import { KIND, type ResourceKind } from "../resources/kinds";
import type { providerFor } from "../resources/registry";
import { shown } from "../text";
import { inputFieldsOf } from "./fields";

type Values = Record<string, unknown>;
type Hooks = ReturnType<typeof providerFor>;

/** Ids the service gives: whole numbers from 1, no sign, no leading zero, within a safe integer. */
const SERVICE_ID = /^[1-9][0-9]{0,15}$/;

/** What each kind that cannot be imported says instead: why, and what to use. */
const NOT_IMPORTABLE: Record<Exclude<ResourceKind, typeof KIND.Order>, string> = {
  [KIND.ProviderInfo]:
    "it holds nothing at the service (the provider computes it). Declare it in the program; `pulumi up` records it.",
  [KIND.OrderRecipients]:
    "the service stores each address standardized, so the list it gives back is not the list a program declares. " +
    "Declare OrderRecipients with the order's id as orderId: `pulumi up` compares the list with what the order " +
    "holds and sends only the difference.",
  [KIND.Checkout]:
    "its terms (maxTotal, expectedRecipientCount) are the program's guard, not something the service stores. " +
    "Declare a Checkout for the order: `pulumi up` finds the order already checked out, records it and charges nothing.",
  [KIND.AddressBookEntry]:
    "the service can create address-book entries but has no way to read one back, so the entry could be neither " +
    "found nor read. To refer to an existing entry, use its id as a plain value; a declared entry is created anew.",
  [KIND.Conversions]:
    "the service reports a conversion upload's status, never its records, so the records cannot be read back. " +
    "Declare the records in a Conversions resource; `pulumi up` uploads them as a new upload.",
  [KIND.AutomationRecipients]:
    "the service lists automations but not the recipients added to them. Declare AutomationRecipients with the " +
    "recipients still to mail: `pulumi up` mails each of them once.",
  [KIND.ProximitySearch]:
    "a proximity search is a request the service acts on once, with no id to read it back by. " +
    "Declare a ProximitySearch only for a new search.",
};

/** The one line `pulumi import` prints for a kind that cannot be imported. */
export function notImportable(kind: Exclude<ResourceKind, typeof KIND.Order>): string {
  return `${kind} cannot be imported: ${NOT_IMPORTABLE[kind]} (Only an Order can be imported, by its order id.)`;
}

/** An id that cannot name an order, refused before any request; undefined for a well-formed one. */
export function badOrderId(id: string): string | undefined {
  if (SERVICE_ID.test(id) && Number.isSafeInteger(Number(id))) return undefined;
  return (
    `"${shown(id)}" is not an order id: an order id is a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, ` +
    "as the web application and `pulumi stack output` show it. Nothing was asked of the service."
  );
}

/** An order the service does not have for this account. */
export function orderNotFound(id: string): string {
  return (
    `Order ${id} does not exist for this account at the service (or was deleted): nothing was imported. ` +
    "Check the order id and the stack's directmail:apiKey."
  );
}

/**
 * Read for an import: the state the service holds for the id, and the inputs a program declares to
 * match it (the state's declared fields, what `pulumi import` prints as code).
 */
export async function readForImport(
  kind: ResourceKind,
  id: string,
  hooks: Hooks,
): Promise<{ id: string; state: Values; inputs: Values }> {
  if (kind !== KIND.Order) throw new Error(notImportable(kind));
  const problem = badOrderId(id);
  if (problem) throw new Error(problem);
  const result = await hooks.read(id, {});
  if (result.id === undefined) throw new Error(orderNotFound(id));
  const state = (result.props ?? {}) as Values;
  const fields = inputFieldsOf(kind);
  const inputs = Object.fromEntries(Object.entries(state).filter(([key]) => Object.hasOwn(fields, key)));
  return { id: result.id, state, inputs };
}
