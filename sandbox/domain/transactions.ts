import type { OrderTransactionEntry } from "../../provider/api/schemas";
import type { LedgerRow } from "../storage/rows";
import type { Store } from "../storage/store";
import type { Accounts } from "./accounts";
import { piecePrice, pieceTotal, productSubType } from "./checkout";
import { listedOrder, perOrder } from "./order-entries";
import { money } from "./units";

/** The transaction report of orders (entry 13): what each order costs, and what was charged and credited. */
export class Transactions {
  constructor(
    private readonly store: Store,
    private readonly accounts: Accounts,
  ) {}

  report(accountId: number, ids: (number | null)[]) {
    const orders: OrderTransactionEntry[] = ids.map((id) => {
      const order = listedOrder(this.store, accountId, id);
      if (typeof order === "string") {
        return {
          orderId: id,
          status: order,
          volume: 0,
          totalPrice: 0,
          costPerPiece: 0,
          email: null,
          product: null,
          orderStatus: null,
          orderUpdatedDate: null,
          paidDate: null,
          createdDate: null,
          profileId: null,
          isCredit: false,
          transactionType: null,
          transactionSubType: null,
          detail: null,
          discount: null,
          transactions: [],
        };
      }
      const account = this.accounts.get(accountId);
      const checkout = this.store.get<{
        quantity: number;
        amount: number;
        postage_type: string;
        production_speed: string;
      }>(
        "SELECT * FROM checkouts WHERE order_id = ? ORDER BY (outcome = 'succeeded') DESC, id DESC LIMIT 1",
        order.id,
      );
      const volume =
        checkout?.quantity ??
        this.store.get<{ n: number }>(
          "SELECT count(*) AS n FROM recipients WHERE order_id = ? AND do_not_mail = 0",
          order.id,
        )?.n ??
        0;
      const detail = piecePrice(
        order.product,
        checkout?.postage_type ?? "Standard",
        checkout?.production_speed ?? "Normal",
      );
      const perPiece = pieceTotal(detail);
      // A declined payment moved no money: the report lists what was charged and credited.
      const ledger = this.store.all<LedgerRow>(
        "SELECT * FROM ledger WHERE order_id = ? AND account_id = ? AND outcome = 'succeeded' ORDER BY id",
        order.id,
        accountId,
      );
      const subType = productSubType(order.product);
      return {
        orderId: order.id,
        status: "Success",
        volume,
        totalPrice: checkout?.amount ?? money(perPiece * volume),
        costPerPiece: perPiece,
        email: account.email,
        product: order.product,
        orderStatus: order.status,
        orderUpdatedDate: order.updated,
        paidDate: order.paid_date,
        createdDate: order.created,
        profileId: accountId,
        isCredit: false,
        transactionType: "LineItemDebit",
        transactionSubType: subType,
        detail,
        discount: { basePrice: 0, doubleSided: 0, postagePrice: 0, extraText: 0, expedited: 0 },
        transactions: ledger.map((l) => ({
          id: l.id,
          orderId: l.order_id,
          customerSubscriptionId: null,
          amount: l.amount,
          description: `${l.description} (${l.method}, ${l.outcome})`,
          createdDate: l.created,
          updatedDate: l.created,
          profileId: l.account_id,
          transactionType: l.kind === "credit" ? "Credit" : "LineItemDebit",
          transactionSubType: l.kind === "credit" ? "AccountBalance" : subType,
          isCredit: l.kind === "credit",
          recipientSearchId: null,
          recipientEnrichmentOrderId: null,
          radiusMailOrderId: null,
          hailTraceOrderId: null,
        })),
      };
    });
    return perOrder(ids, orders);
  }
}
