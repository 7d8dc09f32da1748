/**
 * The recipients the service will drop, told before anything is sent, by the service's own address
 * rules (api/address-rules.ts): what `directmail validate` warns of row by row, and what the review
 * counts against maxDroppedPercent before a change is merged. Reasons are redacted as the service's
 * are where they are read (api/reasons.ts): they name fields, never the values.
 */
import { addressNotValidReason, checkAddress } from "../api/address-rules";
import { type ReasonCount, reasonCode, redactReason, sumReasons } from "../api/reasons";
import type { OrderRecipient } from "../api/schemas/recipient";
import { rowsText } from "../text";
import type { DeclaredRecipient } from "./declared";

/** Rows a message names; the rest are counted. */
export const ROWS_NAMED = 10;

/** Why the service will drop this recipient, redacted; undefined when no offline rule says it will. */
export function predictedDropReason(recipient: DeclaredRecipient): string | undefined {
  const { problems } = checkAddress(recipient);
  if (problems.length === 0) return undefined;
  // Redacted as the provider redacts the service's reason, knowing what was sent: the declared
  // address fields are the wire names of the address group.
  const sent = { address: recipient, personal: {}, metadata: {} } as unknown as OrderRecipient;
  return redactReason(addressNotValidReason(problems), sent);
}

/** How many recipients of a list the service will drop, of how many, which and why. */
export interface PredictedDrops {
  /** The recipients sent (a row repeated exactly is sent once). */
  declared: number;
  dropped: number;
  /** The first ROWS_NAMED rows dropped, in row order. */
  rows: number[];
  /** By reason, most frequent first. */
  reasons: ReasonCount[];
}

/** Counts recipients as they are judged, in any order, keeping the first rows. */
export class DropTally {
  declared = 0;
  readonly #rows: number[] = [];
  readonly #reasons = new Map<string, number>();
  #dropped = 0;

  /** One recipient: dropped for `reason`, or kept (undefined). */
  add(row: number, reason: string | undefined): void {
    this.declared += 1;
    if (reason === undefined) return;
    this.#dropped += 1;
    this.#reasons.set(reason, (this.#reasons.get(reason) ?? 0) + 1);
    this.#rows.push(row);
    // Kept short as it grows: sorted and cut whenever it doubles.
    if (this.#rows.length >= 2 * ROWS_NAMED) this.#keepFirstRows();
  }

  get result(): PredictedDrops {
    this.#keepFirstRows();
    return {
      declared: this.declared,
      dropped: this.#dropped,
      rows: [...this.#rows],
      reasons: sumReasons([...this.#reasons].map(([reason, count]) => ({ reason, count }))),
    };
  }

  #keepFirstRows(): void {
    this.#rows.sort((a, b) => a - b);
    this.#rows.length = Math.min(this.#rows.length, ROWS_NAMED);
  }
}

/** The share dropped, as a percentage of the declared recipients (0 for none declared). */
export function droppedPercent(p: Pick<PredictedDrops, "declared" | "dropped">): number {
  return p.declared === 0 ? 0 : (p.dropped / p.declared) * 100;
}

/**
 * The predicted drops above maxDroppedPercent, in words that name both figures and the rows
 * (`the service will drop 1 of 4 recipients (25.0%), more than maxDroppedPercent 10: row 4
 * (ADDRESS_NOT_VALID 1)`); undefined within it, or without a limit.
 */
export function overDropLimit(p: PredictedDrops, maxDroppedPercent: number | undefined): string | undefined {
  if (maxDroppedPercent === undefined) return undefined;
  const percent = droppedPercent(p);
  if (percent <= maxDroppedPercent) return undefined;
  const reasons = sumReasons(p.reasons, reasonCode)
    .map((r) => `${r.reason} ${r.count}`)
    .join(", ");
  return (
    `the service will drop ${p.dropped} of ${p.declared} recipients (${percent.toFixed(1)}%), more than ` +
    `maxDroppedPercent ${maxDroppedPercent}: ${rowsText(p.rows, p.dropped)}${reasons ? ` (${reasons})` : ""}`
  );
}
