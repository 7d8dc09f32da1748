/**
 * The inputs the engine stores are the program's declaration, as `check` normalized it, and
 * nothing else in plain sight. `pulumi refresh --run-program` (and any step that runs the program
 * beside a refresh) shows each stored input the program does not declare as removed. So what
 * `check` adds goes to the engine in another form, and the hooks get it back unchanged:
 * - what it computes from a list (digest, counts) is stored under `__`-prefixed names, which the
 *   engine keeps but never shows;
 * - a default it filled in for an input left out is not stored; the hooks get it filled again.
 * And what a program gives for `check` alone (a CampaignFolder's `programRead`, what its own read of
 * a list found) is registered under a `__`-prefixed name (`forCheckOnly`): `check` takes it and
 * stores nothing of it, and the engine never compares it with the stored inputs.
 */
import type { z } from "zod";
import { AddressBookEntryInputFields, AddressBookEntryInputs } from "./address-book-entry/inputs";
import { AutomationRecipientsInputFields, AutomationRecipientsInputs } from "./automation-recipients/inputs";
import { CheckoutInputFields, CheckoutInputs } from "./checkout/inputs";
import { ConversionsInputFields, ConversionsInputs } from "./conversions/inputs";
import { KIND, type ResourceKind } from "./kinds";
import { OrderInputFields, OrderInputs } from "./order/inputs";
import { OrderRecipientsInputFields, OrderRecipientsInputs } from "./order-recipients/inputs";
import { ProviderInfoInputFields, ProviderInfoInputs } from "./provider-info/inputs";
import { ProximitySearchInputFields, ProximitySearchInputs } from "./proximity-search/inputs";

type Inputs = Record<string, unknown>;

interface KindInputs {
  /** Each input's schema: the declared fields and the computed ones. */
  fields: Record<string, z.ZodType>;
  /** The inputs `check` computes, not declared by the program. */
  computed: ReadonlySet<string>;
}

/** A kind's inputs: its checked schema, and the fields a program declares. */
function kindInputs(
  checked: { shape: Record<string, z.ZodType> },
  declared: Record<string, unknown>,
): KindInputs {
  return {
    fields: checked.shape,
    computed: new Set(Object.keys(checked.shape).filter((field) => !Object.hasOwn(declared, field))),
  };
}

const KINDS: Record<string, KindInputs> = {
  [KIND.ProviderInfo]: kindInputs(ProviderInfoInputs, ProviderInfoInputFields),
  [KIND.Order]: kindInputs(OrderInputs, OrderInputFields),
  [KIND.OrderRecipients]: kindInputs(OrderRecipientsInputs, OrderRecipientsInputFields),
  [KIND.Checkout]: kindInputs(CheckoutInputs, CheckoutInputFields),
  [KIND.AddressBookEntry]: kindInputs(AddressBookEntryInputs, AddressBookEntryInputFields),
  [KIND.Conversions]: kindInputs(ConversionsInputs, ConversionsInputFields),
  [KIND.AutomationRecipients]: kindInputs(AutomationRecipientsInputs, AutomationRecipientsInputFields),
  [KIND.ProximitySearch]: kindInputs(ProximitySearchInputs, ProximitySearchInputFields),
} satisfies Record<ResourceKind, KindInputs>;

const HIDDEN = "__";

/** The default of an input left out, or `undefined` when it has none. */
function defaultOf(field: z.ZodType): unknown {
  const parsed = field.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/** What `check` returns, in the form the engine stores: `declared` is what the program registered. */
export function toEngineInputs(kind: string, checked: Inputs, declared: Inputs): Inputs {
  const known = KINDS[kind];
  if (!known) return checked;
  const stored: Inputs = {};
  for (const [key, value] of Object.entries(checked)) {
    if (known.computed.has(key)) stored[HIDDEN + key] = value;
    else if (declared[key] !== undefined || !Object.hasOwn(known.fields, key)) stored[key] = value;
    else if (JSON.stringify(value) !== JSON.stringify(defaultOf(known.fields[key] as z.ZodType)))
      stored[key] = value;
  }
  return stored;
}

/** An input a program gives for `check` alone, under the name the engine neither stores nor compares. */
export function forCheckOnly(field: string, value: unknown): Inputs {
  return value === undefined ? {} : { [HIDDEN + field]: value };
}

/** Inputs with the computed fields under their plain names (`__digest` as `digest`). */
export function withPlainNames(kind: string, values: Inputs): Inputs {
  const known = KINDS[kind];
  if (!known) return values;
  const inputs: Inputs = {};
  for (const [key, value] of Object.entries(values)) {
    const plain = key.startsWith(HIDDEN) ? key.slice(HIDDEN.length) : key;
    if (plain !== key && !known.computed.has(plain)) inputs[key] = value;
    else inputs[plain] = value;
  }
  return inputs;
}

/**
 * The inputs as the hooks know them, from what the engine stores (or what an earlier release
 * stored, with plain names and its defaults written out).
 */
export function fromEngineInputs(kind: string, stored: Inputs): Inputs {
  const known = KINDS[kind];
  // No inputs at all: a resource still to be created, as `check` is told.
  if (!known || Object.keys(stored).length === 0) return stored;
  const inputs = withPlainNames(kind, stored);
  for (const [key, field] of Object.entries(known.fields)) {
    if (inputs[key] !== undefined) continue;
    const fallback = defaultOf(field);
    if (fallback !== undefined) inputs[key] = fallback;
  }
  return inputs;
}
