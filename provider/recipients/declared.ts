/**
 * A recipient as a campaign declares it: flat fields, the way a CSV row or a JSON object holds
 * them. Turned into the service's wire shape (`OrderRecipient`) only when sent.
 */
import { z } from "zod";

const MAX_LENGTH = 500;
const tooLong = `must be at most ${MAX_LENGTH} characters long`;
const field = () => z.string().trim().max(MAX_LENGTH, tooLong).optional();
const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .max(MAX_LENGTH, tooLong);

/** Every field a declared recipient may carry; anything else is an error naming the field. */
// Each field's JSDoc is what a program's author reads on `Recipient`.
export const RecipientFields = {
  /** Personal: first name. A recipient needs a name (firstName, lastName) or an organization. */
  firstName: field(),
  /** Personal: last name. */
  lastName: field(),
  /** Personal: the organization the piece is addressed to. */
  toOrganization: field(),
  /** Personal: the salutation a template may print (`Dear Ada`). */
  salutation: field(),
  /** Address: the street line. Required. */
  address1: required("address1"),
  /** Address: a second line (apartment, suite). */
  address2: field(),
  /** Address: city. Required. */
  city: required("city"),
  /** Address: state, as its two-letter code or its name. Required. */
  state: required("state"),
  /** Address: ZIP code, 5 digits or ZIP+4 (`62701-1234`); text, so leading zeros stay. Required. */
  zipCode: required("zipCode"),
  /** Address: country; the service mails within the US (`US` when blank). */
  country: field(),
  /**
   * Merge field 1..6: text the template prints where it names the field. The one chosen as
   * `identityField` (default custom6) carries the recipient's identity key and must be left empty.
   */
  custom1: field(),
  /** Merge field 2 (see custom1). */
  custom2: field(),
  /** Merge field 3 (see custom1). */
  custom3: field(),
  /** Merge field 4 (see custom1). */
  custom4: field(),
  /** Merge field 5 (see custom1). */
  custom5: field(),
  /** Merge field 6 (see custom1). */
  custom6: field(),
  /**
   * Variable image 1..6: a public image URL the template shows in that slot; a blank or invalid
   * one falls back to the template's image.
   */
  image1: field(),
  /** Variable image 2 (see image1). */
  image2: field(),
  /** Variable image 3 (see image1). */
  image3: field(),
  /** Variable image 4 (see image1). */
  image4: field(),
  /** Variable image 5 (see image1). */
  image5: field(),
  /** Variable image 6 (see image1). */
  image6: field(),
  /** Return address override for this recipient: title. */
  returnTitle: field(),
  /** Return address override: first name. */
  returnFirstName: field(),
  /** Return address override: last name. */
  returnLastName: field(),
  /** Return address override: organization. */
  returnOrganization: field(),
  /** Return address override: street line. */
  returnAddress1: field(),
  /** Return address override: second line. */
  returnAddress2: field(),
  /** Return address override: city. */
  returnCity: field(),
  /** Return address override: state. */
  returnState: field(),
  /** Return address override: ZIP code. */
  returnZip: field(),
  /** Merge field: the recipient's email address. */
  email: field(),
  /** Where this recipient's QR code leads; blank keeps the order's QR target. */
  qrUrl: field(),
  /** Merge field: free text the template prints. */
  text: field(),
  /** Merge field: a second free text. */
  text2: field(),
};

/** The fields of which a recipient needs one: a name or an organization. */
const NAME_FIELDS = ["toOrganization", "firstName", "lastName"] as const;

export const DeclaredRecipient = z
  .strictObject(RecipientFields)
  .refine((r) => NAME_FIELDS.some((name) => Boolean(r[name])), {
    message: "a recipient needs a name (firstName, lastName) or an organization (toOrganization)",
    path: ["firstName"],
  });
export type DeclaredRecipient = z.infer<typeof DeclaredRecipient>;

export const DECLARED_FIELDS = Object.keys(DeclaredRecipient.shape) as (keyof DeclaredRecipient)[];

