import type { SQLInputValue } from "node:sqlite";
import { addressNotValidReason } from "../../provider/api/address-rules";
import type { AppendResult, OrderRecipient } from "../../provider/api/schemas";
import { type OrderRow, packRecipient, type RecipientRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import { doNotMailKey, duplicateKey, fullAddressOf, validateAddress } from "./address";
import { deliveryStatus, deliveryStatusSince, recipientView } from "./delivery";
import { ApiError, notFound } from "./errors";
import { checkImage, IMAGE_FIELDS, type ImageIssue } from "./images";
import type { Orders } from "./orders";
import type { Scheduler } from "./scheduler";
import { pageOffset } from "./units";

/** Rows per INSERT of an append: 8 parameters a row stays far below SQLite's limit of 32,766. */
const INSERT_CHUNK = 100;

/** The INSERT of `rows` recipient rows (one text per row count, made once; the store keeps each prepared). */
const insertSqls: string[] = [];
function insertSql(rows: number): string {
  insertSqls[rows] ??=
    `INSERT INTO recipients(order_id, do_not_mail, dpv, first_name, last_name, address1, created, data) VALUES ${Array(rows).fill("(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`;
  return insertSqls[rows];
}

/**
 * Most page boundaries the listing remembers, over all orders (see `Recipients.list`), and the
 * longest search it remembers them for: a few megabytes at most, whatever the requests.
 */
const REMEMBERED_BOUNDARIES = 100_000;
const REMEMBERED_ORDERS = 10_000;
const REMEMBERED_SEARCH = 200;

/** The recipients of orders: appends (validation, duplicates, do-not-mail, images), listings, deletes. */
export class Recipients {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly orders: Orders,
    private readonly accounts: Accounts,
  ) {}

  append(accountId: number, orderId: number, batch: OrderRecipient[]): AppendResult {
    return this.store.tx(() => {
      const order = this.orders.editable(accountId, orderId, "appending recipients");
      const required = JSON.parse(order.required_merge_fields) as string[];
      const slotsInUse = new Set<string>(IMAGE_FIELDS.filter((f) => required.includes(f)));
      const now = this.scheduler.now();
      const seen = new Set<string>();
      const undeliverable: (OrderRecipient & { reason: string })[] = [];
      const summary = {
        accepted: 0,
        aspectRatioMismatch: 0,
        lowDpi: 0,
        unsupportedOrBroken: 0,
        missing: 0,
        doesNotExist: 0,
      };
      const recipientsWithIssues: { recipientIndex: number; issues: ImageIssue[] }[] = [];
      let validated = 0;
      let invalidated = 0;
      let duplicated = 0;
      let doNotMail = 0;
      let invalid = 0;
      let accepted = 0;
      // Rows are inserted INSERT_CHUNK at a time, one statement call per chunk; the rows of one
      // statement get consecutive ids (AUTOINCREMENT, one writer in this transaction), so the ids
      // of the chunk's recipients follow from the last one.
      const values: SQLInputValue[] = [];
      // Each row of the chunk, with the object of the answer that shows its id (null: none does).
      const chunk: ({ id: number } | null)[] = [];
      const flush = () => {
        if (chunk.length === 0) return;
        const { lastInsertRowid } = this.store.prepare(insertSql(chunk.length)).run(...values);
        const first = Number(lastInsertRowid) - chunk.length + 1;
        chunk.forEach((shown, i) => {
          if (shown) shown.id = first + i;
        });
        values.length = 0;
        chunk.length = 0;
      };
      // One read of the account's do-not-mail list per append, not one per recipient.
      const doNotMailKeys = this.accounts.doNotMailKeys(accountId);
      const qrDefault = order.has_qr ? order.qr_url : null;

      batch.forEach((submitted) => {
        const metadata = submitted.metadata;
        // The image slots the batch uses, found in this walk rather than one of its own (the images
        // are checked after it, only when the batch uses a slot). Most recipients fill no slot: six
        // named reads say so without a lookup by name each.
        if (
          slotsInUse.size < IMAGE_FIELDS.length &&
          (metadata.image1 !== null ||
            metadata.image2 !== null ||
            metadata.image3 !== null ||
            metadata.image4 !== null ||
            metadata.image5 !== null ||
            metadata.image6 !== null)
        )
          for (const f of IMAGE_FIELDS) if (metadata[f]?.trim()) slotsInUse.add(f);

        const result = validateAddress(submitted.address);
        if (!result.standard) {
          invalid++;
          undeliverable.push({
            ...submitted,
            metadata: { ...submitted.metadata, dpvConfirmationCode: "N" },
            reason: addressNotValidReason(result.problems),
          });
          return;
        }
        const std = result.standard;
        const dup = duplicateKey(submitted.personal, std);
        if (seen.has(dup)) {
          duplicated++;
          undeliverable.push({
            ...submitted,
            reason: "DUPLICATE: same name and address as an earlier recipient of this batch",
          });
          return;
        }
        seen.add(dup);
        const dnm = doNotMailKeys.size > 0 && doNotMailKeys.has(doNotMailKey(std));
        const qrUrl = metadata.qrUrl ?? qrDefault;
        const personal = submitted.personal;
        values.push(
          orderId,
          dnm ? 1 : 0,
          result.dpv,
          personal.firstName,
          personal.lastName,
          std.address1,
          now,
          packRecipient(std, personal, metadata, qrUrl),
        );
        if (dnm) {
          // Kept on the order, marked, never mailed, charged or proofed.
          doNotMail++;
          const marked = {
            id: 0,
            address: {
              address1: std.address1,
              address2: std.address2,
              city: std.city,
              state: std.state,
              zipCode: std.zipCode,
              zip4: std.zip4,
              zip2: std.zip2,
              country: std.country,
            },
            personal: { ...personal },
            // What the service sets on a stored recipient; the rest of the metadata is as submitted.
            metadata: {
              ...submitted.metadata,
              dpvConfirmationCode: result.dpv,
              qrUrl,
              deliveryStatus: null,
              fullAddress: fullAddressOf(std),
            },
            reason: "DO_NOT_MAIL: the address is on the account's do-not-mail list",
          };
          undeliverable.push(marked);
          chunk.push(marked);
        } else {
          chunk.push(null);
        }
        if (chunk.length === INSERT_CHUNK) flush();
        if (dnm) return;
        accepted++;
        if (result.dpv === "Y") validated++;
        else invalidated++;
      });
      flush();

      // Only the image slots the batch uses are checked (most batches use none).
      const slots = IMAGE_FIELDS.filter((f) => slotsInUse.has(f));
      if (slots.length > 0) {
        batch.forEach((submitted, index) => {
          const issues: ImageIssue[] = [];
          for (const field of slots) {
            const { outcome, issue } = checkImage(field, submitted.metadata[field]);
            summary[outcome]++;
            if (issue) issues.push(issue);
          }
          if (issues.length > 0) recipientsWithIssues.push({ recipientIndex: index, issues });
        });
      }

      this.store.run(
        `UPDATE orders SET cum_validated = cum_validated + ?, cum_duplicated = cum_duplicated + ?,
           cum_do_not_mail = cum_do_not_mail + ?, recipient_count = recipient_count + ?, updated = ?
         WHERE id = ?`,
        validated,
        duplicated,
        doNotMail,
        accepted + doNotMail,
        now,
        orderId,
      );
      const after = this.orders.get(accountId, orderId);
      return {
        orderId,
        status: "Success",
        totalRecipients: after.recipient_count,
        submittedRecipients: batch.length,
        acceptedRecipients: accepted,
        droppedRecipients: batch.length - accepted,
        deliverable: { addressValidated: after.cum_validated, addressInvalidated: invalidated },
        undeliverable: {
          duplicated: after.cum_duplicated,
          doNotMail: after.cum_do_not_mail,
          invalidAddress: invalid,
          undeliverableRecipients: undeliverable,
        },
        variableImages: { summary, recipientsWithIssues },
      };
    });
  }

  /**
   * Page boundaries of listings, per order: for an offset into a listing (with its search), the
   * id of the last recipient before it, so a page reads from that id on instead of walking
   * `offset` index entries (a 1,000,000 listing in pages of 1,000 would be quadratic). Appends do
   * not move a boundary (ids only grow); a boundary is kept with the order's count of deleted
   * recipients, and a delete changes that count, so one of an earlier state is never used (nor
   * one from before a reset of the store, which starts ids again).
   */
  private readonly boundaries = new Map<
    number,
    { deleted: number; resets: number; lastIdBefore: Map<string, number> }
  >();
  private rememberedBoundaries = 0;

  list(
    accountId: number,
    orderId: number,
    q: { search?: string | undefined; pageNumber: number; pageSize: number },
  ) {
    const order = this.orders.get(accountId, orderId);
    const offset = pageOffset(q.pageNumber, q.pageSize);
    const search = q.search?.trim();
    const where = search
      ? "order_id = ? AND instr(recipient_search(id, dpv, first_name, last_name, address1, data), lower(?)) > 0"
      : "order_id = ?";
    const params: SQLInputValue[] = search ? [orderId, search] : [orderId];
    let known = this.boundaries.get(orderId);
    if (known?.deleted !== order.deleted_recipients || known.resets !== this.store.resets) {
      this.rememberedBoundaries -= known?.lastIdBefore.size ?? 0;
      if (this.boundaries.size >= REMEMBERED_ORDERS) {
        this.boundaries.clear();
        this.rememberedBoundaries = 0;
      }
      known = { deleted: order.deleted_recipients, resets: this.store.resets, lastIdBefore: new Map() };
      this.boundaries.set(orderId, known);
    }
    const key = (at: number) => `${at}:${search ?? ""}`;
    const after = offset === 0 ? 0 : known.lastIdBefore.get(key(offset));
    const rows =
      after === undefined
        ? this.store.all<RecipientRow>(
            `SELECT * FROM recipients WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`,
            ...params,
            q.pageSize,
            offset,
          )
        : this.store.all<RecipientRow>(
            `SELECT * FROM recipients WHERE ${where} AND id > ? ORDER BY id LIMIT ?`,
            ...params,
            after,
            q.pageSize,
          );
    const last = rows.at(-1);
    if (last && (search?.length ?? 0) <= REMEMBERED_SEARCH) {
      if (this.rememberedBoundaries >= REMEMBERED_BOUNDARIES) {
        this.boundaries.clear();
        this.rememberedBoundaries = 0;
        known.lastIdBefore = new Map();
        this.boundaries.set(orderId, known);
      }
      const at = key(offset + rows.length);
      if (!known.lastIdBefore.has(at)) this.rememberedBoundaries++;
      known.lastIdBefore.set(at, last.id);
    }
    const now = this.scheduler.now();
    return { orderId, status: "Success", recipients: rows.map((r) => recipientView(order, r, now)) };
  }

  delete(accountId: number, orderId: number, ids: number[]) {
    return this.store.tx(() => {
      this.orders.editable(accountId, orderId, "deleting recipients");
      const distinct = [...new Set(ids)];
      const missing: number[] = [];
      let deleted = 0;
      for (const id of distinct) {
        const { changes } = this.store.run(
          "DELETE FROM recipients WHERE id = ? AND order_id = ?",
          id,
          orderId,
        );
        if (changes === 0) missing.push(id);
        deleted += changes;
      }
      if (deleted > 0) {
        this.store.run(
          `UPDATE orders SET recipient_count = recipient_count - ?, deleted_recipients = deleted_recipients + ?,
             updated = ? WHERE id = ?`,
          deleted,
          deleted,
          this.scheduler.now(),
          orderId,
        );
      }
      return {
        orderId,
        status: "Success",
        requestedRecipients: distinct.length,
        deletedRecipients: deleted,
        notFoundRecipientIds: missing,
      };
    });
  }

  /** How many recipients of the order can be mailed (not marked do-not-mail): what a checkout charges. */
  mailableCount(orderId: number): number {
    return (
      this.store.get<{ n: number }>(
        "SELECT count(*) AS n FROM recipients WHERE order_id = ? AND do_not_mail = 0",
        orderId,
      )?.n ?? 0
    );
  }

  /** The recipient a proof shows: a given one of the order, or the lowest-id one not marked do-not-mail. */
  proofRecipient(
    accountId: number,
    orderId: number,
    recipientId?: number,
  ): { order: OrderRow; recipient: OrderRecipient } {
    const order = this.orders.get(accountId, orderId);
    const row =
      recipientId === undefined
        ? this.store.get<RecipientRow>(
            "SELECT * FROM recipients WHERE order_id = ? AND do_not_mail = 0 ORDER BY id LIMIT 1",
            orderId,
          )
        : this.store.get<RecipientRow>(
            "SELECT * FROM recipients WHERE order_id = ? AND id = ?",
            orderId,
            recipientId,
          );
    if (!row) {
      if (recipientId !== undefined) throw notFound(`recipient of order ${orderId}`, recipientId);
      throw new ApiError(400, "NO_MAILABLE_RECIPIENT", [
        `order ${orderId} has no recipient that can be mailed; append recipients before asking for a proof`,
      ]);
    }
    return { order, recipient: recipientView(order, row, this.scheduler.now()) };
  }

  /** The latest delivery status of one recipient, found by first and last name or by address line. */
  deliveryStatusOf(
    accountId: number,
    orderId: number,
    q: { firstName?: string | undefined; lastName?: string | undefined; address1?: string | undefined },
  ) {
    const order = this.orders.get(accountId, orderId);
    let row: RecipientRow | undefined;
    if (q.firstName !== undefined && q.lastName !== undefined) {
      row = this.store.get<RecipientRow>(
        "SELECT * FROM recipients WHERE order_id = ? AND lower(first_name) = lower(?) AND lower(last_name) = lower(?) ORDER BY id LIMIT 1",
        orderId,
        q.firstName.trim(),
        q.lastName.trim(),
      );
    } else if (q.address1 !== undefined) {
      const std = validateAddress({ address1: q.address1, city: "X", state: "NY", zipCode: "10001" }).standard
        ?.address1;
      row = this.store.get<RecipientRow>(
        "SELECT * FROM recipients WHERE order_id = ? AND (address1 = ? OR lower(address1) = lower(?)) ORDER BY id LIMIT 1",
        orderId,
        std ?? q.address1.trim().toUpperCase(),
        q.address1.trim(),
      );
    }
    if (!row) throw notFound(`recipient of order ${orderId} matching`, JSON.stringify(q));
    const now = this.scheduler.now();
    const status = deliveryStatus(order, row, now);
    return {
      orderId,
      recipientId: row.id,
      firstName: row.first_name,
      lastName: row.last_name,
      address1: row.address1,
      deliveryStatus: status,
      updatedDate: status === null ? null : deliveryStatusSince(order, row, now),
    };
  }
}
