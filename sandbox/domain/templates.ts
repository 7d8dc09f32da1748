import { FONT_URL_TTL_MS, HANDWRITING_STYLES } from "../assumptions";
import type { OrderRow } from "../storage/rows";
import type { Store } from "../storage/store";
import { ApiError, badRequest } from "./errors";
import type { Scheduler } from "./scheduler";
import { addMs } from "./units";

export interface NewTemplate {
  name: string;
  product?: string | undefined;
  hasQr?: boolean | undefined;
  qrUrl?: string | undefined;
  requiredMergeFields?: string[] | undefined;
  font?: string | undefined;
}

/** What orders are made from: the account's templates (orders never fulfilled) and fonts. */
export class Templates {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
  ) {}

  create(accountId: number, input: NewTemplate): { id: number } {
    const now = this.scheduler.now();
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

  /** A template of this account; anything else is the `templateId` error of order creation. */
  get(accountId: number, templateId: number): OrderRow {
    const template = this.store.get<OrderRow>(
      "SELECT * FROM orders WHERE id = ? AND account_id = ?",
      templateId,
      accountId,
    );
    if (!template?.is_template) {
      throw new ApiError(400, "TEMPLATE_NOT_FOUND", [
        `templateId: ${templateId} is not a template of this account`,
      ]);
    }
    return template;
  }

  list(accountId: number) {
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

  // ---------------------------------------------------------------- fonts

  addUploadedFont(accountId: number, name: string): { id: number } {
    const { lastInsertRowid } = this.store.run(
      "INSERT INTO fonts(account_id, name, created) VALUES (?, ?, ?)",
      accountId,
      name,
      this.scheduler.now(),
    );
    return { id: lastInsertRowid };
  }

  fonts(accountId: number) {
    const now = this.scheduler.now();
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
        url: `https://fonts.sandbox.invalid/${f.id}/${encodeURIComponent(f.name)}.ttf?expires=${Date.parse(now) + FONT_URL_TTL_MS}`,
        urlExpiresAt: addMs(now, FONT_URL_TTL_MS),
      }));
    return [...globals, ...uploaded];
  }

  /**
   * The handwriting style `requested` names (any case): only the service's global styles are
   * accepted; an uploaded account font and an unknown name are refused with their own codes.
   */
  handwritingStyle(accountId: number, requested: string): string {
    const style = HANDWRITING_STYLES.find((s) => s.toLowerCase() === requested.trim().toLowerCase());
    if (style) return style;
    const uploaded = this.store.get(
      "SELECT 1 AS x FROM fonts WHERE account_id = ? AND lower(name) = lower(?)",
      accountId,
      requested.trim(),
    );
    throw badRequest(
      uploaded ? "UPLOADED_FONT_NOT_ALLOWED" : "UNKNOWN_HANDWRITING_FONT",
      uploaded
        ? `handwritingFont: '${requested}' is an uploaded account font; only the service's handwriting styles are accepted (${HANDWRITING_STYLES.join(", ")})`
        : `handwritingFont: '${requested}' is not a handwriting style of the service (${HANDWRITING_STYLES.join(", ")})`,
    );
  }
}
