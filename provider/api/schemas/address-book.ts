import { z } from "zod";
import { id } from "./common";

/** Body of `POST /v1/address-book` (and its older path): every key required, `phoneNumber` nullable. */
export const AddressBookEntry = z
  .object({
    firstName: z.string(),
    lastName: z.string(),
    toOrganization: z.string(),
    address1: z.string(),
    address2: z.string(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
    phoneNumber: z.string().nullable(),
  })
  .meta({
    id: "AddressBookEntry",
    description: "An address-book entry; the service standardizes the address.",
  });
export type AddressBookEntry = z.infer<typeof AddressBookEntry>;

/** Payload of an address-book create. The stored record beyond its id is not shown by the spec. */
export const AddressBookResult = z
  .object({ id: id() })
  .meta({ id: "AddressBookResult", description: "Id of the created address-book entry." });
export type AddressBookResult = z.infer<typeof AddressBookResult>;
