/**
 * Deterministic address validation and standardization, so that tests can predict every outcome.
 * The rules are listed in docs/sandbox.md ("Addresses"); keep the two in step.
 */

import { type AddressInput, checkAddress } from "../../provider/api/address-rules";

export type { AddressInput };

const ALL_DIGITS = /^\d*$/;

const SECONDARY = new Set(["APT", "STE", "UNIT", "FL", "RM", "BLDG", "DEPT", "LOT", "SPC", "TRLR", "#"]);

/**
 * `Y` confirmed; `D` primary confirmed, secondary (unit) missing; `S` primary confirmed, secondary
 * not confirmed; `N` not deliverable.
 */
export type DpvCode = "Y" | "D" | "S" | "N";

export interface StandardAddress {
  address1: string;
  address2: string | null;
  city: string;
  state: string;
  zipCode: string;
  zip4: string;
  zip2: string;
  country: string;
}

export interface AddressResult {
  dpv: DpvCode;
  /** Set unless dpv is N. */
  standard: StandardAddress | null;
  /** Why the address is not deliverable or not fully confirmed, naming the field. */
  problems: { field: string; message: string }[];
}

/** A small stable hash (FNV-1a) so that derived digits are the same on every run. */
export function stableHash(text: string, from = 0x811c9dc5): number {
  // `from`: the hash of the text before this one, so a hash of joined texts needs no joined copy.
  // Kept a 32-bit integer in the loop (the same bits as unsigned), made unsigned once at the end.
  let h = from | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The service's address rules (provider/api/address-rules.ts, shared with the offline prediction of
 * drops), then what only the service knows: the carrier's verdict, simulated here by the word
 * UNDELIVERABLE, and the DPV code.
 */
export function validateAddress(input: AddressInput): AddressResult {
  const { problems, parts } = checkAddress(input);
  if (!parts) return { dpv: "N", standard: null, problems };
  if (parts.address1.includes("UNDELIVERABLE") && /\bUNDELIVERABLE\b/.test(parts.address1)) {
    problems.push({ field: "address1", message: "the carrier reports this address as undeliverable" });
  }
  const { address1, address2, city, state, zip5 } = parts;
  if (problems.length > 0 || zip5 === undefined || state === undefined)
    return { dpv: "N", standard: null, problems };

  const zipCode = zip5;
  // The hash of `${address1}|${zipCode}`, without building that text.
  const zip4 =
    parts.zip4 ??
    String(stableHash(zipCode, stableHash("|", stableHash(address1))) % 10_000).padStart(4, "0");
  const number = parts.number ?? "0";
  // Most house numbers are digits alone: then there is nothing to take out.
  const digits = ALL_DIGITS.test(number) ? number : number.replace(/\D/g, "");
  const zip2 = digits.slice(-2).padStart(2, "0");

  let dpv: DpvCode = "Y";
  if (address2 !== null) {
    const first = address2.startsWith("#") ? "#" : address2.split(" ")[0];
    if (!SECONDARY.has(first ?? "")) {
      dpv = "S";
      problems.push({ field: "address2", message: `'${address2}' is not a recognised unit designator` });
    }
  } else if (/\b(APARTMENTS|TOWERS)\b/.test(address1)) {
    dpv = "D";
    problems.push({ field: "address2", message: "a multi-unit building needs an apartment or suite number" });
  }
  // Its one-line form (`fullAddressOf`) is made only where it is shown: a stored row derives it.
  return { dpv, standard: { address1, address2, city, state, zipCode, zip4, zip2, country: "US" }, problems };
}

/** The one-line form of a standardized address (a stored recipient's `fullAddress`). */
export function fullAddressOf(a: Omit<StandardAddress, "zip2" | "country">): string {
  const line = a.address2 ? `${a.address1} ${a.address2}` : a.address1;
  return `${line}, ${a.city}, ${a.state} ${a.zipCode}-${a.zip4}`;
}

/** The do-not-mail key: standardized address1, city, state and 5-digit ZIP (no unit). */
export function doNotMailKey(a: { address1: string; city: string; state: string; zipCode: string }): string {
  return `${a.address1}|${a.city}|${a.state}|${a.zipCode}`;
}

/**
 * Where a recipient is mailed: its standardized address, unit included. Two recipients at the same
 * address key are at the same address, whatever their names.
 */
export function addressKey(a: {
  address1: string;
  address2?: string | null;
  city: string;
  state: string;
  zipCode: string;
}): string {
  return `${a.address1}|${a.address2 ?? ""}|${a.city}|${a.state}|${a.zipCode}`;
}

/**
 * Two recipients are duplicates when their names (first, last, organization; any case and spacing)
 * and standardized addresses, unit included, match: the names, then the address key.
 */
export function duplicateKey(
  name: {
    firstName?: string | null | undefined;
    lastName?: string | null | undefined;
    toOrganization?: string | null | undefined;
  },
  a: Parameters<typeof addressKey>[0],
): string {
  return `${nameKey(name.firstName)}|${nameKey(name.lastName)}|${nameKey(name.toOrganization)}|${addressKey(a)}`;
}

function nameKey(v: string | null | undefined): string {
  if (!v) return "";
  const upper = v.trim().toUpperCase();
  return singleSpaced(upper) ? upper : upper.replace(/\s+/g, " ");
}

/**
 * Whether `text` is printable ASCII with single spaces, where collapsing whitespace changes
 * nothing (most names): a scan instead of a regular expression's replace for each of them.
 */
function singleSpaced(text: string): boolean {
  let previous = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 || c > 126 || (c === 32 && previous === 32)) return false;
    previous = c;
  }
  return true;
}
