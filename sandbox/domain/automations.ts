import { standardizeLine } from "../../provider/api/schemas/address-standard";
import type { Timings } from "../assumptions";
import type { IntegrationOrderRow, OrderRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import {
  type AddressInput,
  addressKey,
  doNotMailKey,
  duplicateKey,
  fullAddressOf,
  stableHash,
  validateAddress,
} from "./address";
import { ApiError, notFound } from "./errors";
import type { Orders } from "./orders";
import type { Scheduler } from "./scheduler";
import { addMs } from "./units";

/** The return-address fields of the spec's rules, by their integration-recipient names. */
export interface ReturnAddress {
  returnTitle?: string | null | undefined;
  returnFirstName?: string | null | undefined;
  returnLastName?: string | null | undefined;
  returnOrganization?: string | null | undefined;
  returnAddress1?: string | null | undefined;
  returnAddress2?: string | null | undefined;
  returnCity?: string | null | undefined;
  returnState?: string | null | undefined;
  returnZip?: string | null | undefined;
}

const given = (v: string | null | undefined) => v != null && v.trim() !== "";

/**
 * The spec's return-address rules, with the reason code each broken rule gives:
 * first and last name together (RETURN_NAME_PARTIAL); address1 when any other return field is given
 * (RETURN_ADDRESS_PARTIAL); city, state and zip when address1 is given (RETURN_ADDRESS_MISSING_FIELDS).
 * `names` maps a field to the name the caller used (proximity bodies capitalise them).
 */
export function checkReturnAddress(
  r: ReturnAddress,
  names: (field: keyof ReturnAddress) => string = (f) => f,
): { reasonCode: string; message: string; fields: string[] } | undefined {
  if (given(r.returnFirstName) !== given(r.returnLastName)) {
    const missing = given(r.returnFirstName) ? "returnLastName" : "returnFirstName";
    return {
      reasonCode: "RETURN_NAME_PARTIAL",
      message: `${names(missing)}: ${names("returnFirstName")} and ${names("returnLastName")} are given together`,
      fields: [names(missing)],
    };
  }
  const others: (keyof ReturnAddress)[] = [
    "returnTitle",
    "returnFirstName",
    "returnLastName",
    "returnOrganization",
    "returnAddress2",
    "returnCity",
    "returnState",
    "returnZip",
  ];
  if (!given(r.returnAddress1) && others.some((f) => given(r[f]))) {
    return {
      reasonCode: "RETURN_ADDRESS_PARTIAL",
      message: `${names("returnAddress1")}: required when another return address field (${others
        .filter((f) => given(r[f]))
        .map(names)
        .join(", ")}) is given`,
      fields: [names("returnAddress1")],
    };
  }
  if (given(r.returnAddress1)) {
    const missing = (["returnCity", "returnState", "returnZip"] as const).filter((f) => !given(r[f]));
    if (missing.length > 0) {
      return {
        reasonCode: "RETURN_ADDRESS_MISSING_FIELDS",
        message: `${missing.map(names).join(", ")}: required when ${names("returnAddress1")} is given`,
        fields: missing.map(names),
      };
    }
  }
  return undefined;
}

export interface IntegrationRecipientInput extends ReturnAddress, AddressInput {
  id?: number | null | undefined;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  toOrganization?: string | null | undefined;
  [field: string]: unknown;
}

/** Automations: integration orders, their recipients, and proximity discovery. */
export class Automations {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly timings: Timings,
    private readonly orders: Orders,
    private readonly accounts: Accounts,
  ) {
    scheduler.on("proximity", (ref, due) => this.discover(ref, due));
  }

  create(
    accountId: number,
    input: {
      name: string;
      templateId?: number | null | undefined;
      status?: string | undefined;
      postageType?: string | null | undefined;
    },
  ): { id: number } {
    if (input.templateId != null) this.orders.get(accountId, input.templateId);
    const now = this.scheduler.now();
    const { lastInsertRowid } = this.store.run(
      `INSERT INTO integration_orders(account_id, name, template_id, status, postage_type, created, updated)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      accountId,
      input.name,
      input.templateId ?? null,
      input.status ?? "Active",
      input.postageType === undefined ? "Standard" : input.postageType,
      now,
      now,
    );
    return { id: lastInsertRowid };
  }

  get(accountId: number, id: number): IntegrationOrderRow {
    const row = this.store.get<IntegrationOrderRow>(
      "SELECT * FROM integration_orders WHERE id = ? AND account_id = ?",
      id,
      accountId,
    );
    if (!row) throw notFound("integration order", id);
    return row;
  }

  view(row: IntegrationOrderRow) {
    const counts = this.store.get<{ n: number }>(
      "SELECT count(*) AS n FROM integration_recipients WHERE integration_order_id = ?",
      row.id,
    );
    const pending = this.store.get<{ n: number }>(
      "SELECT count(*) AS n FROM proximity_searches WHERE integration_order_id = ? AND status = 'Processing'",
      row.id,
    );
    return {
      id: row.id,
      name: row.name,
      createdDate: row.created,
      updatedDate: row.updated,
      postageType: row.postage_type,
      integrationOrderStatus: row.status,
      templateId: row.template_id,
      recipientCount: counts?.n ?? 0,
      pendingProximitySearches: pending?.n ?? 0,
    };
  }

  list(accountId: number) {
    return this.store
      .all<IntegrationOrderRow>(
        "SELECT * FROM integration_orders WHERE account_id = ? ORDER BY id",
        accountId,
      )
      .map((r) => this.view(r));
  }

  recipients(accountId: number, id: number) {
    this.get(accountId, id);
    return this.store
      .all<{ id: number; source: string; created: string; data: string }>(
        "SELECT * FROM integration_recipients WHERE integration_order_id = ? ORDER BY id",
        id,
      )
      .map((r) => ({ id: r.id, source: r.source, created: r.created, ...JSON.parse(r.data) }));
  }

  /** Entry 15: validate, standardize, queue; a rejection is a 422 with the reason code. */
  addRecipient(accountId: number, id: number, input: IntegrationRecipientInput) {
    return this.store.tx(() => {
      const io = this.get(accountId, id);
      const reject = (
        reasonCode: string,
        errorMessage: string,
        processedAddress = "",
        addressValidated = false,
      ) =>
        new ApiError(422, reasonCode, [errorMessage], {
          success: false,
          errorMessage,
          reasonCode,
          integrationOrderId: id,
          recipientDetails: {
            firstName: input.firstName ?? "",
            lastName: input.lastName ?? "",
            processedAddress,
            addressValidated,
          },
        });
      if (io.status !== "Active") {
        throw reject(
          "ORDER_NOT_AVAILABLE",
          `integration order ${id} is ${io.status}; recipients are added only while it is Active`,
        );
      }
      if (io.template_id == null) {
        throw reject("ORDER_TEMPLATE_MISSING", `integration order ${id} has no configured template`);
      }
      const template = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", io.template_id);
      if (!template)
        throw reject("ORDER_TEMPLATE_MISSING", `integration order ${id} has no configured template`);
      const ret = checkReturnAddress(input);
      if (ret) throw reject(ret.reasonCode, ret.message);
      const required = JSON.parse(template.required_merge_fields) as string[];
      const missing = required.filter((f) => !given(input[f] as string | null | undefined));
      if (missing.length > 0) {
        throw reject(
          "MISSING_MAIL_MERGE_FIELDS",
          `${missing.join(", ")}: required by the template's mail merge`,
        );
      }
      const result = validateAddress(input);
      if (!result.standard || result.dpv === "N") {
        throw reject(
          "ADDRESS_NOT_VALID",
          `address is not valid: ${result.problems.map((p) => `${p.field}: ${p.message}`).join("; ")}`,
        );
      }
      const std = result.standard;
      const fullAddress = fullAddressOf(std);
      if (this.accounts.isDoNotMail(accountId, doNotMailKey(std))) {
        throw reject("DO_NOT_MAIL", `${fullAddress} is on the account's do-not-mail list`, fullAddress, true);
      }
      const key = duplicateKey(input, std);
      if (this.queued(id, "dedupe_key", key)) {
        throw reject(
          "DUPLICATE_RECIPIENT",
          `the same recipient at ${fullAddress} is already queued on integration order ${id}`,
          fullAddress,
          true,
        );
      }
      const now = this.scheduler.now();
      const data = { ...input, ...std, zipCode: std.zipCode, dpvConfirmationCode: result.dpv };
      delete (data as { id?: unknown }).id;
      this.store.run(
        "INSERT INTO integration_recipients(integration_order_id, source, dedupe_key, address_key, created, data) VALUES (?, 'api', ?, ?, ?, ?)",
        id,
        key,
        addressKey(std),
        now,
        JSON.stringify(data),
      );
      this.store.run("UPDATE integration_orders SET updated = ? WHERE id = ?", now, id);
      return this.view(this.get(accountId, id));
    });
  }

  /** Entry 16: accepted at once; discovery runs later and queues the addresses it finds. */
  requestProximity(
    accountId: number,
    id: number,
    body: {
      Name: string;
      Addresses: {
        address1: string;
        address2?: string | null | undefined;
        city: string;
        state: string;
        zip: string;
        DesiredCount: number;
      }[];
      MultiUse?: boolean | undefined;
      returnAddress: ReturnAddress;
      filters: Record<string, unknown>;
    },
  ) {
    return this.store.tx(() => {
      const io = this.get(accountId, id);
      if (io.status !== "Active") {
        throw new ApiError(400, "ORDER_NOT_AVAILABLE", [
          `integration order ${id} is ${io.status}; proximity mailings need it Active`,
        ]);
      }
      if (io.template_id == null) {
        throw new ApiError(400, "ORDER_TEMPLATE_MISSING", [
          `integration order ${id} has no configured template`,
        ]);
      }
      const problems: string[] = [];
      const centres = body.Addresses.map((a, i) => {
        const r = validateAddress({
          address1: a.address1,
          address2: a.address2,
          city: a.city,
          state: a.state,
          zipCode: a.zip,
        });
        if (!r.standard)
          problems.push(
            ...r.problems.map(
              (p) => `Addresses[${i}].${p.field === "zipCode" ? "zip" : p.field}: ${p.message}`,
            ),
          );
        return { standard: r.standard, count: a.DesiredCount };
      });
      if (problems.length > 0) throw new ApiError(400, "ADDRESS_NOT_VALID", problems);
      const now = this.scheduler.now();
      const { lastInsertRowid: searchId } = this.store.run(
        "INSERT INTO proximity_searches(integration_order_id, status, created, data) VALUES (?, 'Processing', ?, ?)",
        id,
        now,
        JSON.stringify({ ...body, centres }),
      );
      // A proximity request is a paid recipient search on the automation's template order.
      this.store.run(
        "UPDATE orders SET paid_recipient_searches = paid_recipient_searches + 1 WHERE id = ?",
        io.template_id,
      );
      this.store.run("UPDATE integration_orders SET updated = ? WHERE id = ?", now, id);
      this.scheduler.schedule(addMs(now, this.timings.proximitySeconds * 1000), "proximity", searchId);
      return this.view(this.get(accountId, id));
    });
  }

  /**
   * Whether the automation already queues a recipient of this duplicate key (`dedupe_key`: names and
   * address) or address key (`address_key`), whichever path queued it: the recipients endpoint and
   * discovery key their rows with the same functions (address.ts).
   */
  private queued(id: number, column: "dedupe_key" | "address_key", key: string): boolean {
    return (
      this.store.get(
        `SELECT 1 AS x FROM integration_recipients WHERE integration_order_id = ? AND ${column} = ?`,
        id,
        key,
      ) !== undefined
    );
  }

  /**
   * Discovery, deterministic: for each centre address with house number N, the neighbours N+2,
   * N+4, ... on the same street (N-2, N-4, ... once past 20), DesiredCount of them. Without MultiUse,
   * an address already queued on the automation, by the recipients endpoint or by discovery, is
   * skipped and the next neighbour taken.
   */
  private discover(searchId: number, due: string): void {
    const search = this.store.get<{ integration_order_id: number; data: string; status: string }>(
      "SELECT * FROM proximity_searches WHERE id = ?",
      searchId,
    );
    if (search?.status !== "Processing") return;
    const body = JSON.parse(search.data) as {
      Name: string;
      MultiUse?: boolean | undefined;
      returnAddress: ReturnAddress;
      centres: {
        standard: { address1: string; city: string; state: string; zipCode: string } | null;
        count: number;
      }[];
    };
    let discovered = 0;
    for (const centre of body.centres) {
      if (!centre.standard) continue;
      const match = /^(\d+)\s+(.*)$/.exec(centre.standard.address1);
      const house = Number(match?.[1] ?? 100);
      const street = match?.[2] ?? centre.standard.address1;
      let found = 0;
      for (let step = 1; found < centre.count && step < centre.count * 4 + 50; step++) {
        const number = step <= 20 ? house + 2 * step : Math.max(1, house - 2 * (step - 20));
        const address1 = standardizeLine(`${number} ${street}`);
        const firstName = "Current";
        const lastName = `Resident ${stableHash(address1) % 1000}`;
        const std = validateAddress({
          address1,
          city: centre.standard.city,
          state: centre.standard.state,
          zipCode: centre.standard.zipCode,
        }).standard;
        if (!std) continue;
        const address = addressKey(std);
        if (!body.MultiUse && this.queued(search.integration_order_id, "address_key", address)) continue;
        const data = {
          firstName,
          lastName,
          ...std,
          radiusPinAddress: centre.standard.address1,
          ...Object.fromEntries(Object.entries(body.returnAddress).filter(([, v]) => given(v as string))),
          searchName: body.Name,
        };
        this.store.run(
          "INSERT INTO integration_recipients(integration_order_id, source, dedupe_key, address_key, created, data) VALUES (?, ?, ?, ?, ?, ?)",
          search.integration_order_id,
          `proximity:${searchId}`,
          duplicateKey({ firstName, lastName }, std),
          address,
          due,
          JSON.stringify(data),
        );
        found++;
        discovered++;
      }
    }
    this.store.run(
      "UPDATE proximity_searches SET status = 'Complete', discovered = ? WHERE id = ?",
      discovered,
      searchId,
    );
  }
}
