import type { OrderRecipient, RecipientAddress, RecipientMetadata, RecipientPersonal } from "./schemas";

/** The parts of an order recipient you have; everything else is filled in as the wire format wants. */
export interface OrderRecipientInput {
  id?: number;
  address?: Partial<RecipientAddress>;
  personal?: Partial<RecipientPersonal>;
  metadata?: Partial<RecipientMetadata>;
}

const ADDRESS_KEYS = ["address1", "address2", "city", "state", "zipCode", "zip4", "zip2", "country"] as const;
const PERSONAL_KEYS = ["firstName", "lastName", "toOrganization", "salutation"] as const;
const METADATA_NULLABLE_KEYS = [
  "dpvConfirmationCode",
  "custom1",
  "custom2",
  "custom3",
  "custom4",
  "custom5",
  "custom6",
  "image1",
  "image2",
  "image3",
  "image4",
  "image5",
  "image6",
  "salutation",
  "returnTitle",
  "returnFirstName",
  "returnLastName",
  "returnOrganization",
  "returnAddress1",
  "returnAddress2",
  "returnCity",
  "returnZip",
  "returnState",
  "email",
  "qrUrl",
  "radiusPinStreet",
  "radiusPinAddress",
  "deliveryStatus",
] as const;

function fill<K extends string>(keys: readonly K[], given: Partial<Record<K, string | null>> | undefined) {
  const out = {} as Record<K, string | null>;
  for (const key of keys) out[key] = given?.[key] ?? null;
  return out;
}

/**
 * Builds a complete order recipient for an append: the spec makes every key required, so missing
 * ones become null (and `text`, `text2`, `fullAddress`, which are never null, become ""). `id` is
 * 0: the service assigns ids.
 */
export function newOrderRecipient(input: OrderRecipientInput): OrderRecipient {
  return {
    id: input.id ?? 0,
    address: fill(ADDRESS_KEYS, input.address),
    personal: fill(PERSONAL_KEYS, input.personal),
    metadata: {
      ...fill(METADATA_NULLABLE_KEYS, input.metadata),
      text: input.metadata?.text ?? "",
      text2: input.metadata?.text2 ?? "",
      fullAddress: input.metadata?.fullAddress ?? "",
    },
  };
}
