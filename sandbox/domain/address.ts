/**
 * Deterministic address validation and standardization, so that tests can predict every outcome.
 * The rules are listed in docs/sandbox.md ("Addresses"); keep the two in step.
 */

import {
  standardizeCity,
  standardizeLine,
  standardizeState,
} from "../../provider/api/schemas/address-standard";

const SECONDARY = new Set(["APT", "STE", "UNIT", "FL", "RM", "BLDG", "DEPT", "LOT", "SPC", "TRLR", "#"]);

export interface AddressInput {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  state?: string | null;
  zipCode?: string | null;
  country?: string | null;
}

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
  fullAddress: string;
}

export interface AddressResult {
  dpv: DpvCode;
  /** Set unless dpv is N. */
  standard: StandardAddress | null;
  /** Why the address is not deliverable or not fully confirmed, naming the field. */
  problems: { field: string; message: string }[];
}

const blank = (v: string | null | undefined): v is null | undefined | "" => v == null || v.trim() === "";

/** A small stable hash (FNV-1a) so that derived digits are the same on every run. */
export function stableHash(text: string, from = 0x811c9dc5): number {
  // `from`: the hash of the text before this one, so a hash of joined texts needs no joined copy.
  let h = from;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const COUNTRIES = new Set(["", "US", "USA", "U S", "U S A", "UNITED STATES", "UNITED STATES OF AMERICA"]);

/**
 * `fn` with its answers remembered: a mailing list repeats few cities and states. Only short texts,
 * at most 10,000 of them, so the memory stays small whatever the requests hold.
 */
function remembered<T>(fn: (text: string) => T): (text: string) => T {
  const answers = new Map<string, T>();
  return (text) => {
    const known = answers.get(text);
    if (known !== undefined || answers.has(text)) return known as T;
    const answer = fn(text);
    if (text.length > 64) return answer;
    if (answers.size >= 10_000) answers.clear();
    answers.set(text, answer);
    return answer;
  };
}

const isUs = remembered((country: string) =>
  COUNTRIES.has(country.toUpperCase().replace(/[.]/g, " ").replace(/\s+/g, " ").trim()),
);
const cityOf = remembered(standardizeCity);
const stateOf = remembered(standardizeState);

const REQUIRED = ["address1", "city", "state", "zipCode"] as const;

export function validateAddress(input: AddressInput): AddressResult {
  const problems: { field: string; message: string }[] = [];
  for (const field of REQUIRED)
    if (blank(input[field])) problems.push({ field, message: `${field} is required` });
  if (!isUs(input.country ?? ""))
    problems.push({ field: "country", message: `only US addresses are mailed` });
  if (problems.length > 0) return { dpv: "N", standard: null, problems };

  const address1 = standardizeLine(input.address1 as string);
  const address2 = blank(input.address2) ? null : standardizeLine(input.address2 as string);
  const city = cityOf(input.city as string);
  const state = stateOf(input.state as string);
  const zipMatch = /^(\d{5})(?:-?(\d{4}))?$/.exec((input.zipCode as string).trim());

  if (!state) problems.push({ field: "state", message: `'${input.state}' is not a US state or territory` });
  if (!zipMatch)
    problems.push({ field: "zipCode", message: `'${input.zipCode}' is not a ZIP or ZIP+4 code` });
  else if (zipMatch[1] === "00000")
    problems.push({ field: "zipCode", message: "ZIP code 00000 does not exist" });
  const primary = /^(\d+[A-Z]?)(?:-\d+)? \S/.exec(address1);
  // A line that starts with a house number is no PO box: that test is skipped.
  const poBox = primary ? null : /^(?:PO|P O|POST OFFICE) BOX (\d+)$/.exec(address1);
  if (!primary && !poBox) {
    problems.push({ field: "address1", message: "address1 has no primary (house) number" });
  }
  if (/\bUNDELIVERABLE\b/.test(address1)) {
    problems.push({ field: "address1", message: "the carrier reports this address as undeliverable" });
  }
  if (problems.length > 0 || !zipMatch || !state) return { dpv: "N", standard: null, problems };

  const zipCode = zipMatch[1] as string;
  // The hash of `${address1}|${zipCode}`, without building that text.
  const zip4 =
    zipMatch[2] ??
    String(stableHash(zipCode, stableHash("|", stableHash(address1))) % 10_000).padStart(4, "0");
  const digits = (primary?.[1] ?? poBox?.[1] ?? "0").replace(/\D/g, "");
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
  const standard = { address1, address2, city, state, zipCode, zip4, zip2, country: "US", fullAddress: "" };
  standard.fullAddress = fullAddressOf(standard);
  return { dpv, standard, problems };
}

/** The one-line form of a standardized address (a stored recipient's `fullAddress`). */
export function fullAddressOf(a: Omit<StandardAddress, "zip2" | "country" | "fullAddress">): string {
  const line = a.address2 ? `${a.address1} ${a.address2}` : a.address1;
  return `${line}, ${a.city}, ${a.state} ${a.zipCode}-${a.zip4}`;
}

/** The do-not-mail key: standardized address1, city, state and 5-digit ZIP (no unit). */
export function doNotMailKey(a: { address1: string; city: string; state: string; zipCode: string }): string {
  return `${a.address1}|${a.city}|${a.state}|${a.zipCode}`;
}

/** Two recipients are duplicates when their names and standardized addresses, unit included, match. */
export function duplicateKey(
  name: { firstName?: string | null; lastName?: string | null; toOrganization?: string | null },
  a: StandardAddress,
): string {
  return `${nameKey(name.firstName)}|${nameKey(name.lastName)}|${nameKey(name.toOrganization)}|${a.address1}|${a.address2 ?? ""}|${a.city}|${a.state}|${a.zipCode}`;
}

const nameKey = (v: string | null | undefined) => (v ? v.trim().toUpperCase().replace(/\s+/g, " ") : "");
