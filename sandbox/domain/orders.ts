import { EDITABLE_ORDER_STATUSES, ORDER_STATUS } from "../../provider/api/schemas";
import { LIGHT_RECIPIENT_COLUMNS, type OrderRow, type RecipientRow } from "../storage/rows";
import type { Store } from "../storage/store";
import { type Delivery, deliveryCounts, recipientView } from "./delivery";
import { ApiError, badRequest, invalidStatus, notFound } from "./errors";
import type { Scheduler } from "./scheduler";
import type { Templates } from "./templates";
import { pageOffset } from "./units";

/** "Needs Edits" (the deletion rule's spelling) names the one status stored as "Edits Needed". */
const storedStatus = (status: string) =>
  status.trim().toLowerCase() === ORDER_STATUS.needsEdits.toLowerCase() ? ORDER_STATUS.editsNeeded : status;

export interface OrderListQuery {
  id?: number | undefined;
  status?: string | undefined;
  paid?: boolean | undefined;
  product?: string | undefined;
  postage?: string | undefined;
  showRecipients?: boolean | undefined;
  pageNumber: number;
  pageSize: number;
}

/** Orders: creation from a template, the listing, deletion, and the status rules every change obeys. */
export class Orders {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly templates: Templates,
    private readonly delivery: Delivery,
  ) {}

  /** An order of this account, template or not. Foreign and nonexistent ids are the same 404. */
  get(accountId: number, id: number): OrderRow {
    const row = this.store.get<OrderRow>(
      "SELECT * FROM orders WHERE id = ? AND account_id = ?",
      id,
      accountId,
    );
    if (!row) throw notFound("order", id);
    return row;
  }

  /**
   * An order that `operation` (appending or deleting recipients, a checkout) may change: not a
   * template (which is never fulfilled), and in an editable status.
   */
  editable(accountId: number, id: number, operation: string): OrderRow {
    const order = this.get(accountId, id);
    if (order.is_template) {
      throw badRequest(
        "ORDER_IS_TEMPLATE",
        `order ${id} is a template, which is never fulfilled; ${operation} needs an order created from it`,
      );
    }
    if (!EDITABLE_ORDER_STATUSES.includes(order.status)) {
      throw invalidStatus(id, order.status, operation, "Draft or Edits Needed");
    }
    return order;
  }

  create(
    accountId: number,
    input: {
      templateId: number;
      useQr?: boolean | undefined;
      qrUrl?: string | undefined;
      handwritingFont?: string | undefined;
    },
  ): { orderId: number } {
    const template = this.templates.get(accountId, input.templateId);
    if (input.useQr !== undefined && !template.has_qr) {
      throw badRequest("TEMPLATE_HAS_NO_QR", `useQr: template ${template.id} has no QR element`);
    }
    if (input.qrUrl !== undefined) {
      let ok = false;
      try {
        ok = ["http:", "https:"].includes(new URL(input.qrUrl).protocol);
      } catch {}
      if (!ok) throw badRequest("INVALID_QR_URL", `qrUrl: '${input.qrUrl}' is not an http(s) URL`);
    }
    const font =
      input.handwritingFont === undefined
        ? template.font
        : this.templates.handwritingStyle(accountId, input.handwritingFont);
    const hasQr = template.has_qr === 1 && input.useQr !== false;
    const qrUrl = hasQr ? (input.qrUrl ?? template.qr_url) : null;
    const now = this.scheduler.now();
    const { lastInsertRowid } = this.store.run(
      `INSERT INTO orders(account_id, is_template, template_id, name, product, status, has_qr, qr_url, font,
         required_merge_fields, created, updated)
       VALUES (?, 0, ?, ?, ?, 'Draft', ?, ?, ?, ?, ?, ?)`,
      accountId,
      template.id,
      template.name,
      template.product,
      hasQr ? 1 : 0,
      qrUrl,
      font,
      template.required_merge_fields,
      now,
      now,
    );
    return { orderId: lastInsertRowid };
  }

  /** Sets an order's status or counters directly (control API: states the public API cannot reach). */
  forceState(
    accountId: number,
    id: number,
    patch: { status?: string | undefined; paidRecipientSearches?: number | undefined },
  ): OrderRow {
    const order = this.get(accountId, id);
    if (patch.status) {
      this.store.run(
        "UPDATE orders SET status = ?, updated = ? WHERE id = ?",
        storedStatus(patch.status),
        this.scheduler.now(),
        id,
      );
    }
    if (patch.paidRecipientSearches !== undefined) {
      this.store.run(
        "UPDATE orders SET paid_recipient_searches = ? WHERE id = ?",
        patch.paidRecipientSearches,
        id,
      );
    }
    return this.get(accountId, order.id);
  }

  list(accountId: number, q: OrderListQuery) {
    const where = ["account_id = ?", "is_template = 0"];
    const params: (string | number)[] = [accountId];
    if (q.id !== undefined) {
      where.push("id = ?");
      params.push(q.id);
    }
    if (q.status !== undefined) {
      where.push("lower(status) = lower(?)");
      params.push(storedStatus(q.status.trim()));
    }
    if (q.paid !== undefined) where.push(q.paid ? "paid_date IS NOT NULL" : "paid_date IS NULL");
    if (q.product !== undefined) {
      where.push("lower(product) = lower(?)");
      params.push(q.product);
    }
    if (q.postage !== undefined) {
      where.push("lower(postage_type) = lower(?)");
      params.push(q.postage);
    }
    const clause = where.join(" AND ");
    const total =
      this.store.get<{ n: number }>(`SELECT count(*) AS n FROM orders WHERE ${clause}`, ...params)?.n ?? 0;
    const rows = this.store.all<OrderRow>(
      `SELECT * FROM orders WHERE ${clause} ORDER BY id LIMIT ? OFFSET ?`,
      ...params,
      q.pageSize,
      pageOffset(q.pageNumber, q.pageSize),
    );
    const now = this.scheduler.now();
    return {
      orders: rows.map((o) => {
        // Without showRecipients only the columns the delivery counts need are read, not the JSON.
        const recipients = this.store.all<RecipientRow>(
          `SELECT ${q.showRecipients ? "*" : LIGHT_RECIPIENT_COLUMNS} FROM recipients WHERE order_id = ? ORDER BY id`,
          o.id,
        );
        return {
          orderId: o.id,
          orderStatus: o.status,
          name: o.name,
          product: o.product,
          postageType: o.postage_type,
          productionSpeed: o.production_speed,
          templateId: o.template_id,
          createdDate: o.created,
          updatedDate: o.updated,
          paidDate: o.paid_date,
          recipientCount: o.recipient_count,
          deliveryProgress: deliveryCounts(o, recipients, now),
          ...(q.showRecipients ? { recipients: recipients.map((r) => recipientView(o, r, now)) } : {}),
        };
      }),
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: total,
    };
  }

  delete(accountId: number, id: number): { orderId: number; status: string; reasonCode: string | null } {
    return this.store.tx(() => {
      const order = this.get(accountId, id);
      const refuse = (reasonCode: string, message: string) =>
        new ApiError(400, reasonCode, [message], { orderId: id, status: "Failed", reasonCode });
      if (!EDITABLE_ORDER_STATUSES.includes(order.status)) {
        // The spec's standard invalid-status error, as for every operation refused by status; the
        // payload keeps the reason code the spec lists for a delete.
        throw invalidStatus(id, order.status, "deleting the order", "Draft or Needs Edits", {
          orderId: id,
          status: "Failed",
          reasonCode: "ORDER_NOT_DELETABLE_STATUS",
        });
      }
      const automation = this.store.get<{ id: number }>(
        "SELECT id FROM integration_orders WHERE template_id = ? AND account_id = ?",
        id,
        accountId,
      );
      if (automation) {
        throw refuse(
          "ORDER_USED_AS_AUTOMATION_TEMPLATE",
          `order ${id} is the template of automation ${automation.id} and cannot be deleted`,
        );
      }
      if (order.paid_recipient_searches > 0) {
        throw refuse(
          "ORDER_HAS_PAID_RECIPIENT_SEARCHES",
          `order ${id} has paid recipient searches and cannot be deleted`,
        );
      }
      // Immediate whatever the size: the rows go in the same transaction.
      this.store.run("DELETE FROM recipients WHERE order_id = ?", id);
      this.store.run("DELETE FROM orders WHERE id = ?", id);
      this.delivery.cancel(id);
      return { orderId: id, status: "Success", reasonCode: null };
    });
  }
}
