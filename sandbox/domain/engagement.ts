import {
  type ConversionRecord,
  ENTRY_STATUS_INVALID_ID,
  ENTRY_STATUS_NOT_FOUND,
  type OrderAnalyticsEntry,
  type OrderTransactionEntry,
  type RecipientStatistic,
} from "../../provider/api/schemas";
import type { Timings } from "../assumptions";
import { type LedgerRow, LIGHT_RECIPIENT_COLUMNS, type OrderRow, type RecipientRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import { validateAddress } from "./address";
import { piecePrice, pieceTotal, productSubType } from "./checkout";
import { deliveryCounts, noCounts, productionEstimates, recipientView, transitDays } from "./delivery";
import { ApiError, notFound } from "./errors";
import type { Orders } from "./orders";
import type { Scheduler } from "./scheduler";
import { addMs, DAY_MS, money } from "./units";

/** QR scans, analytics, transactions, conversions and the address book. */
export class Engagement {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly timings: Timings,
    private readonly accounts: Accounts,
    private readonly orders: Orders,
  ) {
    scheduler.on("scan", (ref, due) => this.applyScan(ref, due));
    scheduler.on("conversion-match", (ref, due) => this.matchConversion(ref, due));
    scheduler.on("conversion-delete", (ref) => {
      this.store.run("UPDATE conversions SET status = 'Deleted' WHERE id = ? AND pending_deletion = 1", ref);
    });
  }

  // ---------------------------------------------------------------- QR scans (entry 17)

  recordScan(accountId: number, body: RecipientStatistic): RecipientStatistic {
    return this.store.tx(() => {
      const order = this.orders.get(accountId, body.orderId);
      const row = this.store.get<RecipientRow>(
        "SELECT * FROM recipients WHERE id = ? AND order_id = ?",
        body.orderRecipientId,
        order.id,
      );
      if (!row) throw notFound(`recipient of order ${order.id}`, body.orderRecipientId);
      const value = Number(body.statisticValue);
      const now = this.scheduler.now();
      const { lastInsertRowid } = this.store.run(
        "INSERT INTO statistics(account_id, order_id, recipient_id, value, created, data) VALUES (?, ?, ?, ?, ?, ?)",
        accountId,
        order.id,
        row.id,
        value,
        now,
        JSON.stringify(body),
      );
      // Queued: applied shortly after the request succeeded (spec).
      this.scheduler.schedule(addMs(now, this.timings.scanSeconds * 1000), "scan", lastInsertRowid);
      const account = this.accounts.get(accountId);
      const r = recipientView(order, row, now);
      return {
        ...body,
        orderRecipient: {
          id: row.id,
          firstName: r.personal.firstName,
          lastName: r.personal.lastName,
          toOrganization: r.personal.toOrganization,
          fullAddress: r.metadata.fullAddress,
          address1: r.address.address1,
          address2: r.address.address2,
          city: r.address.city,
          state: r.address.state,
          zipCode: r.address.zipCode,
          country: r.address.country,
          createdDate: row.created,
          qrCode: `QR-${order.id}-${row.id}`,
          qrUrl: r.metadata.qrUrl,
          qrCodeScanCount: row.scans,
          customerEmail: account.email,
          customerName: `${account.first_name} ${account.last_name}`,
          customerOrganization: account.company,
          salespersonName: null,
        },
      };
    });
  }

  /**
   * The control API's scans (`directmail sandbox scan`): `count` scans of the order's QR code,
   * spread over its mailed pieces in turn and applied at once, as if their recipients had scanned
   * them. Only a mailed order with a QR code has pieces to scan.
   */
  simulateScans(accountId: number, orderId: number, count: number) {
    return this.store.tx(() => {
      const order = this.orders.get(accountId, orderId);
      if (!order.has_qr) {
        throw new ApiError(409, "TEMPLATE_HAS_NO_QR", [
          `order ${orderId} prints no QR code, so nobody can scan it`,
        ]);
      }
      if (!order.mailed_at) {
        throw new ApiError(409, "INVALID_ORDER_STATUS", [
          `order ${orderId} is ${order.status}: its pieces are not mailed yet, so nobody can scan them; ` +
            `deliver it first (directmail sandbox deliver ${orderId})`,
        ]);
      }
      const pieces = this.store.all<{ id: number }>(
        "SELECT id FROM recipients WHERE order_id = ? AND do_not_mail = 0 ORDER BY id",
        order.id,
      );
      const now = this.scheduler.now();
      const scanned = pieces.slice(0, count);
      scanned.forEach(({ id }, index) => {
        // Recipient i gets every scan whose number is i modulo the pieces.
        const value = Math.floor(count / pieces.length) + (index < count % pieces.length ? 1 : 0);
        this.store.run(
          "INSERT INTO statistics(account_id, order_id, recipient_id, value, applied, created, data) VALUES (?, ?, ?, ?, 1, ?, ?)",
          accountId,
          order.id,
          id,
          value,
          now,
          JSON.stringify({
            orderId: order.id,
            orderRecipientId: id,
            statisticName: 1,
            statisticValue: String(value),
          }),
        );
        this.store.run("UPDATE recipients SET scans = scans + ?, last_scan = ? WHERE id = ?", value, now, id);
      });
      const total = this.store.get<{ total: number }>(
        "SELECT coalesce(sum(scans), 0) AS total FROM recipients WHERE order_id = ?",
        order.id,
      );
      return {
        orderId: order.id,
        recorded: count,
        recipients: scanned.length,
        totalScans: total?.total ?? 0,
      };
    });
  }

  private applyScan(statId: number, due: string): void {
    const stat = this.store.get<{ recipient_id: number; value: number; applied: number }>(
      "SELECT * FROM statistics WHERE id = ?",
      statId,
    );
    if (!stat || stat.applied) return;
    this.store.run(
      "UPDATE recipients SET scans = scans + ?, last_scan = CASE WHEN ? > 0 THEN ? ELSE last_scan END WHERE id = ?",
      stat.value,
      stat.value,
      due,
      stat.recipient_id,
    );
    this.store.run("UPDATE statistics SET applied = 1 WHERE id = ?", statId);
  }

  // ---------------------------------------------------------------- analytics (entry 12)

  /** The order a listed id names, or the error status its own entry carries (spec, entries 12 and 13). */
  private lookup(accountId: number, id: number | null): OrderRow | string {
    if (id === null || id <= 0) return ENTRY_STATUS_INVALID_ID;
    const order = this.store.get<OrderRow>(
      "SELECT * FROM orders WHERE id = ? AND account_id = ? AND is_template = 0",
      id,
      accountId,
    );
    return order ?? ENTRY_STATUS_NOT_FOUND;
  }

  analytics(accountId: number, ids: (number | null)[]) {
    const now = this.scheduler.now();
    const orders: OrderAnalyticsEntry[] = ids.map((id) => {
      const order = this.lookup(accountId, id);
      if (typeof order === "string") {
        return {
          orderId: id,
          status: order,
          qrCode: null,
          ...noCounts(),
          paidDate: null,
          maxEstimatedDeliveredDate: null,
          minEstimatedDeliveredDate: null,
          postageType: null,
          orderStatus: null,
          campaignName: null,
          product: null,
          productionSpeed: null,
        };
      }
      const rows = this.store.all<RecipientRow>(
        `SELECT ${LIGHT_RECIPIENT_COLUMNS} FROM recipients WHERE order_id = ? ORDER BY id`,
        order.id,
      );
      const scanned = rows.filter((r) => r.scans > 0);
      const lastScan = scanned.reduce<string | null>(
        (m, r) => (r.last_scan && (!m || r.last_scan > m) ? r.last_scan : m),
        null,
      );
      const window = transitDays(order.postage_type);
      const mailBase = order.mailed_at ?? this.estimatedMailing(order);
      return {
        orderId: order.id,
        status: "Success",
        qrCode: {
          totalScans: scanned.reduce((n, r) => n + r.scans, 0),
          lastScan,
          recipients: scanned.map((r) => ({
            id: r.id,
            firstName: r.first_name,
            lastName: r.last_name,
            totalScans: String(r.scans),
            lastScan: r.last_scan,
          })),
        },
        ...deliveryCounts(order, rows, now),
        paidDate: order.paid_date,
        minEstimatedDeliveredDate: mailBase ? addMs(mailBase, window.min * DAY_MS) : null,
        maxEstimatedDeliveredDate: mailBase ? addMs(mailBase, window.max * DAY_MS) : null,
        postageType: order.postage_type,
        orderStatus: order.status,
        campaignName: order.name,
        product: order.product,
        productionSpeed: order.production_speed,
      };
    });
    return { orderId: ids.length === 1 ? (ids[0] ?? null) : null, status: "Success", orders };
  }

  /** When a paid order not yet mailed is expected to mail (its production estimate). */
  private estimatedMailing(order: OrderRow): string | null {
    if (!order.paid_date) return null;
    const start =
      order.ready_at ??
      (order.hold_until && order.hold_until > order.paid_date ? order.hold_until : order.paid_date);
    const estimates = productionEstimates(start);
    return estimates[(order.production_speed ?? "Normal") as keyof typeof estimates] ?? estimates.Normal;
  }

  // ---------------------------------------------------------------- transactions (entry 13)

  transactions(accountId: number, ids: (number | null)[]) {
    const orders: OrderTransactionEntry[] = ids.map((id) => {
      const order = this.lookup(accountId, id);
      if (typeof order === "string") {
        return {
          orderId: id,
          status: order,
          volume: 0,
          totalPrice: 0,
          costPerPiece: 0,
          email: null,
          product: null,
          orderStatus: null,
          orderUpdatedDate: null,
          paidDate: null,
          createdDate: null,
          profileId: null,
          isCredit: false,
          transactionType: null,
          transactionSubType: null,
          detail: null,
          discount: null,
          transactions: [],
        };
      }
      const account = this.accounts.get(accountId);
      const checkout = this.store.get<{
        quantity: number;
        amount: number;
        postage_type: string;
        production_speed: string;
      }>(
        "SELECT * FROM checkouts WHERE order_id = ? ORDER BY (outcome = 'succeeded') DESC, id DESC LIMIT 1",
        order.id,
      );
      const volume =
        checkout?.quantity ??
        this.store.get<{ n: number }>(
          "SELECT count(*) AS n FROM recipients WHERE order_id = ? AND do_not_mail = 0",
          order.id,
        )?.n ??
        0;
      const detail = piecePrice(
        order.product,
        checkout?.postage_type ?? "Standard",
        checkout?.production_speed ?? "Normal",
      );
      const perPiece = pieceTotal(detail);
      // A declined payment moved no money: the report lists what was charged and credited.
      const ledger = this.store.all<LedgerRow>(
        "SELECT * FROM ledger WHERE order_id = ? AND account_id = ? AND outcome = 'succeeded' ORDER BY id",
        order.id,
        accountId,
      );
      const subType = productSubType(order.product);
      return {
        orderId: order.id,
        status: "Success",
        volume,
        totalPrice: checkout?.amount ?? money(perPiece * volume),
        costPerPiece: perPiece,
        email: account.email,
        product: order.product,
        orderStatus: order.status,
        orderUpdatedDate: order.updated,
        paidDate: order.paid_date,
        createdDate: order.created,
        profileId: accountId,
        isCredit: false,
        transactionType: "LineItemDebit",
        transactionSubType: subType,
        detail,
        discount: { basePrice: 0, doubleSided: 0, postagePrice: 0, extraText: 0, expedited: 0 },
        transactions: ledger.map((l) => ({
          id: l.id,
          orderId: l.order_id,
          customerSubscriptionId: null,
          amount: l.amount,
          description: `${l.description} (${l.method}, ${l.outcome})`,
          createdDate: l.created,
          updatedDate: l.created,
          profileId: l.account_id,
          transactionType: l.kind === "credit" ? "Credit" : "LineItemDebit",
          transactionSubType: l.kind === "credit" ? "AccountBalance" : subType,
          isCredit: l.kind === "credit",
          recipientSearchId: null,
          recipientEnrichmentOrderId: null,
          radiusMailOrderId: null,
          hailTraceOrderId: null,
        })),
      };
    });
    return { orderId: ids.length === 1 ? (ids[0] ?? null) : null, status: "Success", orders };
  }

  // ---------------------------------------------------------------- conversions (entries 18-20)

  /** Stores the valid records as one upload; returns its id (null when none was valid). */
  submitConversions(accountId: number, valid: ConversionRecord[], submitted: number): number | null {
    if (valid.length === 0) return null;
    return this.store.tx(() => {
      const now = this.scheduler.now();
      const { lastInsertRowid } = this.store.run(
        `INSERT INTO conversions(account_id, file_name, status, record_count, upload_date, data)
         VALUES (?, ?, 'Processing', ?, ?, ?)`,
        accountId,
        `api-upload-${now.replace(/[:.]/g, "-")}.json`,
        valid.length,
        now,
        JSON.stringify({ records: valid, submitted }),
      );
      this.scheduler.schedule(
        addMs(now, this.timings.conversionMatchSeconds * 1000),
        "conversion-match",
        lastInsertRowid,
      );
      return lastInsertRowid;
    });
  }

  /**
   * Matchback: a conversion is matched when one of its records' primary address (standardized) is
   * the address of a recipient of a mailed order of the account.
   */
  private matchConversion(id: number, _due: string): void {
    const conv = this.store.get<{ account_id: number; status: string; data: string }>(
      "SELECT * FROM conversions WHERE id = ?",
      id,
    );
    if (conv?.status !== "Processing") return;
    const { records } = JSON.parse(conv.data) as { records: ConversionRecord[] };
    let matched = false;
    for (const record of records) {
      const a = record.primaryAddress;
      if (!a?.address1) continue;
      const std = validateAddress({
        address1: a.address1,
        city: a.city ?? "",
        state: a.state ?? "",
        zipCode: a.zipCode ?? "",
      }).standard;
      if (!std) continue;
      const hit = this.store.get(
        `SELECT 1 AS x FROM recipients r JOIN orders o ON o.id = r.order_id
         WHERE o.account_id = ? AND o.mailed_at IS NOT NULL AND r.address1 = ? AND r.do_not_mail = 0 LIMIT 1`,
        conv.account_id,
        std.address1,
      );
      if (hit) {
        matched = true;
        break;
      }
    }
    this.store.run(
      "UPDATE conversions SET status = ?, matched = ? WHERE id = ?",
      matched ? "Matched" : "Unmatched",
      matched ? 1 : 0,
      id,
    );
  }

  private conversion(accountId: number, id: number) {
    const row = this.store.get<{
      id: number;
      file_name: string;
      status: string;
      matched: number;
      pending_deletion: number;
      upload_date: string;
    }>("SELECT * FROM conversions WHERE id = ? AND account_id = ? AND status <> 'Deleted'", id, accountId);
    if (!row) throw notFound("conversion", id);
    return row;
  }

  conversionStatus(accountId: number, id: number) {
    const row = this.conversion(accountId, id);
    return {
      id: row.id,
      fileName: row.file_name,
      dataSourceType: "Api",
      status: row.status,
      uploadDate: row.upload_date,
      matched: row.matched === 1,
      pendingDeletion: row.pending_deletion === 1,
    };
  }

  deleteConversion(accountId: number, id: number): string {
    return this.store.tx(() => {
      const row = this.conversion(accountId, id);
      if (row.pending_deletion) {
        throw new ApiError(400, "CONVERSION_NOT_DELETABLE_STATUS", [
          `conversion ${id} is already pending deletion`,
        ]);
      }
      this.store.run(
        "UPDATE conversions SET status = 'PendingDeletion', pending_deletion = 1 WHERE id = ?",
        id,
      );
      const now = this.scheduler.now();
      this.scheduler.schedule(
        addMs(now, this.timings.conversionDeleteSeconds * 1000),
        "conversion-delete",
        id,
      );
      return `Conversion ${id} is marked for deletion; deletion completes asynchronously.`;
    });
  }

  // ---------------------------------------------------------------- address book (entries 21-22)

  createAddressBookEntry(
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

  addressBook(accountId: number) {
    return this.store
      .all<{ id: number; created: string; data: string }>(
        "SELECT * FROM address_book WHERE account_id = ? ORDER BY id",
        accountId,
      )
      .map((r) => ({ id: r.id, created: r.created, ...JSON.parse(r.data) }));
  }
}
