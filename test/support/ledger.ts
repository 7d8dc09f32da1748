import type { LedgerResult } from "./sandbox";

/** Checkouts of the order that charged money: distinct checkouts with a succeeded charge. */
export function paidCheckouts(ledger: LedgerResult, orderId: number): number {
  const ids = ledger.entries
    .filter((e) => e.orderId === orderId && e.kind === "charge" && e.outcome === "succeeded")
    .map((e) => e.checkoutId);
  return new Set(ids).size;
}
