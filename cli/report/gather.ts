/**
 * What `directmail report` asks: which orders a stack holds (its state, from `pulumi stack export`)
 * and, for each order, the service's analytics (entry 12: delivery counts, QR scans) and
 * transactions (entry 13: what it cost). All reads; nothing changes anywhere.
 */

import { orderEntriesOf } from "../../provider/api/order-entries";
import { KIND } from "../../provider/campaign/names";
import type { DirectMailClient } from "../../provider/index";
import { type DropReport, dropReportOf } from "../stack/drop-report";
import type { StackSelection } from "../stack/settings";
import { type DeployedResource, deployedResources } from "../stack/state";
import { type ReportOrder, reportOrder } from "./model";

/** An order to report on, with what the stack knows of it. */
export interface OrderRef {
  orderId: number;
  /** The campaign (or resource) it belongs to in the stack. */
  campaign: string | undefined;
  /** Drops at upload, from the state of the campaign's OrderRecipients. */
  drops: DropReport | undefined;
}

/** The orders of a stack's last deployment, in the order of its state. */
export async function ordersOfStack(selection: StackSelection): Promise<OrderRef[]> {
  return ordersOf(await deployedResources(selection));
}

export function ordersOf(resources: DeployedResource[]): OrderRef[] {
  const recipientsOf = new Map<unknown, DeployedResource>();
  for (const r of resources) if (r.kind === KIND.OrderRecipients) recipientsOf.set(r.outputs.orderId, r);
  const refs: OrderRef[] = [];
  for (const r of resources) {
    if (r.kind !== KIND.Order || typeof r.outputs.orderId !== "number") continue;
    const recipients = recipientsOf.get(r.outputs.orderId);
    refs.push({
      orderId: r.outputs.orderId,
      campaign: r.campaign ?? r.name,
      drops: recipients ? dropReportOf(recipients.outputs) : undefined,
    });
  }
  return refs;
}

/** The figures of each order, in the given order: a few hundred orders a request (order-entries.ts). */
export async function gatherOrders(client: DirectMailClient, refs: OrderRef[]): Promise<ReportOrder[]> {
  const { analytics, transactions } = await orderEntriesOf(
    client,
    refs.map((r) => r.orderId),
  );
  return refs.map((ref) =>
    reportOrder(
      ref.orderId,
      ref.campaign,
      analytics.get(ref.orderId),
      transactions.get(ref.orderId),
      ref.drops,
    ),
  );
}
