import type { RecipientStatistic } from "../../provider/api/schemas";
import type { Timings } from "../assumptions";
import type { RecipientRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import { recipientView } from "./delivery";
import { ApiError, notFound } from "./errors";
import type { Orders } from "./orders";
import type { Scheduler } from "./scheduler";
import { addMs } from "./units";

/** QR code scans (entry 17): recorded, then applied to their recipient shortly after; and the control API's scans. */
export class Scans {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly timings: Timings,
    private readonly accounts: Accounts,
    private readonly orders: Orders,
  ) {
    scheduler.on("scan", (ref, due) => this.apply(ref, due));
  }

  record(accountId: number, body: RecipientStatistic): RecipientStatistic {
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
  simulate(accountId: number, orderId: number, count: number) {
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

  private apply(statId: number, due: string): void {
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
}
