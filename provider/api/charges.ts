/**
 * What the service charged an order, from its entry in the transaction report (entry 13): the
 * ledger's view of money, which the Checkout's outputs, `directmail status` and the report give.
 * Never the checkout preview, which is a price asked before, not a charge.
 */
import { sumCents } from "../money";
import { ENTRY_STATUS_SUCCESS } from "./schemas/analytics";
import type { OrderTransactionEntry } from "./schemas/transactions";

export interface OrderCharges {
  /** The debits of the order's transactions, US dollars to the cent. */
  charged: number;
  /** The credits of the order's transactions (refunds), US dollars to the cent. */
  credited: number;
  /** What the order cost: charged less credited. */
  spent: number;
}

/** The charges of an order's transaction entry; none for no entry or an entry the service could not process. */
export function chargesOf(
  entry: Pick<OrderTransactionEntry, "status" | "transactions"> | undefined,
): OrderCharges {
  const transactions = entry?.status === ENTRY_STATUS_SUCCESS ? entry.transactions : [];
  const charged = sumCents(transactions.filter((t) => !t.isCredit).map((t) => t.amount));
  const credited = sumCents(transactions.filter((t) => t.isCredit).map((t) => t.amount));
  return { charged, credited, spent: sumCents([charged, -credited]) };
}
