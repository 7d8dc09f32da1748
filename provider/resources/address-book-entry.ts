/**
 * `AddressBookEntry`: one entry of the account's address book. The service can create entries but
 * not read, change or delete them, so every change is a replacement (a new entry) and `delete`
 * only forgets the entry: it stays in the address book.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { checkInputs, isUnknown } from "./check";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { progress } from "./progress";
import { thinProvider } from "./thin-provider";

export interface AddressBookEntryArgs {
  firstName?: pulumi.Input<string>;
  lastName?: pulumi.Input<string>;
  toOrganization?: pulumi.Input<string>;
  address1: pulumi.Input<string>;
  address2?: pulumi.Input<string>;
  city: pulumi.Input<string>;
  state: pulumi.Input<string>;
  zip: pulumi.Input<string>;
  phoneNumber?: pulumi.Input<string>;
}

const text = z.string().trim().max(200);
const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`);

export const AddressBookEntryInputs = z
  .strictObject({
    firstName: text.default(""),
    lastName: text.default(""),
    toOrganization: text.default(""),
    address1: required("address1"),
    address2: text.default(""),
    city: required("city"),
    state: required("state"),
    zip: required("zip"),
    phoneNumber: z.string().trim().min(1).nullable().default(null),
  })
  .refine((v) => Boolean(v.firstName || v.lastName || v.toOrganization), {
    message: "an address-book entry needs a name (firstName, lastName) or an organization (toOrganization)",
    path: ["firstName"],
  });
export type AddressBookEntryInputs = z.infer<typeof AddressBookEntryInputs>;

export class AddressBookEntry extends pulumi.dynamic.Resource {
  declare readonly entryId: pulumi.Output<number>;
  declare readonly address1: pulumi.Output<string>;
  declare readonly city: pulumi.Output<string>;

  constructor(name: string, args: AddressBookEntryArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("AddressBookEntry"),
      name,
      { ...args, entryId: undefined },
      opts,
      "directmail",
      "AddressBookEntry",
    );
  }
}

export function addressBookEntryImplementation(ctx: ProviderContext): ResourceImplementation {
  return {
    async check(_olds, news) {
      return checkInputs(AddressBookEntryInputs, news);
    },
    async diff(id, olds, news) {
      const changed = Object.keys(AddressBookEntryInputs.shape).filter(
        (key) => isUnknown(news[key]) || olds[key] !== news[key],
      );
      // The service cannot change an entry: a change is a new entry (the old one stays in the book).
      if (changed.length > 0) {
        progress(
          `Address-book entry ${id}`,
          `${changed.join(", ")} changed: a new entry replaces it in the stack; the service cannot change or delete ` +
            "entries, so this one stays in the address book",
        );
      }
      return { changes: changed.length > 0, replaces: changed };
    },
    async create(inputs: AddressBookEntryInputs) {
      const { id } = await ctx.client().createAddressBookEntry(inputs);
      progress(`Address-book entry ${id}`, `created for ${inputs.address1}, ${inputs.city}`);
      return { id: String(id), outs: { ...inputs, entryId: id } };
    },
    // The service has no read of entries: the stored state is the best knowledge there is.
    async read(id, props) {
      return { id, props };
    },
    async delete(id) {
      progress(
        `Address-book entry ${id}`,
        "removed from the stack only: the service cannot delete address-book entries, so it stays in the address book",
      );
    },
  };
}
