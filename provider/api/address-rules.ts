/**
 * The service's address rules that need nothing but the address itself: the required fields, a US
 * country, a state, a ZIP or ZIP+4 code, and a primary (house) number or a well-formed PO box. A
 * recipient failing one is dropped with reason code ADDRESS_NOT_VALID. The sandbox judges every
 * recipient with these functions, and `directmail validate` and the review predict drops with them,
 * so the two cannot disagree (docs/sandbox.md, "Addresses", lists them). Each rule is a single
 * pass or an anchored regular expression without nested repetition: linear in a value's length.
 */
import {
  remembered,
  standardizeCity,
  standardizeLine,
  standardizeState,
  standardizeUnitLine,
} from "./schemas/address-standard";

/** The reason code of a recipient dropped for its address (spec, "Errors"). */
export const ADDRESS_NOT_VALID = "ADDRESS_NOT_VALID";

export interface AddressInput {
  address1?: string | null | undefined;
  address2?: string | null | undefined;
  city?: string | null | undefined;
  state?: string | null | undefined;
  zipCode?: string | null | undefined;
  country?: string | null | undefined;
}

/** A rule an address breaks: the wire field (of the `address` group) and why. */
export interface AddressProblem {
  field: "address1" | "city" | "state" | "zipCode" | "country" | "address2";
  message: string;
}

/** An address standardized as far as its rules go. */
export interface AddressParts {
  address1: string;
  address2: string | null;
  city: string;
  /** The USPS code; undefined when the state is not one. */
  state: string | undefined;
  /** The 5-digit ZIP; undefined when the code is not a ZIP or ZIP+4. */
  zip5: string | undefined;
  /** The 4 digits of a ZIP+4, when given. */
  zip4: string | undefined;
  /** The house number (`12B`) or PO box number; undefined when line 1 has neither. */
  number: string | undefined;
}

export interface CheckedAddress {
  /** Every rule the address breaks, in the order the service reports them. */
  problems: AddressProblem[];
  /** Undefined when a required field is missing or the country is not the US. */
  parts: AddressParts | undefined;
}

const blank = (v: string | null | undefined): v is null | undefined | "" => v == null || v.trim() === "";

const COUNTRIES = new Set(["", "US", "USA", "U S", "U S A", "UNITED STATES", "UNITED STATES OF AMERICA"]);

const isUs = remembered((country: string) =>
  COUNTRIES.has(country.toUpperCase().replace(/[.]/g, " ").replace(/\s+/g, " ").trim()),
);
const cityOf = remembered(standardizeCity);
const stateOf = remembered(standardizeState);

const REQUIRED = ["address1", "city", "state", "zipCode"] as const;
const ZIP = /^(\d{5})(?:-?(\d{4}))?$/;
/** A ZIP (or ZIP+4) whose leading zeros a spreadsheet dropped: 02134 read as the number 2134. */
const ZIP_LOST_ZEROS = /^(\d{3,4})(?:-\d{4})?$/;
/** A house number (`12`, `12B`, `12-14`) followed by a word. */
const PRIMARY = /^(\d+[A-Z]?)(?:-\d+)? \S/;
const PO_BOX = /^(?:PO|P O|POST OFFICE) BOX (\d+)$/;

/** The rules of an address (see the top of this file), and its standardized parts. */
export function checkAddress(input: AddressInput): CheckedAddress {
  const problems: AddressProblem[] = [];
  for (const field of REQUIRED)
    if (blank(input[field])) problems.push({ field, message: `${field} is required` });
  if (!isUs(input.country ?? ""))
    problems.push({ field: "country", message: "only US addresses are mailed" });
  if (problems.length > 0) return { problems, parts: undefined };

  const address1 = standardizeLine(input.address1 as string);
  const state = stateOf(input.state as string);
  const zip = ZIP.exec((input.zipCode as string).trim());
  if (!state) problems.push({ field: "state", message: `'${input.state}' is not a US state or territory` });
  if (!zip) problems.push({ field: "zipCode", message: zipMessage(input.zipCode as string) });
  else if (zip[1] === "00000") problems.push({ field: "zipCode", message: "ZIP code 00000 does not exist" });
  const primary = PRIMARY.exec(address1);
  // A line that starts with a house number is no PO box: that test is skipped.
  const poBox = primary ? null : PO_BOX.exec(address1);
  if (!primary && !poBox)
    problems.push({ field: "address1", message: "address1 has no primary (house) number" });
  return {
    problems,
    parts: {
      address1,
      address2: blank(input.address2) ? null : standardizeUnitLine(input.address2 as string),
      city: cityOf(input.city as string),
      state,
      zip5: zip && zip[1] !== "00000" ? zip[1] : undefined,
      zip4: zip?.[2],
      number: primary?.[1] ?? poBox?.[1],
    },
  };
}

/**
 * Why a code is not a ZIP. It quotes the value once, and only at its start, so that the reason can
 * be shown with the value taken out (api/reasons.ts): a ZIP code is personal data.
 */
function zipMessage(code: string): string {
  const lost = ZIP_LOST_ZEROS.exec(code.trim())?.[1];
  if (lost === undefined) return `'${code}' is not a ZIP or ZIP+4 code`;
  const zeros = lost.length === 4 ? "its leading zero" : "its leading zeros";
  return (
    `'${code}' is a ZIP code of ${lost.length} digits: a spreadsheet may have dropped ${zeros} ` +
    "(format the column as text and write all 5 digits)"
  );
}

/** The reason the service gives a recipient dropped for these problems. */
export function addressNotValidReason(problems: readonly { field: string; message: string }[]): string {
  return `${ADDRESS_NOT_VALID}: ${problems.map((p) => `address.${p.field}: ${p.message}`).join("; ")}`;
}
