import type { LedgerResult } from "../../support/sandbox";

/** A CSV of recipients numbered `ns`, each one the sandbox accepts. */
export function recipientsCsv(ns: number[]): string {
  const lines = ns.map((n) => `Ada${n},Lovelace,${100 + n} Main St,Springfield,IL,62701`);
  return `firstName,lastName,address1,city,state,zipCode\n${lines.join("\n")}\n`;
}

/** Checkouts of the order that charged money: distinct checkouts with a succeeded charge. */
export function paidCheckouts(ledger: LedgerResult, orderId: number): number {
  const ids = ledger.entries
    .filter((e) => e.orderId === orderId && e.kind === "charge" && e.outcome === "succeeded")
    .map((e) => e.checkoutId);
  return new Set(ids).size;
}
