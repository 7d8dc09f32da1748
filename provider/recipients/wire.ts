/**
 * Declared recipients as the service sees them: the wire shape sent, the identity value carried in
 * the identity field, and what can be told from a recipient as the service lists it back.
 */
import { newOrderRecipient, type OrderRecipientInput, orderRecipientJson } from "../api/recipients";
// The service standardizes addresses per USPS Publication 28; the rules live with the wire schemas,
// shared with the sandbox.
import {
  standardizeCity,
  standardizeLine,
  standardizeState,
  standardizeUnitLine,
} from "../api/schemas/address-standard";
import { type OrderRecipient, RecipientAddress, RecipientPersonal } from "../api/schemas/recipient";
import { DECLARED_FIELDS, type DeclaredRecipient, type IdentityField } from "./declared";
import { UNKNOWN_CONTENT } from "./identity/index-codec";
import { KEY_HEX_LENGTH } from "./identity/table";
import type { LoadedRecipient } from "./survey";

// A declared field goes in the wire group that has it (declared names are wire names); the rest
// are metadata.
const ADDRESS_FIELDS = new Set(Object.keys(RecipientAddress.shape));
const PERSONAL_FIELDS = new Set(Object.keys(RecipientPersonal.shape));

type WireGroup = "address" | "personal" | "metadata";
const groupOf = (field: string): WireGroup =>
  ADDRESS_FIELDS.has(field) ? "address" : PERSONAL_FIELDS.has(field) ? "personal" : "metadata";
/** Each declared field with its wire group, worked out once (listedHash runs per listed recipient). */
const DECLARED_PLACES = DECLARED_FIELDS.map((field) => [field, groupOf(field)] as const);

/** The value of a declared field in a listed recipient (declared names are wire names). */
function listedValue(
  recipient: OrderRecipient,
  field: keyof DeclaredRecipient,
  group = groupOf(field),
): string {
  return (recipient[group] as Record<string, string | null>)[field]?.trim() ?? "";
}

/**
 * What the identity field carries: the key, followed by the content digest when it differs from
 * the key (under a key column), so that a listing tells which content each recipient was sent with.
 */
export function identityValue(recipient: Pick<LoadedRecipient, "key" | "content">): string {
  return recipient.content === recipient.key ? recipient.key : `${recipient.key}${recipient.content}`;
}

const IDENTITY_PATTERN = new RegExp(`^[0-9a-f]{${KEY_HEX_LENGTH}}(?:[0-9a-f]{${KEY_HEX_LENGTH}})?$`);

/**
 * The key and content digest a listed recipient carries, or undefined for one this program did not
 * add. A key alone under a key column (appended by a version that did not send the content digest)
 * has UNKNOWN_CONTENT.
 */
export function identityOf(
  recipient: OrderRecipient,
  identityField: IdentityField,
  keyed: boolean,
): { key: string; content: string } | undefined {
  const value = recipient.metadata[identityField];
  if (typeof value !== "string" || !IDENTITY_PATTERN.test(value)) return undefined;
  const key = value.slice(0, KEY_HEX_LENGTH);
  if (value.length > KEY_HEX_LENGTH) return { key, content: value.slice(KEY_HEX_LENGTH) };
  return { key, content: keyed ? UNKNOWN_CONTENT : key };
}

/** The wire shape of a declared recipient, its identity value in the identity field. */
export function toWire(recipient: LoadedRecipient, identityField: IdentityField): OrderRecipient {
  return newOrderRecipient(wireGroups(recipient, identityField));
}

/** `JSON.stringify(toWire(recipient, identityField))`, written directly (see orderRecipientJson). */
export function wireJson(recipient: LoadedRecipient, identityField: IdentityField): string {
  return orderRecipientJson(wireGroups(recipient, identityField));
}

/** A declared recipient's fields in their wire groups. */
function wireGroups(recipient: LoadedRecipient, identityField: IdentityField): OrderRecipientInput {
  const groups: Record<WireGroup, Record<string, string>> = { address: {}, personal: {}, metadata: {} };
  const fields = recipient.recipient as Record<string, string | undefined>;
  for (const [field, group] of DECLARED_PLACES) {
    const value = fields[field];
    if (value !== undefined) groups[group][field] = value;
  }
  const { address, personal, metadata } = groups;
  // The service reads the salutation in both groups.
  if (recipient.recipient.salutation !== undefined) metadata.salutation = recipient.recipient.salutation;
  metadata[identityField] = identityValue(recipient);
  return { address, personal, metadata };
}

/**
 * A 32-bit hash (never 0) of the declared fields of a recipient as the service lists it. The
 * listing is standardized, so it is compared only with an earlier listing of the same recipient:
 * a difference means the recipient was changed at the service.
 *
 * It only tells a change from none, and runs once per listed recipient: FNV-1a over each trimmed
 * value, its length first (so values cannot run into each other), then murmur3's finalizer to
 * spread the bits. A sha256 of the values as JSON took about 2 µs a recipient (this, 0.6) and,
 * with its garbage, a quarter of the provider's CPU in a listing (docs/performance.md). Index
 * version 3 records this hash (index-codec.ts).
 */
export function listedHash(recipient: OrderRecipient): number {
  let h = 0x811c9dc5;
  for (const [field, group] of DECLARED_PLACES) {
    const value = listedValue(recipient, field, group);
    h = Math.imul(h ^ value.length, 0x01000193);
    for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  const value = (h ^ (h >>> 16)) >>> 0;
  return value === 0 ? 1 : value;
}

const usCountry = (text: string) => {
  const folded = text.toUpperCase().replace(/[.\s]/g, "");
  return ["", "US", "USA", "UNITEDSTATES", "UNITEDSTATESOFAMERICA"].includes(folded) ? "US" : folded;
};
const ZIP = /^(\d{5})(?:-?(\d{4}))?$/;

/** Whether a declared value and a listed one are the same once the service's rules are applied. */
function sameValue(field: keyof DeclaredRecipient, declared: string, listed: OrderRecipient): boolean {
  const have = listedValue(listed, field);
  switch (field) {
    case "address1":
      return standardizeLine(declared) === standardizeLine(have);
    case "address2":
      return standardizeUnitLine(declared) === standardizeUnitLine(have);
    case "city":
      return standardizeCity(declared) === standardizeCity(have);
    case "state":
      return (standardizeState(declared) ?? declared) === (standardizeState(have) ?? have);
    case "zipCode": {
      const zip = ZIP.exec(declared);
      if (!zip) return declared === have;
      return zip[1] === have.slice(0, 5) && (zip[2] === undefined || zip[2] === listed.address.zip4);
    }
    case "country":
      return usCountry(declared) === usCountry(have);
    case "qrUrl":
      // Left blank, the service fills in the order's QR target.
      return declared === "" || declared === have;
    default:
      return declared === have;
  }
}

/**
 * Whether a listed recipient is the declared one, for a recipient whose content digest is not
 * known. Mistakes go one way only: a recipient the service changed beyond these rules counts as
 * different (and is replaced once); a changed address or field never counts as the same.
 */
export function matchesListed(
  declared: DeclaredRecipient,
  listed: OrderRecipient,
  identityField: IdentityField,
): boolean {
  return DECLARED_FIELDS.every(
    (field) => field === identityField || sameValue(field, declared[field]?.trim() ?? "", listed),
  );
}
