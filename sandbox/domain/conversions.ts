import type { ConversionRecord } from "../../provider/api/schemas";
import type { Timings } from "../assumptions";
import type { Store } from "../storage/store";
import { validateAddress } from "./address";
import { ApiError, notFound } from "./errors";
import type { Scheduler } from "./scheduler";
import { addMs } from "./units";

/** Conversions (entries 18-20): uploads of conversion records, their matchback, and their deletion. */
export class Conversions {
  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly timings: Timings,
  ) {
    scheduler.on("conversion-match", (ref, due) => this.match(ref, due));
    scheduler.on("conversion-delete", (ref) => {
      this.store.run("UPDATE conversions SET status = 'Deleted' WHERE id = ? AND pending_deletion = 1", ref);
    });
  }

  /** Stores the valid records as one upload; returns its id (null when none was valid). */
  submit(accountId: number, valid: ConversionRecord[], submitted: number): number | null {
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
  private match(id: number, _due: string): void {
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

  private find(accountId: number, id: number) {
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

  status(accountId: number, id: number) {
    const row = this.find(accountId, id);
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

  delete(accountId: number, id: number): string {
    return this.store.tx(() => {
      const row = this.find(accountId, id);
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
}
