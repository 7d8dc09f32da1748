/**
 * `directmail status [campaign|order...]`: how the mailing went, per order: its status, the paid
 * date, the delivery progress, the QR scans and the transactions, as a table or (`--json`) as JSON.
 * Orders are named by id, or by campaign through the selected stack's state; without either, every
 * order of the stack. One analytics call and one transactions call cover every order (entries 12
 * and 13 take a list of ids); `--recipient` adds one delivery-status call per order (entry 25).
 */
import type { Command } from "commander";
import { chargesOf } from "../../provider/api/charges";
import type { DirectMailClient } from "../../provider/api/client";
import { type DeliveryCounts, deliveryCountsOf, handedToCarrier } from "../../provider/api/delivery";
import { orderEntriesOf } from "../../provider/api/order-entries";
import { ENTRY_STATUS_SUCCESS, type RecipientDeliveryStatus } from "../../provider/api/schemas";
import { usd } from "../../provider/money";
import { oneLine } from "../../provider/text";
import { note, say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { serviceSettings, withClient } from "../stack/settings";
import { recipientNamed, resolveTargets, type Target } from "../stack/targets";

export interface OrderStatusReport {
  orderId: number;
  /** The campaign (metadata.name) the order belongs to in the stack; null when named by id only. */
  campaign: string | null;
  /** The order's status, or why it could not be read (`NotFound`: no such order of this account). */
  status: string;
  found: boolean;
  paidDate: string | null;
  delivery: DeliveryCounts & {
    estimatedMin: string | null;
    estimatedMax: string | null;
  };
  qrScans: { total: number; lastScan: string | null };
  transactions: {
    count: number;
    /** Sum of the debits, US dollars. */
    charged: number;
    /** Sum of the credits, US dollars. */
    credited: number;
    entries: {
      id: number;
      amount: number;
      isCredit: boolean;
      description: string | null;
      createdDate: string;
    }[];
  };
  /** With `--recipient`: that recipient's latest carrier status in this order; null when none matches. */
  recipient?: RecipientDeliveryStatus | null;
}

export function registerStatusCommand(program: Command): void {
  withStackOptions(
    program
      .command("status")
      .description(
        "Show, per order, the status, paid date, delivery progress, QR scans and transactions (default: every order of the selected stack).",
      )
      .argument("[targets...]", "campaign names (from the stack) or order ids")
      .option("--json", "print JSON, one object per order, for scripts")
      .option(
        "--recipient <who>",
        'also show one recipient\'s latest carrier status in each order: "First Last" or an address line',
      ),
  ).action(async (targets: string[], options: StackOptions & { json?: boolean; recipient?: string }) => {
    const settings = await serviceSettings(options);
    const orders = await resolveTargets(targets, settings);
    const reports = await withClient(settings, (client) => orderStatus(client, orders, options.recipient));
    say(options.json ? JSON.stringify(reports, null, 2) : formatStatusTable(reports));
    note(`(${settings.from})`);
  });
}

/** Reads every order's status: analytics and transactions a few hundred orders a request (order-entries.ts). */
export async function orderStatus(
  client: DirectMailClient,
  targets: readonly Target[],
  recipient?: string,
): Promise<OrderStatusReport[]> {
  const { analytics, transactions } = await orderEntriesOf(
    client,
    targets.map((t) => t.orderId),
  );
  const reports: OrderStatusReport[] = [];
  for (const { orderId, campaign } of targets) {
    const a = analytics.get(orderId);
    const t = transactions.get(orderId);
    const found = a?.status === ENTRY_STATUS_SUCCESS;
    const entries = (found ? (t?.transactions ?? []) : []).map((e) => ({
      id: e.id,
      amount: e.amount,
      isCredit: e.isCredit,
      description: e.description,
      createdDate: e.createdDate,
    }));
    const { charged, credited } = chargesOf(found ? t : undefined);
    const report: OrderStatusReport = {
      orderId,
      campaign,
      status: found ? (a.orderStatus ?? "unknown") : (a?.status ?? "NotFound"),
      found,
      paidDate: found ? a.paidDate : null,
      delivery: {
        ...deliveryCountsOf(a),
        estimatedMin: a?.minEstimatedDeliveredDate ?? null,
        estimatedMax: a?.maxEstimatedDeliveredDate ?? null,
      },
      qrScans: { total: a?.qrCode?.totalScans ?? 0, lastScan: a?.qrCode?.lastScan ?? null },
      transactions: { count: entries.length, charged, credited, entries },
    };
    if (recipient !== undefined)
      report.recipient = found ? await recipientNamed(client, orderId, recipient) : null;
    reports.push(report);
  }
  return reports;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "-");

/** The delivery progress in words: "20/23 delivered, 2 in transit, 1 undeliverable". */
export function deliveryText(report: OrderStatusReport): string {
  const d = report.delivery;
  if (!report.found) return "-";
  const more: [number, string][] = [
    [d.waitingUSPS, "waiting on USPS"],
    [d.mailed, "mailed"],
    [d.inTransit, "in transit"],
    [d.localFacility, "at the local facility"],
    [d.undeliverable, "undeliverable"],
  ];
  // Before the mailing no piece is in any stage.
  if (handedToCarrier(d) === 0) {
    const pieces = `${d.totalCards} piece${d.totalCards === 1 ? "" : "s"}, not mailed`;
    return report.paidDate && d.estimatedMax
      ? `${pieces} yet (delivery expected by ${day(d.estimatedMax)})`
      : pieces;
  }
  const parts = [`${d.delivered}/${d.totalCards} delivered`];
  for (const [count, words] of more) if (count > 0) parts.push(`${count} ${words}`);
  return parts.join(", ");
}

/** The reports as an aligned table, then one line per `--recipient` answer. */
export function formatStatusTable(reports: readonly OrderStatusReport[]): string {
  const header = ["ORDER", "CAMPAIGN", "STATUS", "PAID", "SCANS", "CHARGED", "TRANSACTIONS", "DELIVERY"];
  const rows = reports.map((r) =>
    [
      String(r.orderId),
      r.campaign ?? "-",
      r.found ? r.status : `${r.status} (not an order of this account)`,
      day(r.paidDate),
      r.found ? String(r.qrScans.total) : "-",
      r.found ? usd(r.transactions.charged) : "-",
      r.found ? String(r.transactions.count) : "-",
      deliveryText(r),
    ].map(oneLine),
  );
  // Cleaned before the widths are taken: a cell is shown on one line, its control characters as escapes.
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  const lines = [line(header), ...rows.map(line)];
  for (const r of reports) {
    if (r.recipient === undefined) continue;
    const who = r.recipient;
    lines.push(
      who === null
        ? `order ${r.orderId}: no recipient matches`
        : `order ${r.orderId}, recipient ${who.recipientId} (${oneLine([who.firstName, who.lastName].filter(Boolean).join(" ") || (who.address1 ?? ""))}): ` +
            `${oneLine(who.deliveryStatus ?? "not mailed yet")}${who.updatedDate ? ` since ${oneLine(who.updatedDate)}` : ""}`,
    );
  }
  return lines.join("\n");
}
