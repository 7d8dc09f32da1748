/**
 * What an `AddressBookEntry` declares. Each field's JSDoc is what a program's author reads on
 * `AddressBookEntryArgs`. The service cannot change an entry: a change of any field replaces it.
 */
import { z } from "zod";

const text = z.string().trim().max(200);
const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`);

/** The fields an AddressBookEntry declares. */
export const AddressBookEntryInputFields = {
  /** First name (up to 200 characters). An entry needs a name or `toOrganization`. */
  firstName: text.default(""),
  /** Last name (up to 200 characters). */
  lastName: text.default(""),
  /** Organization (up to 200 characters). */
  toOrganization: text.default(""),
  /** Street line. Required. */
  address1: required("address1"),
  /** A second line (apartment, suite; up to 200 characters). */
  address2: text.default(""),
  /** City. Required. */
  city: required("city"),
  /** State, as its two-letter code or its name. Required. */
  state: required("state"),
  /** ZIP code (5 digits or ZIP+4), as text so that leading zeros stay. Required. */
  zip: required("zip"),
  /** Phone number, as text. */
  phoneNumber: z.string().trim().min(1).nullable().default(null),
};

export const AddressBookEntryInputs = z
  .strictObject(AddressBookEntryInputFields)
  .refine((v) => Boolean(v.firstName || v.lastName || v.toOrganization), {
    message: "an address-book entry needs a name (firstName, lastName) or an organization (toOrganization)",
    path: ["firstName"],
  });
export type AddressBookEntryInputs = z.infer<typeof AddressBookEntryInputs>;
