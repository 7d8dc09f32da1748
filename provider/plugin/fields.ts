/** Each kind's declared input fields and its output fields: the zod schemas both doors share. */
import type { z } from "zod";
import { AddressBookEntryInputFields } from "../resources/address-book-entry/inputs";
import { AddressBookEntryOutputFields } from "../resources/address-book-entry/outputs";
import { AutomationRecipientsInputFields } from "../resources/automation-recipients/inputs";
import { AutomationRecipientsOutputFields } from "../resources/automation-recipients/outputs";
import { CheckoutInputFields } from "../resources/checkout/inputs";
import { CheckoutOutputFields } from "../resources/checkout/outputs";
import { ConversionsInputFields } from "../resources/conversions/inputs";
import { ConversionsOutputFields } from "../resources/conversions/outputs";
import { KIND, type ResourceKind } from "../resources/kinds";
import { OrderInputFields } from "../resources/order/inputs";
import { OrderOutputFields } from "../resources/order/outputs";
import { OrderRecipientsInputFields } from "../resources/order-recipients/inputs";
import { OrderRecipientsOutputFields } from "../resources/order-recipients/outputs";
import { ProviderInfoInputFields } from "../resources/provider-info/inputs";
import { ProviderInfoOutputFields } from "../resources/provider-info/outputs";
import { ProximitySearchInputFields } from "../resources/proximity-search/inputs";
import { ProximitySearchOutputFields } from "../resources/proximity-search/outputs";

type Fields = Record<string, z.ZodType>;

const FIELDS: Record<ResourceKind, { inputs: Fields; outputs: Fields }> = {
  [KIND.ProviderInfo]: { inputs: ProviderInfoInputFields, outputs: ProviderInfoOutputFields },
  [KIND.Order]: { inputs: OrderInputFields, outputs: OrderOutputFields },
  [KIND.OrderRecipients]: { inputs: OrderRecipientsInputFields, outputs: OrderRecipientsOutputFields },
  [KIND.Checkout]: { inputs: CheckoutInputFields, outputs: CheckoutOutputFields },
  [KIND.AddressBookEntry]: { inputs: AddressBookEntryInputFields, outputs: AddressBookEntryOutputFields },
  [KIND.Conversions]: { inputs: ConversionsInputFields, outputs: ConversionsOutputFields },
  [KIND.AutomationRecipients]: {
    inputs: AutomationRecipientsInputFields,
    outputs: AutomationRecipientsOutputFields,
  },
  [KIND.ProximitySearch]: { inputs: ProximitySearchInputFields, outputs: ProximitySearchOutputFields },
};

/** The fields a program declares for a kind. */
export function inputFieldsOf(kind: ResourceKind): Fields {
  return FIELDS[kind].inputs;
}

/** The fields a kind reports beside its inputs. */
export function outputFieldsOf(kind: ResourceKind): Fields {
  return FIELDS[kind].outputs;
}