/** The fields the schema requires, read from it. */
const REQUIRED_FIELDS = DECLARED_FIELDS.filter((name) => !RecipientFields[name].safeParse(undefined).success);

/**
 * The schema's result for declared fields (text, under their canonical names) that meet every one
 * of its rules, found without it: each value trimmed, none too long, the required ones and a name
 * there. Undefined for any other: the schema then judges them, and words each problem. A list of a
 * million rows is read in a fraction of the schema's time this way.
 */
export function plainlyValid(fields: Record<string, string | undefined>): DeclaredRecipient | undefined {
  const data: Record<string, string> = {};
  for (const name in fields) {
    const value = (fields[name] as string).trim();
    if (value.length > MAX_LENGTH) return undefined;
    data[name] = value;
  }
  for (const name of REQUIRED_FIELDS) if (!data[name]) return undefined;
  if (!NAME_FIELDS.some((name) => Boolean(data[name]))) return undefined;
  return data as DeclaredRecipient;
}

/** The characters a recipients CSV file may separate its values with; `,` unless told otherwise. */
export const CSV_DELIMITERS = [",", ";", "\t"] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** Fields a recipient may use to hold its identity key (see docs/resources.md). */
export const IDENTITY_FIELDS = ["custom1", "custom2", "custom3", "custom4", "custom5", "custom6"] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];
/** The identity field of a list that names none. */
export const DEFAULT_IDENTITY_FIELD: IdentityField = "custom6";

/**
 * Common spellings of column names, so a CSV exported elsewhere loads without renaming. A Map, as
 * user text is looked up in it: a plain object would find `constructor` on Object.prototype.
 */
const ALIASES = new Map<string, keyof DeclaredRecipient>([
  ["zip", "zipCode"],
  ["postalcode", "zipCode"],
  ["postcode", "zipCode"],
  ["organization", "toOrganization"],
  ["company", "toOrganization"],
  ["address", "address1"],
  ["street", "address1"],
]);

const CANONICAL = new Map<string, keyof DeclaredRecipient>(
  DECLARED_FIELDS.map((name) => [name.toLowerCase(), name]),
);

/**
 * A column or key name with case, spaces, `_` and `-` ignored: the one way every column name is
 * compared (recipient fields, the key column, the columns to ignore), so `Customer ID` is
 * `customerId`.
 */
export const foldedName = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");

/** The declared field a column or key name means (case, spaces, `_` and `-` ignored), or undefined. */
export function canonicalFieldName(name: string): keyof DeclaredRecipient | undefined {
  return fieldOfFolded(foldedName(name));
}

/** canonicalFieldName of a name folded already (foldedName). */
export function fieldOfFolded(folded: string): keyof DeclaredRecipient | undefined {
  return CANONICAL.get(folded) ?? ALIASES.get(folded);
}

/**
 * The declared fields that are personal data: a name, an address or part of one, a way to reach
 * someone. A key column shows in reviews and in the state, so none of them may be one.
 */
export const PERSONAL_FIELDS: ReadonlySet<keyof DeclaredRecipient> = new Set([
  "firstName",
  "lastName",
  "toOrganization",
  "salutation",
  "address1",
  "address2",
  "city",
  "state",
  "zipCode",
  "email",
  "returnFirstName",
  "returnLastName",
  "returnOrganization",
  "returnAddress1",
  "returnAddress2",
  "returnCity",
  "returnState",
  "returnZip",
] as const);

/** Columns a recipient list may carry only as its key column, that are personal data all the same (folded). */
export const PERSONAL_COLUMNS: ReadonlySet<string> = new Set([
  "name",
  "fullname",
  "phone",
  "phonenumber",
  "telephone",
  "mobile",
  "emailaddress",
]);

/** Whether a column holds personal data: one of PERSONAL_FIELDS by any spelling, a full name or a phone. */
export function isPersonalColumn(name: string): boolean {
  const field = canonicalFieldName(name);
  return (field !== undefined && PERSONAL_FIELDS.has(field)) || PERSONAL_COLUMNS.has(foldedName(name));
}
