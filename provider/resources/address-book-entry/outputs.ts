/** What an `AddressBookEntry` reports, beside its inputs: one schema for the provider and the class. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { AddressBookEntryInputs } from "./inputs";

export const AddressBookEntryOutputFields = {
  /** The entry's id in the account's address book. */
  entryId: z.int(),
};
export type AddressBookEntryOutputFields = OutputOf<typeof AddressBookEntryOutputFields>;

/** The state of an AddressBookEntry: its inputs and its outputs. */
export type AddressBookEntryOutputs = AddressBookEntryInputs & AddressBookEntryOutputFields;
