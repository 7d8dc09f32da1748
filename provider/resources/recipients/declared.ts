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
export const DeclaredRecipient = z
  .strictObject({
    firstName: field(),
    lastName: field(),
    toOrganization: field(),
    salutation: field(),
    address1: required("address1"),
    address2: field(),
    city: required("city"),
    state: required("state"),
    zipCode: required("zipCode"),
    country: field(),
    custom1: field(),
    custom2: field(),
    custom3: field(),
    custom4: field(),
    custom5: field(),
    custom6: field(),
    image1: field(),
    image2: field(),
    image3: field(),
    image4: field(),
    image5: field(),
    image6: field(),
    returnTitle: field(),
    returnFirstName: field(),
    returnLastName: field(),
    returnOrganization: field(),
    returnAddress1: field(),
    returnAddress2: field(),
    returnCity: field(),
    returnState: field(),
    returnZip: field(),
    email: field(),
    qrUrl: field(),
    text: field(),
    text2: field(),
  })
  .refine((r) => Boolean(r.toOrganization || r.firstName || r.lastName), {
    message: "a recipient needs a name (firstName, lastName) or an organization (toOrganization)",
    path: ["firstName"],
  });
export type DeclaredRecipient = z.infer<typeof DeclaredRecipient>;

export const DECLARED_FIELDS = Object.keys(DeclaredRecipient.shape) as (keyof DeclaredRecipient)[];

/** Fields a recipient may use to hold its identity key (see docs/resources.md). */
export const IDENTITY_FIELDS = ["custom1", "custom2", "custom3", "custom4", "custom5", "custom6"] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

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

/** The declared field a column or key name means (case, spaces, `_` and `-` ignored), or undefined. */
export function canonicalFieldName(name: string): keyof DeclaredRecipient | undefined {
  const folded = name.toLowerCase().replace(/[\s_-]+/g, "");
  return CANONICAL.get(folded) ?? ALIASES.get(folded);
}
