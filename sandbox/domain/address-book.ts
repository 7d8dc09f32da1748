import type { Store } from "../storage/store";
import { validateAddress } from "./address";
import { ApiError } from "./errors";
import type { Scheduler } from "./scheduler";

/** The address book (entries 21-22): entries created with a standardized address, and listed. */
export class AddressBook {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {}

  create(
    accountId: number,
    body: {
      firstName: string;
      lastName: string;
      toOrganization: string;
      address1: string;
      address2: string;
      city: string;
      state: string;
      zip: string;
      phoneNumber: string | null;
    },
  ): { id: number } {
    const result = validateAddress({
      address1: body.address1,
      address2: body.address2,
      city: body.city,
      state: body.state,
      zipCode: body.zip,
    });
    if (!result.standard) {
      throw new ApiError(
        400,
        "ADDRESS_NOT_VALID",
        result.problems.map((p) => `${p.field === "zipCode" ? "zip" : p.field}: ${p.message}`),
      );
    }
    const std = result.standard;
    const { lastInsertRowid } = this.store.run(
      "INSERT INTO address_book(account_id, created, data) VALUES (?, ?, ?)",
      accountId,
      this.scheduler.now(),
      JSON.stringify({ ...body, ...std, zip: std.zipCode, dpvConfirmationCode: result.dpv }),
    );
    return { id: lastInsertRowid };
  }

  list(accountId: number) {
    return this.store
      .all<{ id: number; created: string; data: string }>(
        "SELECT * FROM address_book WHERE account_id = ? ORDER BY id",
        accountId,
      )
      .map((r) => ({ id: r.id, created: r.created, ...JSON.parse(r.data) }));
  }
}
