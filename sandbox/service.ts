import { randomBytes, randomUUID } from "node:crypto";
import {
  type AppendResult,
  type CheckoutPreview,
  type OrderRecipient,
  RecipientMetadata,
} from "../provider/api/schemas";
import { doNotMailKey, duplicateKey, stableHash, validateAddress } from "./address";
import {
  DEFAULT_TIMINGS,
  DELETABLE_STATUSES,
  EDITABLE_STATUSES,
  FONT_URL_TTL_MS,
  HANDWRITING_STYLES,
  IN_PRODUCTION_AFTER_MS,
  type PaymentBehaviour,
  PRICES,
  PRODUCTION_DAYS,
  STATUS,
  type Tier,
  type Timings,
  TRANSIT_DAYS,
} from "./assumptions";
import type { SandboxClock } from "./clock";
import { ApiError, badRequest, invalidStatus, notFound } from "./errors";
import { checkImage, IMAGE_FIELDS, type ImageIssue } from "./images";
import type { Store } from "./store";

/** One account as stored. */
export interface Account {
  id: number;
  aad_id: string;
  email: string;
  first_name: string;
  last_name: string;
  company: string;
  created: string;
  tier: Tier;
  balance: number;
  payment: PaymentBehaviour;
  process_qr: number;
}

export interface OrderRow {
  id: number;
  account_id: number;
  is_template: number;
  template_id: number | null;
  name: string;
  product: string;
  status: string;
  has_qr: number;
  qr_url: string | null;
  font: string | null;
  required_merge_fields: string;
  postage_type: string | null;
  production_speed: string | null;
  hold_until: string | null;
  paid_date: string | null;
  ready_at: string | null;
  mailed_at: string | null;
  paid_recipient_searches: number;
  cum_validated: number;
  cum_duplicated: number;
  cum_do_not_mail: number;
  checkout_count: number;
  created: string;
  updated: string;
}

export interface RecipientRow {
  id: number;
  order_id: number;
  do_not_mail: number;
  dpv: string;
  first_name: string | null;
  last_name: string | null;
  address1: string | null;
  scans: number;
  last_scan: string | null;
  created: string;
  data: string;
}

export interface CheckoutRow {
  id: number;
  order_id: number;
  account_id: number;
  postage_type: string;
  production_speed: string;
  hold_until: string | null;
  auto_bill: number;
  amount: number;
  quantity: number;
  outcome: string;
  created: string;
  settled: string | null;
  data: string;
}

export interface LedgerRow {
  id: number;
  account_id: number;
  order_id: number | null;
  checkout_id: number | null;
  kind: "charge" | "credit";
  method: "card" | "balance";
  amount: number;
  outcome: "succeeded" | "failed";
  description: string;
  created: string;
}

const DAY_MS = 24 * 3600 * 1000;
/** The recipient columns counts and timelines read (everything but the wire JSON). */
export const LIGHT_RECIPIENT_COLUMNS =
  "id, order_id, do_not_mail, dpv, first_name, last_name, address1, scans, last_scan, created";
const money = (n: number) => Math.round(n * 100) / 100;
/** A date-time as UTC ISO text (the form stored and compared); offsets and local times are converted. */
const utc = (value: string | null | undefined) =>
  value == null ? null : new Date(Date.parse(value)).toISOString();
const addMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The price of one piece, part by part (the transaction report's `detail`). */
export function piecePrice(product: string, postageType: string, speed: string) {
  return {
    basePrice: PRICES.base[product] ?? PRICES.defaultBase,
    doubleSided: PRICES.doubleSided,
    postagePrice: PRICES.postage[postageType] ?? 0,
    extraText: PRICES.extraText,
    expedited: PRICES.speed[speed] ?? 0,
  };
}

/** `HandWrittenPostCard` is the spec's listed sub-type; other products get their name without spaces. */
export function productSubType(product: string): string {
  if (/hand\s*written/i.test(product) && /post\s*card/i.test(product)) return "HandWrittenPostCard";
  return product.replace(/[^A-Za-z0-9]/g, "") || "Product";
}

/**
 * A recipient row keeps its wire object as compact JSON: without the id (the row's own) and
 * without null metadata keys (most of the 31), which halves the bytes an append of 5,000 writes.
 */
function packRecipient(r: OrderRecipient): string {
  const metadata = Object.fromEntries(Object.entries(r.metadata).filter(([, v]) => v !== null));
  return JSON.stringify({ address: r.address, personal: r.personal, metadata });
}

const NULL_METADATA = Object.fromEntries(Object.keys(RecipientMetadata.shape).map((k) => [k, null]));

function unpackRecipient(id: number, data: string): OrderRecipient {
  const packed = JSON.parse(data) as Omit<OrderRecipient, "id">;
  return {
    id,
    address: packed.address,
    personal: packed.personal,
    metadata: { ...NULL_METADATA, ...packed.metadata } as OrderRecipient["metadata"],
  };
}

export interface CheckoutOptions {
  postageType: string;
  productionSpeed: string;
  holdUntilDate?: string | null;
  autoBill?: boolean;
}

/**
 * The sandbox's behaviour, independent of HTTP: every rule of the spec is decided here, the routes
 * only parse, call and shape. Time-driven work is kept as rows of `events` and run by `tick()`,
 * which every request calls first, so what a client reads is always up to date with the clock.
 */
export class SandboxService {
  constructor(
    readonly store: Store,
    readonly clock: SandboxClock,
    readonly timings: Timings = DEFAULT_TIMINGS,
    private readonly onEventError: (event: { kind: string; ref: number }, error: unknown) => void = () => {},
  ) {}

  now(): string {
    return this.clock.iso();
  }

  // ---------------------------------------------------------------- accounts

  createAccount(input: {
    email?: string;
    tier?: Tier;
    balance?: number;
    payment?: PaymentBehaviour;
    firstName?: string;
    lastName?: string;
    company?: string;
    apiKey?: string;
  }): { apiKey: string; account: Account } {
    return this.store.tx(() => {
      const now = this.now();
      const { lastInsertRowid: id } = this.store.run(
        `INSERT INTO accounts(aad_id, email, first_name, last_name, company, created, tier, balance, payment)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        randomUUID(),
        input.email ?? "",
        input.firstName ?? "Sandbox",
        input.lastName ?? "User",
        input.company ?? "Sandbox Co",
        now,
        input.tier ?? "pro",
        money(input.balance ?? 0),
        input.payment ?? "succeed",
      );
      if (!input.email)
        this.store.run("UPDATE accounts SET email = ? WHERE id = ?", `account${id}@sandbox.test`, id);
      if (input.balance && input.balance > 0) {
        this.ledger(id, null, null, "credit", "balance", input.balance, "succeeded", "opening balance");
      }
      const apiKey = input.apiKey ?? this.addKey(id);
      if (input.apiKey) this.store.run("INSERT INTO api_keys(key, account_id) VALUES (?, ?)", apiKey, id);
      return { apiKey, account: this.account(id) };
    });
  }

  /** A new key for an account; earlier keys keep working (spec: generating a key revokes nothing). */
  addKey(accountId: number): string {
    const key = `sbx_${randomBytes(18).toString("base64url")}`;
    this.store.run("INSERT INTO api_keys(key, account_id) VALUES (?, ?)", key, accountId);
    return key;
  }

  account(id: number): Account {
    const row = this.store.get<Account>("SELECT * FROM accounts WHERE id = ?", id);
    if (!row) throw new Error(`account ${id} vanished`);
    return row;
  }

  /**
   * The account of an API key for authentication, cached: what a request takes from it (id,
   * profile, tier) changes only through updateAccount and reset, which empty the cache. Balances
   * are always read fresh with account(id).
   */
  private keyCache = new Map<string, Account>();

  authenticate(key: string): Account | undefined {
    let account = this.keyCache.get(key);
    if (!account) {
      account = this.accountByKey(key);
      if (account) this.keyCache.set(key, account);
    }
    return account;
  }

  accountByKey(key: string): Account | undefined {
    return this.store.get<Account>(
      "SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key = ?",
      key,
    );
  }

  updateAccount(
    accountId: number,
    patch: { tier?: Tier; payment?: PaymentBehaviour; balance?: number },
  ): Account {
    this.keyCache.clear();
    this.store.tx(() => {
      if (patch.tier) this.store.run("UPDATE accounts SET tier = ? WHERE id = ?", patch.tier, accountId);
      if (patch.payment) {
        this.store.run("UPDATE accounts SET payment = ? WHERE id = ?", patch.payment, accountId);
        if (patch.payment !== "hang") {
          // The processor answers at last: hanging settlements run now, with the new behaviour.
          const hanging = this.store.all<{ id: number }>(
            "SELECT id FROM checkouts WHERE account_id = ? AND outcome = 'hanging'",
            accountId,
          );
          for (const { id } of hanging) {
            this.store.run("UPDATE checkouts SET outcome = 'pending' WHERE id = ?", id);
            this.schedule(this.now(), "settle", id);
          }
        }
      }
      if (patch.balance !== undefined) {
        const current = this.account(accountId).balance;
        const delta = money(patch.balance - current);
        this.store.run("UPDATE accounts SET balance = ? WHERE id = ?", money(patch.balance), accountId);
        if (delta !== 0) {
          this.ledger(
            accountId,
            null,
            null,
            delta > 0 ? "credit" : "charge",
            "balance",
            Math.abs(delta),
            "succeeded",
            "balance set through the control API",
          );
        }
      }
    });
    return this.account(accountId);
  }

  profile(account: Account) {
    return {
      id: account.id,
      aadId: account.aad_id,
      email: account.email,
      firstName: account.first_name,
      lastName: account.last_name,
      company: account.company,
      created: account.created,
      shouldProcessQrCodes: account.process_qr === 1,
    };
  }

  ledger(
    accountId: number,
    orderId: number | null,
    checkoutId: number | null,
    kind: "charge" | "credit",
    method: "card" | "balance",
    amount: number,
    outcome: "succeeded" | "failed",
    description: string,
    at: string = this.now(),
  ): void {
    this.store.run(
      `INSERT INTO ledger(account_id, order_id, checkout_id, kind, method, amount, outcome, description, created)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      accountId,
      orderId,
      checkoutId,
      kind,
      method,
      money(amount),
      outcome,
      description,
      at,
    );
  }

  ledgerEntries(accountId: number): LedgerRow[] {
    return this.store.all<LedgerRow>("SELECT * FROM ledger WHERE account_id = ? ORDER BY id", accountId);
  }

  // ---------------------------------------------------------------- fonts, templates, do-not-mail

  addUploadedFont(accountId: number, name: string): { id: number } {
    const { lastInsertRowid } = this.store.run(
      "INSERT INTO fonts(account_id, name, created) VALUES (?, ?, ?)",
      accountId,
      name,
      this.now(),
    );
    return { id: lastInsertRowid };
  }

  fonts(accountId: number) {
    const globals = HANDWRITING_STYLES.map((name, i) => ({
      id: i + 1,
      name,
      type: "Global",
      url: null as string | null,
      urlExpiresAt: null as string | null,
    }));
    const uploaded = this.store
      .all<{ id: number; name: string; created: string }>(
        "SELECT * FROM fonts WHERE account_id = ? ORDER BY id",
        accountId,
      )
      .map((f) => ({
        id: f.id,
        name: f.name,
        type: "Uploaded",
        // Uploaded-font URLs expire 7 days after they are issued (spec limit): each listing issues one.
        url: `https://fonts.sandbox.invalid/${f.id}/${encodeURIComponent(f.name)}.ttf?expires=${Date.parse(this.now()) + FONT_URL_TTL_MS}`,
        urlExpiresAt: addMs(this.now(), FONT_URL_TTL_MS),
      }));
    return [...globals, ...uploaded];
  }

  createTemplate(
    accountId: number,
    input: {
      name: string;
      product?: string;
      hasQr?: boolean;
      qrUrl?: string;
      requiredMergeFields?: string[];
      font?: string;
    },
  ): { id: number } {
    const now = this.now();
    const { lastInsertRowid } = this.store.run(
      `INSERT INTO orders(account_id, is_template, template_id, name, product, status, has_qr, qr_url, font,
         required_merge_fields, created, updated)
       VALUES (?, 1, NULL, ?, ?, 'Draft', ?, ?, ?, ?, ?, ?)`,
      accountId,
      input.name,
      input.product ?? "Handwritten Postcard",
      input.hasQr ? 1 : 0,
      input.hasQr ? (input.qrUrl ?? "https://example.com/offer") : null,
      input.font ?? HANDWRITING_STYLES[0] ?? null,
      JSON.stringify(input.requiredMergeFields ?? []),
      now,
      now,
    );
    return { id: lastInsertRowid };
  }

  templates(accountId: number) {
    return this.store
      .all<OrderRow>("SELECT * FROM orders WHERE account_id = ? AND is_template = 1 ORDER BY id", accountId)
      .map((t) => ({
        id: t.id,
        name: t.name,
        product: t.product,
        hasQr: t.has_qr === 1,
        qrUrl: t.qr_url,
        handwritingFont: t.font,
        requiredMergeFields: JSON.parse(t.required_merge_fields) as string[],
        createdDate: t.created,
        updatedDate: t.updated,
      }));
  }

  addDoNotMail(accountId: number, a: { address1: string; city: string; state: string; zip: string }): void {
    const result = validateAddress({ address1: a.address1, city: a.city, state: a.state, zipCode: a.zip });
    if (!result.standard) {
      throw new ApiError(
        400,
        "INVALID_ADDRESS",
        result.problems.map((p) => `${p.field === "zipCode" ? "zip" : p.field}: ${p.message}`),
      );
    }
    this.store.run(
      "INSERT OR IGNORE INTO do_not_mail(account_id, address_key) VALUES (?, ?)",
      accountId,
      doNotMailKey(result.standard),
    );
  }

  // ---------------------------------------------------------------- orders

  /** An order of this account, template or not. Foreign and nonexistent ids are the same 404. */
  order(accountId: number, id: number): OrderRow {
    const row = this.store.get<OrderRow>(
      "SELECT * FROM orders WHERE id = ? AND account_id = ?",
      id,
      accountId,
    );
    if (!row) throw notFound("order", id);
    return row;
  }

  /** A non-template order: a template is never fulfilled, so order operations refuse it. */
  private fulfillableOrder(accountId: number, id: number, operation: string): OrderRow {
    const order = this.order(accountId, id);
    if (order.is_template) {
      throw badRequest(
        "ORDER_IS_TEMPLATE",
        `order ${id} is a template, which is never fulfilled; ${operation} needs an order created from it`,
      );
    }
    return order;
  }

  createOrder(
    accountId: number,
    input: { templateId: number; useQr?: boolean; qrUrl?: string; handwritingFont?: string },
  ): { orderId: number } {
    const template = this.store.get<OrderRow>(
      "SELECT * FROM orders WHERE id = ? AND account_id = ?",
      input.templateId,
      accountId,
    );
    if (!template?.is_template) {
      throw new ApiError(400, "TEMPLATE_NOT_FOUND", [
        `templateId: ${input.templateId} is not a template of this account`,
      ]);
    }
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
    let font = template.font;
    if (input.handwritingFont !== undefined) {
      const style = HANDWRITING_STYLES.find(
        (s) => s.toLowerCase() === input.handwritingFont?.trim().toLowerCase(),
      );
      if (!style) {
        const uploaded = this.store.get(
          "SELECT 1 AS x FROM fonts WHERE account_id = ? AND lower(name) = lower(?)",
          accountId,
          input.handwritingFont.trim(),
        );
        throw badRequest(
          uploaded ? "UPLOADED_FONT_NOT_ALLOWED" : "UNKNOWN_HANDWRITING_FONT",
          uploaded
            ? `handwritingFont: '${input.handwritingFont}' is an uploaded account font; only the service's handwriting styles are accepted (${HANDWRITING_STYLES.join(", ")})`
            : `handwritingFont: '${input.handwritingFont}' is not a handwriting style of the service (${HANDWRITING_STYLES.join(", ")})`,
        );
      }
      font = style;
    }
    const hasQr = template.has_qr === 1 && input.useQr !== false;
    const qrUrl = hasQr ? (input.qrUrl ?? template.qr_url) : null;
    const now = this.now();
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
  forceOrderState(
    accountId: number,
    id: number,
    patch: { status?: string; paidRecipientSearches?: number },
  ): OrderRow {
    const order = this.order(accountId, id);
    if (patch.status) {
      // "Needs Edits" (the deletion rule's spelling) is stored as the one status "Edits Needed".
      const status = patch.status.trim().toLowerCase() === "needs edits" ? STATUS.editsNeeded : patch.status;
      this.store.run("UPDATE orders SET status = ?, updated = ? WHERE id = ?", status, this.now(), id);
    }
    if (patch.paidRecipientSearches !== undefined) {
      this.store.run(
        "UPDATE orders SET paid_recipient_searches = ? WHERE id = ?",
        patch.paidRecipientSearches,
        id,
      );
    }
    return this.order(accountId, order.id);
  }

  listOrders(
    accountId: number,
    q: {
      id?: number;
      status?: string;
      paid?: boolean;
      product?: string;
      postage?: string;
      showRecipients?: boolean;
      pageNumber: number;
      pageSize: number;
    },
  ) {
    const where = ["account_id = ?", "is_template = 0"];
    const params: (string | number)[] = [accountId];
    if (q.id !== undefined) {
      where.push("id = ?");
      params.push(q.id);
    }
    if (q.status !== undefined) {
      // "Needs Edits" (the deletion rule's spelling) finds "Edits Needed" orders too.
      const wanted = q.status.trim().toLowerCase() === "needs edits" ? STATUS.editsNeeded : q.status.trim();
      where.push("lower(status) = lower(?)");
      params.push(wanted);
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
      (q.pageNumber - 1) * q.pageSize,
    );
    const now = this.now();
    return {
      orders: rows.map((o) => {
        // Without showRecipients only the columns the delivery counts need are read, not the JSON.
        const recipients = this.store.all<RecipientRow>(
          `SELECT ${q.showRecipients ? "*" : LIGHT_RECIPIENT_COLUMNS} FROM recipients WHERE order_id = ? ORDER BY id`,
          o.id,
        );
        const progress = this.deliveryCounts(o, recipients, now);
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
          recipientCount: recipients.length,
          deliveryProgress: progress,
          ...(q.showRecipients ? { recipients: recipients.map((r) => this.recipientView(o, r, now)) } : {}),
        };
      }),
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: total,
    };
  }

  deleteOrder(accountId: number, id: number): { orderId: number; status: string; reasonCode: string | null } {
    return this.store.tx(() => {
      const order = this.order(accountId, id);
      const refuse = (reasonCode: string, message: string) =>
        new ApiError(400, reasonCode, [message], { orderId: id, status: "Failed", reasonCode });
      if (!(DELETABLE_STATUSES as readonly string[]).includes(order.status)) {
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
      this.store.run(
        "DELETE FROM events WHERE ref = ? AND kind IN ('ready','in-production','mailed','complete')",
        id,
      );
      return { orderId: id, status: "Success", reasonCode: null };
    });
  }

  // ---------------------------------------------------------------- recipients

  appendRecipients(accountId: number, orderId: number, batch: OrderRecipient[]): AppendResult {
    return this.store.tx(() => {
      const order = this.fulfillableOrder(accountId, orderId, "appending recipients");
      if (!(EDITABLE_STATUSES as readonly string[]).includes(order.status)) {
        throw invalidStatus(orderId, order.status, "appending recipients", "Draft or Edits Needed");
      }
      const required = JSON.parse(order.required_merge_fields) as string[];
      const slotsInUse = new Set<string>(IMAGE_FIELDS.filter((f) => required.includes(f)));
      for (const r of batch) for (const f of IMAGE_FIELDS) if (r.metadata[f]?.trim()) slotsInUse.add(f);

      const now = this.now();
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
      const insert = this.store.db.prepare(
        `INSERT INTO recipients(order_id, do_not_mail, dpv, first_name, last_name, address1, search, created, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      // One read of the account's do-not-mail list per append, not one per recipient.
      const doNotMailKeys = new Set(
        this.store
          .all<{ address_key: string }>("SELECT address_key FROM do_not_mail WHERE account_id = ?", accountId)
          .map((r) => r.address_key),
      );

      batch.forEach((submitted, index) => {
        const issues: ImageIssue[] = [];
        for (const field of IMAGE_FIELDS) {
          if (!slotsInUse.has(field)) continue;
          const { outcome, issue } = checkImage(field, submitted.metadata[field]);
          summary[outcome]++;
          if (issue) issues.push(issue);
        }
        if (issues.length > 0) recipientsWithIssues.push({ recipientIndex: index, issues });

        const result = validateAddress({ ...submitted.address, zipCode: submitted.address.zipCode });
        if (!result.standard) {
          invalid++;
          undeliverable.push({
            ...submitted,
            metadata: { ...submitted.metadata, dpvConfirmationCode: "N" },
            reason: `ADDRESS_NOT_VALID: ${result.problems.map((p) => `address.${p.field}: ${p.message}`).join("; ")}`,
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
        const dnm = doNotMailKeys.has(doNotMailKey(std));
        const stored: OrderRecipient = {
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
          personal: { ...submitted.personal },
          metadata: {
            ...submitted.metadata,
            dpvConfirmationCode: result.dpv,
            qrUrl: submitted.metadata.qrUrl ?? (order.has_qr ? order.qr_url : null),
            deliveryStatus: null,
            fullAddress: std.fullAddress,
          },
        };
        const search = [
          stored.personal.firstName,
          stored.personal.lastName,
          stored.personal.toOrganization,
          std.fullAddress,
        ]
          .filter(Boolean)
          .join(" ")
          .toLowerCase();
        const { lastInsertRowid } = insert.run(
          orderId,
          dnm ? 1 : 0,
          result.dpv,
          stored.personal.firstName,
          stored.personal.lastName,
          std.address1,
          search,
          now,
          packRecipient(stored),
        );
        stored.id = Number(lastInsertRowid);
        if (dnm) {
          // Kept on the order, marked, never mailed, charged or proofed.
          doNotMail++;
          undeliverable.push({
            ...stored,
            reason: "DO_NOT_MAIL: the address is on the account's do-not-mail list",
          });
          return;
        }
        accepted++;
        if (result.dpv === "Y") validated++;
        else invalidated++;
      });

      this.store.run(
        `UPDATE orders SET cum_validated = cum_validated + ?, cum_duplicated = cum_duplicated + ?,
           cum_do_not_mail = cum_do_not_mail + ?, updated = ? WHERE id = ?`,
        validated,
        duplicated,
        doNotMail,
        now,
        orderId,
      );
      const after = this.order(accountId, orderId);
      const total =
        this.store.get<{ n: number }>("SELECT count(*) AS n FROM recipients WHERE order_id = ?", orderId)
          ?.n ?? 0;
      return {
        orderId,
        status: "Success",
        totalRecipients: total,
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

  /** The recipient as the API shows it; the delivery status follows the order's timeline. */
  recipientView(order: OrderRow, row: RecipientRow, now: string): OrderRecipient {
    const data = unpackRecipient(row.id, row.data);
    data.metadata.deliveryStatus = this.deliveryStatus(order, row, now);
    return data;
  }

  listRecipients(
    accountId: number,
    orderId: number,
    q: { search?: string; pageNumber: number; pageSize: number },
  ) {
    const order = this.order(accountId, orderId);
    const offset = (q.pageNumber - 1) * q.pageSize;
    const rows = q.search
      ? this.store.all<RecipientRow>(
          "SELECT * FROM recipients WHERE order_id = ? AND instr(search, lower(?)) > 0 ORDER BY id LIMIT ? OFFSET ?",
          orderId,
          q.search.trim(),
          q.pageSize,
          offset,
        )
      : this.store.all<RecipientRow>(
          "SELECT * FROM recipients WHERE order_id = ? ORDER BY id LIMIT ? OFFSET ?",
          orderId,
          q.pageSize,
          offset,
        );
    const now = this.now();
    return { orderId, status: "Success", recipients: rows.map((r) => this.recipientView(order, r, now)) };
  }

  deleteRecipients(accountId: number, orderId: number, ids: number[]) {
    return this.store.tx(() => {
      const order = this.fulfillableOrder(accountId, orderId, "deleting recipients");
      if (!(EDITABLE_STATUSES as readonly string[]).includes(order.status)) {
        throw invalidStatus(orderId, order.status, "deleting recipients", "Draft or Edits Needed");
      }
      const distinct = [...new Set(ids)];
      const notFound: number[] = [];
      let deleted = 0;
      for (const id of distinct) {
        const { changes } = this.store.run(
          "DELETE FROM recipients WHERE id = ? AND order_id = ?",
          id,
          orderId,
        );
        if (changes === 0) notFound.push(id);
        deleted += changes;
      }
      if (deleted > 0) this.store.run("UPDATE orders SET updated = ? WHERE id = ?", this.now(), orderId);
      return {
        orderId,
        status: "Success",
        requestedRecipients: distinct.length,
        deletedRecipients: deleted,
        notFoundRecipientIds: notFound,
      };
    });
  }

  /** The recipient a proof shows: a given one of the order, or the lowest-id one not marked do-not-mail. */
  proofRecipient(
    accountId: number,
    orderId: number,
    recipientId?: number,
  ): { order: OrderRow; recipient: OrderRecipient } {
    const order = this.order(accountId, orderId);
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
    return { order, recipient: this.recipientView(order, row, this.now()) };
  }

  deliveryStatusOf(
    accountId: number,
    orderId: number,
    q: { firstName?: string; lastName?: string; address1?: string },
  ) {
    const order = this.order(accountId, orderId);
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
    const now = this.now();
    const status = this.deliveryStatus(order, row, now);
    return {
      orderId,
      recipientId: row.id,
      firstName: row.first_name,
      lastName: row.last_name,
      address1: row.address1,
      deliveryStatus: status,
      updatedDate: status === null ? null : this.deliveryStatusSince(order, row, now),
    };
  }

  // ---------------------------------------------------------------- delivery timeline

  private deliverAt(order: OrderRow, row: RecipientRow): number {
    const mailed = Date.parse(order.mailed_at as string);
    const window = TRANSIT_DAYS[order.postage_type ?? "Standard"] ?? { min: 3, max: 5 };
    const days = window.min + (stableHash(String(row.id)) % (window.max - window.min + 1));
    return mailed + days * DAY_MS;
  }

  /** The stages of one piece: [from, status]; the last one reached is its status. */
  private stages(order: OrderRow, row: RecipientRow): [number, string][] {
    const mailed = Date.parse(order.mailed_at as string);
    const deliver = this.deliverAt(order, row);
    return [
      [mailed, "Waiting on USPS Info"],
      [mailed + DAY_MS / 2, "Mailed"],
      [mailed + DAY_MS, "In Transit"],
      [deliver - DAY_MS, "Local Facility"],
      // Addresses not fully confirmed (dpv D or S) come back undeliverable.
      [deliver, row.dpv === "Y" ? "Delivered" : "Undeliverable"],
    ];
  }

  deliveryStatus(order: OrderRow, row: RecipientRow, now: string): string | null {
    if (row.do_not_mail || !order.mailed_at) return null;
    const t = Date.parse(now);
    let status: string | null = null;
    for (const [from, s] of this.stages(order, row)) if (t >= from) status = s;
    return status;
  }

  private deliveryStatusSince(order: OrderRow, row: RecipientRow, now: string): string | null {
    if (!order.mailed_at) return null;
    const t = Date.parse(now);
    let since: number | null = null;
    for (const [from] of this.stages(order, row)) if (t >= from) since = from;
    return since === null ? null : new Date(since).toISOString();
  }

  deliveryCounts(order: OrderRow, rows: RecipientRow[], now: string) {
    const counts = {
      totalCards: 0,
      mailed: 0,
      inTransit: 0,
      localFacility: 0,
      delivered: 0,
      undeliverable: 0,
      waitingUSPS: 0,
    };
    for (const row of rows) {
      if (row.do_not_mail) continue;
      counts.totalCards++;
      switch (this.deliveryStatus(order, row, now)) {
        case "Waiting on USPS Info":
          counts.waitingUSPS++;
          break;
        case "Mailed":
          counts.mailed++;
          break;
        case "In Transit":
          counts.inTransit++;
          break;
        case "Local Facility":
          counts.localFacility++;
          break;
        case "Delivered":
          counts.delivered++;
          break;
        case "Undeliverable":
          counts.undeliverable++;
          break;
      }
    }
    return counts;
  }

  // ---------------------------------------------------------------- checkout

  private mailableCount(orderId: number): number {
    return (
      this.store.get<{ n: number }>(
        "SELECT count(*) AS n FROM recipients WHERE order_id = ? AND do_not_mail = 0",
        orderId,
      )?.n ?? 0
    );
  }

  /** Estimated production completion per speed, counted from now (or from the hold date). */
  productionEstimates(from: string) {
    const at = (speed: string) => addMs(from, (PRODUCTION_DAYS[speed] ?? 3) * DAY_MS);
    return {
      Normal: at("Normal"),
      ExpeditedFaster: at("ExpeditedFaster"),
      ExpeditedFastest: at("ExpeditedFastest"),
      HailTrace: at("HailTrace"),
    };
  }

  private priceOrder(order: OrderRow, quantity: number, postageType: string, speed: string) {
    const part = piecePrice(order.product, postageType, speed);
    const subType = productSubType(order.product);
    const line = (name: string, rate: number, transactionSubType: string) => ({
      tax: 0,
      rate,
      total: money(rate * quantity),
      name,
      quantity,
      transactionType: "LineItemDebit",
      transactionSubType,
      subItems: [],
    });
    const lineItems = [line(order.product, part.basePrice, subType)];
    if (part.postagePrice > 0) lineItems.push(line(`${postageType} postage`, part.postagePrice, "Postage"));
    if (part.expedited > 0) lineItems.push(line(`${speed} production`, part.expedited, "ProductionSpeed"));
    const total = money(lineItems.reduce((sum, l) => sum + l.total, 0));
    return { lineItems, total, part };
  }

  private checkHold(hold: string | null | undefined): void {
    if (hold == null) return;
    const normal = this.productionEstimates(this.now()).Normal;
    if (Date.parse(hold) <= Date.parse(normal)) {
      throw new ApiError(
        400,
        "INVALID_HOLD_UNTIL_DATE",
        [`holdUntilDate: ${hold} must be later than the normal estimated production completion ${normal}`],
        null,
        [{ field: "holdUntilDate", value: hold, minimumExclusive: normal }],
      );
    }
  }

  /** Shared checks of preview and execute; returns the priced order. */
  private checkoutQuote(accountId: number, orderId: number, opts: CheckoutOptions, operation: string) {
    const order = this.fulfillableOrder(accountId, orderId, operation);
    if (!(EDITABLE_STATUSES as readonly string[]).includes(order.status)) {
      throw invalidStatus(orderId, order.status, operation, "Draft or Edits Needed");
    }
    const quantity = this.mailableCount(orderId);
    if (quantity === 0) {
      throw badRequest("ORDER_HAS_NO_RECIPIENTS", `order ${orderId} has no recipient that can be mailed`);
    }
    this.checkHold(opts.holdUntilDate);
    const priced = this.priceOrder(order, quantity, opts.postageType, opts.productionSpeed);
    const account = this.account(accountId);
    const autoBill = opts.autoBill ?? true;
    if (!autoBill && account.balance < priced.total) {
      throw new ApiError(402, "INSUFFICIENT_BALANCE", [
        `autoBill is false and the available balance ${account.balance.toFixed(2)} does not cover the order total ${priced.total.toFixed(2)}`,
      ]);
    }
    const credit = money(Math.min(account.balance, priced.total));
    return { order, quantity, priced, account, autoBill, credit };
  }

  previewCheckout(accountId: number, orderId: number, opts: CheckoutOptions): CheckoutPreview {
    const { quantity, priced, credit, order } = this.checkoutQuote(
      accountId,
      orderId,
      opts,
      "the checkout preview",
    );
    const now = this.now();
    const start = utc(opts.holdUntilDate) ?? now;
    const speeds = this.productionEstimates(start);
    const completion = speeds[opts.productionSpeed as keyof typeof speeds] ?? speeds.Normal;
    const transit = TRANSIT_DAYS[opts.postageType] ?? { min: 3, max: 5 };
    const perPiece = (postage: string, speed: string) => {
      const p = piecePrice(order.product, postage, speed);
      return money(p.basePrice + p.doubleSided + p.postagePrice + p.extraText + p.expedited);
    };
    return {
      orderId,
      status: "Success",
      lineItems: priced.lineItems,
      credits:
        credit > 0
          ? [
              {
                tax: 0,
                rate: credit,
                total: credit,
                name: "Account balance",
                quantity: 1,
                transactionType: "Credit",
                transactionSubType: "AccountBalance",
                subItems: [],
              },
            ]
          : [],
      totalCharges: priced.total,
      totalTax: 0,
      totalCredits: credit,
      balance: money(priced.total - credit),
      productionSpeeds: speeds,
      productionSpeedPrices: {
        Normal: money(perPiece(opts.postageType, "Normal") * quantity),
        ExpeditedFaster: money(perPiece(opts.postageType, "ExpeditedFaster") * quantity),
        ExpeditedFastest: money(perPiece(opts.postageType, "ExpeditedFastest") * quantity),
      },
      postageTypePrices: {
        Standard: money(perPiece("Standard", opts.productionSpeed) * quantity),
        FirstClass: money(perPiece("FirstClass", opts.productionSpeed) * quantity),
      },
      estimatedDeliveryDateMin: addMs(completion, transit.min * DAY_MS),
      estimatedDeliveryDateMax: addMs(completion, transit.max * DAY_MS),
    };
  }

  executeCheckout(accountId: number, orderId: number, opts: CheckoutOptions) {
    return this.store.tx(() => {
      const { quantity, priced, autoBill } = this.checkoutQuote(accountId, orderId, opts, "checkout");
      const now = this.now();
      const { lastInsertRowid: checkoutId } = this.store.run(
        `INSERT INTO checkouts(order_id, account_id, postage_type, production_speed, hold_until, auto_bill, amount,
           quantity, outcome, created, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        orderId,
        accountId,
        opts.postageType,
        opts.productionSpeed,
        utc(opts.holdUntilDate),
        autoBill ? 1 : 0,
        priced.total,
        quantity,
        now,
        JSON.stringify({ part: priced.part, lineItems: priced.lineItems }),
      );
      this.store.run(
        `UPDATE orders SET status = ?, postage_type = ?, production_speed = ?, hold_until = ?,
           checkout_count = checkout_count + 1, updated = ? WHERE id = ?`,
        STATUS.paymentNeeded,
        opts.postageType,
        opts.productionSpeed,
        utc(opts.holdUntilDate),
        now,
        orderId,
      );
      this.schedule(addMs(now, this.timings.settlementSeconds * 1000), "settle", checkoutId);
      return {
        result: {
          orderId,
          status: "Success",
          orderStatus: STATUS.paymentNeeded,
          pollAfterSeconds: this.timings.pollAfterSeconds,
          settlementExpectedWithinSeconds: this.timings.settlementExpectedWithinSeconds,
        },
        warning:
          "Payment is being processed: the order is Payment Needed until settlement completes. Do not repeat this checkout; a second checkout charges again.",
      };
    });
  }

  /** Settlement of one checkout, by the account's payment behaviour at the time it runs. */
  private settle(checkoutId: number, due: string): void {
    const checkout = this.store.get<CheckoutRow>("SELECT * FROM checkouts WHERE id = ?", checkoutId);
    if (checkout?.outcome !== "pending") return;
    const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", checkout.order_id);
    const account = this.account(checkout.account_id);
    if (!order || order.status !== STATUS.paymentNeeded) {
      this.store.run("UPDATE checkouts SET outcome = 'void', settled = ? WHERE id = ?", due, checkoutId);
      return;
    }
    if (account.payment === "hang") {
      // The processor never answers: the order stays in Payment Needed, nothing is charged.
      this.store.run("UPDATE checkouts SET outcome = 'hanging' WHERE id = ?", checkoutId);
      return;
    }
    const fromBalance = checkout.auto_bill
      ? money(Math.min(account.balance, checkout.amount))
      : checkout.amount;
    const fromCard = money(checkout.amount - fromBalance);
    const shortOfBalance = !checkout.auto_bill && account.balance < checkout.amount;
    if (account.payment === "fail" || shortOfBalance) {
      this.ledger(
        account.id,
        order.id,
        checkoutId,
        "charge",
        fromCard > 0 ? "card" : "balance",
        fromCard > 0 ? fromCard : fromBalance,
        "failed",
        shortOfBalance ? "balance no longer covers the order" : "payment declined",
        due,
      );
      this.store.run("UPDATE checkouts SET outcome = 'failed', settled = ? WHERE id = ?", due, checkoutId);
      this.store.run(
        "UPDATE orders SET status = ?, postage_type = NULL, production_speed = NULL, hold_until = NULL, updated = ? WHERE id = ?",
        STATUS.draft,
        due,
        order.id,
      );
      return;
    }
    if (fromBalance > 0) {
      this.store.run(
        "UPDATE accounts SET balance = round(balance - ?, 2) WHERE id = ?",
        fromBalance,
        account.id,
      );
      this.ledger(
        account.id,
        order.id,
        checkoutId,
        "charge",
        "balance",
        fromBalance,
        "succeeded",
        `order ${order.id}: balance applied`,
        due,
      );
    }
    if (fromCard > 0) {
      this.ledger(
        account.id,
        order.id,
        checkoutId,
        "charge",
        "card",
        fromCard,
        "succeeded",
        `order ${order.id}: card charged`,
        due,
      );
    }
    this.store.run("UPDATE checkouts SET outcome = 'succeeded', settled = ? WHERE id = ?", due, checkoutId);
    this.store.run(
      "UPDATE orders SET status = ?, paid_date = ?, updated = ? WHERE id = ?",
      STATUS.paid,
      due,
      due,
      order.id,
    );
    const readyAt = checkout.hold_until && checkout.hold_until > due ? checkout.hold_until : due;
    this.schedule(readyAt, "ready", order.id);
  }

  // ---------------------------------------------------------------- events

  /**
   * A lower bound of the earliest due event: `null` when there is none, `undefined` when unknown.
   * It spares most requests the events query (a rolled-back schedule only makes it lower: safe).
   */
  private nextDue: string | null | undefined;

  /** Forget what is cached of the tables (after a reset). */
  forgetCaches(): void {
    this.nextDue = undefined;
    this.keyCache.clear();
  }

  schedule(due: string, kind: string, ref: number, data: unknown = {}): void {
    // Unknown stays unknown: an earlier event may already be in the table (after a restart).
    if (this.nextDue === null || (this.nextDue !== undefined && due < this.nextDue)) this.nextDue = due;
    this.store.run(
      "INSERT INTO events(due, kind, ref, data) VALUES (?, ?, ?, ?)",
      due,
      kind,
      ref,
      JSON.stringify(data),
    );
  }

  private handlers: Record<string, (ref: number, due: string, data: any) => void> = {
    settle: (ref, due) => this.settle(ref, due),
    ready: (ref, due) => {
      const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", ref);
      if (!order || order.status !== STATUS.paid) return;
      this.store.run(
        "UPDATE orders SET status = ?, ready_at = ?, updated = ? WHERE id = ?",
        STATUS.ready,
        due,
        due,
        ref,
      );
      this.schedule(addMs(due, IN_PRODUCTION_AFTER_MS), "in-production", ref);
    },
    "in-production": (ref, due) => {
      const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", ref);
      if (!order || order.status !== STATUS.ready) return;
      this.store.run("UPDATE orders SET status = ?, updated = ? WHERE id = ?", STATUS.inProduction, due, ref);
      const mailAt = addMs(
        order.ready_at ?? due,
        (PRODUCTION_DAYS[order.production_speed ?? "Normal"] ?? 3) * DAY_MS,
      );
      this.schedule(mailAt > due ? mailAt : due, "mailed", ref);
    },
    mailed: (ref, due) => {
      const order = this.store.get<OrderRow>("SELECT * FROM orders WHERE id = ?", ref);
      if (!order || order.status !== STATUS.inProduction) return;
      this.store.run(
        "UPDATE orders SET status = ?, mailed_at = ?, updated = ? WHERE id = ?",
        STATUS.mailed,
        due,
        due,
        ref,
      );
      const window = TRANSIT_DAYS[order.postage_type ?? "Standard"] ?? { min: 3, max: 5 };
      this.schedule(addMs(due, window.max * DAY_MS), "complete", ref);
    },
    complete: (ref, due) => {
      this.store.run(
        "UPDATE orders SET status = ?, updated = ? WHERE id = ? AND status = ?",
        STATUS.complete,
        due,
        ref,
        STATUS.mailed,
      );
    },
  };

  /** Registers the handler of one kind of timed event (the other domain modules add theirs). */
  on(kind: string, handler: (ref: number, due: string, data: any) => void): void {
    this.handlers[kind] = handler;
  }

  /** Runs every event that is due, in due order; an event may schedule more, which run too if due. */
  tick(): void {
    const now = this.now();
    if (this.nextDue === null || (this.nextDue !== undefined && this.nextDue > now)) return;
    for (;;) {
      const due = this.store.all<{ id: number; due: string; kind: string; ref: number; data: string }>(
        "SELECT * FROM events WHERE due <= ? ORDER BY due, id LIMIT 200",
        now,
      );
      if (due.length === 0) {
        this.nextDue =
          this.store.get<{ due: string | null }>("SELECT min(due) AS due FROM events")?.due ?? null;
        return;
      }
      for (const event of due) {
        try {
          this.store.tx(() => {
            this.handlers[event.kind]?.(event.ref, event.due, JSON.parse(event.data));
            this.store.run("DELETE FROM events WHERE id = ?", event.id);
          });
        } catch (error) {
          // One broken event must not fail every later request: its work is rolled back, it is
          // dropped and reported.
          this.store.run("DELETE FROM events WHERE id = ?", event.id);
          this.onEventError(event, error);
        }
      }
    }
  }
}
