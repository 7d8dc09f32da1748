import * as pulumi from "@pulumi/pulumi";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { AddressBookEntryInputFields } from "./inputs";
import { AddressBookEntryOutputFields } from "./outputs";

/** The arguments of an {@link AddressBookEntry}. */
export interface AddressBookEntryArgs extends ArgsOf<typeof AddressBookEntryInputFields> {}

// The resource's Output properties, merged into the class below: the outputs schema's fields and the
// required inputs, which the engine sets when the provider answers.
export interface AddressBookEntry
  extends OutputProperties<typeof AddressBookEntryOutputFields, typeof AddressBookEntryInputFields> {}

/**
 * One entry of the account's address book. The service can create entries but not read, change or
 * delete them: a change of any field replaces the entry in the stack (the old one stays in the
 * address book), and destroy only removes it from the stack.
 */
export class AddressBookEntry extends pulumi.CustomResource {
  constructor(name: string, args: AddressBookEntryArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.AddressBookEntry, opts),
      name,
      withStoredProvider(KIND.AddressBookEntry, {
        ...args,
        ...outputPlaceholders(AddressBookEntryOutputFields),
      }),
      opts,
    );
  }
}
