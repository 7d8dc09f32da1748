/**
 * What the service charged an order, from its entry in the transaction report (entry 13): the
 * ledger's view of money, which the Checkout's outputs, `directmail status` and the report give.
 * Never the checkout preview, which is a price asked before, not a charge.
 */
import { sumCents } from "../money";
import type { DirectMailClient } from "./client";
import { ENTRY_STATUS_SUCCESS } from "./schemas/analytics";
import { isCheckedOut, isSettling } from "./schemas/order";
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

/** Orders asked about in one transaction report: the id list rides in the query string. */
const ORDERS_PER_REPORT = 100;

/** The first instant of the UTC calendar month of `now`. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** What the account was charged this month, and is being charged, by the service's clock. */
export interface MonthCharges {
  /** The debits dated this month, over every order of the account, US dollars to the cent. */
  charged: number;
  /**
   * The checkouts sent and not yet settled or failed (orders in `Payment Needed`): the order's total
   * price at the service, less what its ledger already debited. Charged at settlement, whatever the
   * month then; counted now, since nothing can stop them.
   */
  unsettled: number;
  /** The orders the service says were checked out (`Payment Needed` or later): their money is in the figures above. */
  checkedOut: ReadonlySet<number>;
  /** The first instant of the month (UTC). */
  since: Date;
}

/**
 * The account's charges of this calendar month (UTC, by the service's clock): the debits of every
 * order's transaction report dated on or after the month's first instant, and the price of every
 * checkout still settling. Credits (refunds) are not taken off: a budget counts what was charged.
 * The service has no account-wide report, so every order is listed and asked about; each order's
 * status and money come from the same entry, so a settlement between two reads is never counted twice.
 */
export async function chargesThisMonth(client: DirectMailClient): Promise<MonthCharges> {
  const since = monthStart(await client.serviceTime());
  const orderIds: number[] = [];
  for await (const order of client.iterateOrders({ pageSize: 1000 })) orderIds.push(order.orderId);
  const amounts: number[] = [];
  const settling: number[] = [];
  const checkedOut = new Set<number>();
  for (let start = 0; start < orderIds.length; start += ORDERS_PER_REPORT) {
    const report = await client.getTransactions(orderIds.slice(start, start + ORDERS_PER_REPORT));
    for (const entry of report.orders) {
      if (entry.status !== ENTRY_STATUS_SUCCESS) continue;
      for (const t of entry.transactions)
        if (!t.isCredit && Date.parse(t.createdDate) >= since.getTime()) amounts.push(t.amount);
      if (entry.orderId !== null && isCheckedOut(entry.orderStatus ?? undefined))
        checkedOut.add(entry.orderId);
      if (isSettling(entry.orderStatus ?? undefined)) {
        const { charged } = chargesOf(entry);
        settling.push(Math.max(0, sumCents([entry.totalPrice, -charged])));
      }
    }
  }
  return { charged: sumCents(amounts), unsettled: sumCents(settling), checkedOut, since };
}
