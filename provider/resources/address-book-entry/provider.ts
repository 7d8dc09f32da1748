/**
 * The provider hooks of `AddressBookEntry` (resource.ts). The service can create entries but not
 * read, change or delete them, so every change is a replacement (a new entry) and `delete` only
 * forgets the entry: it stays in the address book.
 */
import { NotFoundError } from "../../api/errors";
import { checkInputs, inputKeys, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { progress } from "../progress";
import { AddressBookEntryInputs } from "./inputs";
import type { AddressBookEntryOutputs } from "./outputs";

export function addressBookEntryImplementation(
  ctx: ProviderContext,
): ResourceImplementation<AddressBookEntryInputs, AddressBookEntryOutputs> {
  return {
    async check(_olds, news) {
      return checkInputs(AddressBookEntryInputs, news);
    },
    async diff(id, olds, news) {
      const changed = inputKeys(AddressBookEntryInputs).filter(
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
    async create(inputs) {
      const client = ctx.client();
      let older = false;
      const { id } = await client.createAddressBookEntry(inputs).catch((error: unknown) => {
        // A 404 on a path without an id: a deployment that answers only at the older path, which
        // behaves identically (spec). Nothing was created, so asking there is no second entry.
        if (!(error instanceof NotFoundError)) throw error;
        older = true;
        return client.createAddressBookEntryLegacy(inputs);
      });
      progress(
        `Address-book entry ${id}`,
        `created for ${inputs.address1}, ${inputs.city}${older ? " (at the service's older address-book path)" : ""}`,
      );
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
