/**
 * The data of `directmail report` and the four charts made from it. Everything here is pure: the
 * service's answers go in (gather.ts reads them), the charts' figures come out, and html.ts draws
 * them. Each chart carries the table of its figures, so the page says in text what it shows.
 */

import { chargesOf } from "../../provider/api/charges";
import { type DeliveryCounts, deliveryCountsOf, handedToCarrier } from "../../provider/api/delivery";
import { reasonCode } from "../../provider/api/reasons";
import type { OrderAnalyticsEntry, OrderTransactionEntry } from "../../provider/api/schemas";
import { isEditable, isSettling } from "../../provider/api/schemas/order";
import { roundCents, sumCents, usd } from "../../provider/money";
import type { DropReport } from "../stack/drop-report";

export interface ReportOrder {
  orderId: number;
  /** What the report calls the order: its campaign in the stack, else the service's campaign name. */
  name: string;
  /** Set when the service could not report on the order (`NotFound`): the order has no figures. */
  error: string | undefined;
  orderStatus: string | null;
  /** Where the order is with money: a draft (nothing charged, nothing printed), paying, or paid. */
  stage: "draft" | "paying" | "paid";
  paidDate: string | null;
  delivery: DeliveryCounts;
  scans: {
    total: number;
    /** Each scanning recipient's count and last scan: the service gives no time of earlier scans. */
    recipients: { id: number; scans: number; lastScan: string | null }[];
  };
  /**
   * `charged`, `credited` and `spent` (charged less credited) are the service's transactions: the
   * ledger. `totalPrice` is the service's price of the order, charged or not (a draft has one too).
   */
  cost: {
    volume: number;
    totalPrice: number;
    costPerPiece: number;
    charged: number;
    credited: number;
    spent: number;
  };
  /** Recipients dropped at upload, from the stack's state; undefined for an order given by id. */
  drops: DropReport | undefined;
}

export interface ReportData {
  title: string;
  /** Where the orders came from, for the page's header. */
  source: string;
  service: string;
  generatedAt: string;
  orders: ReportOrder[];
  notes: string[];
}

/** One dataset of a chart: one order, or one measure. */
export interface ChartSeries {
  label: string;
  data: number[];
  /** Drawn as a line over the bars, against the right-hand axis. */
  line?: boolean;
}

export interface ChartModel {
  id: "funnel" | "scans" | "cost" | "drops";
  title: string;
  /** One sentence on what the chart shows and where its figures come from. */
  caption: string;
  horizontal: boolean;
  stacked: boolean;
  labels: string[];
  series: ChartSeries[];
  /** Axis titles: the bars' axis and, when a series is a line, the right-hand one. */
  axis: string;
  lineAxis?: string;
  money: boolean;
  /** The figures as a table: column headings, then rows of cells. */
  table: { head: string[]; rows: (string | number)[][] };
  /** Set when there is nothing to draw (no scans yet, no drops). */
  empty: string | undefined;
}

/** The report's headline figures. */
export interface Summary {
  orders: number;
  /** Pieces of the paid orders: a draft's recipients are not printed. */
  printed: number;
  /** The draft orders, listed apart: nothing of theirs is printed or charged. */
  drafts: { name: string; orderId: number }[];
  delivered: number;
  undeliverable: number;
  scans: number;
  scanningRecipients: number;
  /** What the service's transactions charged, less their credits, over every order. */
  spent: number;
}

const FUNNEL_STAGES: {
  label: string;
  now: (d: DeliveryCounts) => number;
  reached: (d: DeliveryCounts) => number;
}[] = [
  {
    label: "Printed",
    now: (d) => d.totalCards - handedToCarrier(d),
    reached: (d) => d.totalCards,
  },
  {
    label: "Handed to the carrier",
    now: (d) => d.waitingUSPS,
    reached: handedToCarrier,
  },
  {
    label: "Mailed",
    now: (d) => d.mailed,
    reached: (d) => d.mailed + d.inTransit + d.localFacility + d.delivered + d.undeliverable,
  },
  {
    label: "In transit",
    now: (d) => d.inTransit,
    reached: (d) => d.inTransit + d.localFacility + d.delivered + d.undeliverable,
  },
  {
    label: "At the local facility",
    now: (d) => d.localFacility,
    reached: (d) => d.localFacility + d.delivered,
  },
  { label: "Delivered", now: (d) => d.delivered, reached: (d) => d.delivered },
  { label: "Undeliverable", now: (d) => d.undeliverable, reached: (d) => d.undeliverable },
];

/** The label of the carrier's returns among the drop reasons. */
export const CARRIER_RETURNS = "Undeliverable (returned by the carrier)";

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The orders that have figures (the others are listed in the page with the service's reason). */
export function reported(data: ReportData): ReportOrder[] {
  return data.orders.filter((o) => o.error === undefined);
}

/** The orders past payment: only their pieces are printed, mailed and scanned. */
export function paid(data: ReportData): ReportOrder[] {
  return reported(data).filter((o) => o.stage === "paid");
}

export function summaryOf(data: ReportData): Summary {
  const orders = paid(data);
  return {
    orders: reported(data).length,
    printed: sum(orders.map((o) => o.delivery.totalCards)),
    drafts: reported(data)
      .filter((o) => o.stage === "draft")
      .map((o) => ({ name: o.name, orderId: o.orderId })),
    delivered: sum(orders.map((o) => o.delivery.delivered)),
    undeliverable: sum(orders.map((o) => o.delivery.undeliverable)),
    scans: sum(orders.map((o) => o.scans.total)),
    scanningRecipients: sum(orders.map((o) => o.scans.recipients.filter((r) => r.scans > 0).length)),
    spent: sumCents(reported(data).map((o) => o.cost.spent)),
  };
}

/** Delivery, scans and cost are the paid orders'; drops at upload are every order's. */
export function chartsOf(data: ReportData): ChartModel[] {
  const orders = paid(data);
  return [funnelChart(orders), scansChart(orders), costChart(orders), dropsChart(reported(data))];
}

/** Each piece counts at every stage up to its current status (the service gives the current one). */
function funnelChart(orders: ReportOrder[]): ChartModel {
  const names = orders.map((o) => o.name);
  return {
    id: "funnel",
    title: "Delivery funnel",
    caption:
      "Mail pieces that reached each stage, from the service's delivery counts: a piece counts at every " +
      "stage up to its current delivery status.",
    horizontal: true,
    stacked: true,
    labels: FUNNEL_STAGES.map((s) => s.label),
    series: orders.map((o) => ({ label: o.name, data: FUNNEL_STAGES.map((s) => s.reached(o.delivery)) })),
    axis: "mail pieces",
    money: false,
    table: {
      head: ["Stage", ...names.map((n) => `${n}: reached`), "Total reached", "Now at this stage"],
      rows: FUNNEL_STAGES.map((s) => {
        const reached = orders.map((o) => s.reached(o.delivery));
        return [s.label, ...reached, sum(reached), sum(orders.map((o) => s.now(o.delivery)))];
      }),
    },
    empty: sum(orders.map((o) => o.delivery.totalCards)) === 0 ? "No piece has been printed yet." : undefined,
  };
}

/**
 * Scans by day. The service tells each recipient's scan count and the time of its last scan only,
 * so a recipient's scans are counted on the day of its last one.
 */
function scansChart(orders: ReportOrder[]): ChartModel {
  const byDay = new Map<string, number[]>();
  for (const [i, o] of orders.entries()) {
    for (const r of o.scans.recipients) {
      if (r.lastScan === null || r.scans <= 0) continue;
      const day = r.lastScan.slice(0, 10);
      const counts = byDay.get(day) ?? orders.map(() => 0);
      counts[i] = (counts[i] ?? 0) + r.scans;
      byDay.set(day, counts);
    }
  }
  const days = daysBetween([...byDay.keys()].sort());
  const perOrder = orders.map((_, i) => days.map((day) => byDay.get(day)?.[i] ?? 0));
  const totals = days.map((_, d) => sum(perOrder.map((counts) => counts[d] ?? 0)));
  let running = 0;
  const cumulative = totals.map((n) => (running += n));
  return {
    id: "scans",
    title: "QR scans over time",
    caption:
      "QR code scans per day, and the running total. The service gives each recipient's scan count and " +
      "the time of its last scan, so a recipient's scans are counted on the day of its last scan.",
    horizontal: false,
    stacked: true,
    labels: days,
    series: [
      ...orders.map((o, i) => ({ label: o.name, data: perOrder[i] ?? [] })),
      { label: "Total so far", data: cumulative, line: true },
    ],
    axis: "scans that day",
    lineAxis: "scans so far",
    money: false,
    table: {
      head: ["Day", ...orders.map((o) => o.name), "Total", "Total so far"],
      rows: days.map((day, d) => [
        day,
        ...perOrder.map((counts) => counts[d] ?? 0),
        totals[d] ?? 0,
        cumulative[d] ?? 0,
      ]),
    },
    empty: days.length === 0 ? "No QR code has been scanned yet." : undefined,
  };
}

/** Every day from the first to the last (a gap is a day without scans); beyond a year, only days with scans. */
function daysBetween(sorted: string[]): string[] {
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined) return [];
  const DAY = 86_400_000;
  const span = (Date.parse(last) - Date.parse(first)) / DAY;
  if (!(span <= 366)) return sorted;
  return Array.from({ length: span + 1 }, (_, i) =>
    new Date(Date.parse(first) + i * DAY).toISOString().slice(0, 10),
  );
}

function costChart(orders: ReportOrder[]): ChartModel {
  const perDelivered = (o: ReportOrder) =>
    o.delivery.delivered > 0 ? usd(roundCents(o.cost.spent / o.delivery.delivered)) : "—";
  return {
    id: "cost",
    title: "Cost per order and per recipient",
    caption:
      "What each paid order cost, the service's charges less its credits (its transactions), and its price " +
      "per recipient (mail piece); amounts in USD.",
    horizontal: false,
    stacked: false,
    labels: orders.map((o) => o.name),
    series: [
      { label: "Total (USD)", data: orders.map((o) => o.cost.spent) },
      { label: "Per recipient (USD)", data: orders.map((o) => roundCents(o.cost.costPerPiece)), line: true },
    ],
    axis: "total, USD",
    lineAxis: "per recipient, USD",
    money: true,
    table: {
      head: ["Order", "Pieces", "Total", "Per recipient", "Per delivered piece", "Charged", "Credited"],
      rows: orders.map((o) => [
        o.name,
        o.cost.volume,
        usd(o.cost.spent),
        usd(o.cost.costPerPiece),
        perDelivered(o),
        usd(o.cost.charged),
        usd(o.cost.credited),
      ]),
    },
    empty: orders.every((o) => o.cost.spent === 0) ? "Nothing has been paid yet." : undefined,
  };
}

/** Reasons by their code (`DO_NOT_MAIL: ...` → `DO_NOT_MAIL`), then the carrier's returns. */
function dropsChart(orders: ReportOrder[]): ChartModel {
  const counts = new Map<string, number[]>();
  const add = (reason: string, i: number, n: number) => {
    if (n <= 0) return;
    const row = counts.get(reason) ?? orders.map(() => 0);
    row[i] = (row[i] ?? 0) + n;
    counts.set(reason, row);
  };
  for (const [i, o] of orders.entries())
    for (const r of o.drops?.reasons ?? []) add(reasonCode(r.reason), i, r.count);
  const upload = [...counts.entries()].sort((a, b) => sum(b[1]) - sum(a[1]) || (a[0] < b[0] ? -1 : 1));
  for (const [i, o] of orders.entries()) add(CARRIER_RETURNS, i, o.delivery.undeliverable);
  const carrier = counts.get(CARRIER_RETURNS);
  const rows: [string, number[]][] = [
    ...upload,
    ...(carrier ? [[CARRIER_RETURNS, carrier] as [string, number[]]] : []),
  ];
  const unknown = orders.filter((o) => o.drops === undefined).map((o) => o.name);
  return {
    id: "drops",
    title: "Dropped recipients by reason",
    caption:
      "Recipients the service dropped when they were uploaded (from the stack's state), by reason, and " +
      "pieces the carrier returned as undeliverable (from the delivery counts)." +
      (unknown.length > 0
        ? ` Drops at upload are not known for ${unknown.join(", ")}: only a stack's state records them.`
        : ""),
    horizontal: true,
    stacked: true,
    labels: rows.map(([reason]) => reason),
    series: orders.map((o, i) => ({ label: o.name, data: rows.map(([, row]) => row[i] ?? 0) })),
    axis: "recipients",
    money: false,
    table: {
      head: ["Reason", ...orders.map((o) => o.name), "Total"],
      rows: rows.map(([reason, row]) => [reason, ...row, sum(row)]),
    },
    empty: rows.length === 0 ? "No recipient has been dropped." : undefined,
  };
}

// ------------------------------------------------------------------ from the service's answers

/** An order's figures from its analytics and transactions entries. */
export function reportOrder(
  orderId: number,
  campaign: string | undefined,
  analytics: OrderAnalyticsEntry | undefined,
  transactions: OrderTransactionEntry | undefined,
  drops: DropReport | undefined,
): ReportOrder {
  const failed = [analytics, transactions].find((e) => e !== undefined && e.status !== "Success");
  const error = failed?.status ?? (analytics === undefined ? "no answer from the service" : undefined);
  const orderStatus = analytics?.orderStatus ?? transactions?.orderStatus ?? null;
  return {
    orderId,
    name: campaign ?? analytics?.campaignName ?? `order ${orderId}`,
    error,
    orderStatus,
    // An unknown status counts as paid, the reading of the provider: the ledger says what it cost.
    stage: isEditable(orderStatus ?? undefined)
      ? "draft"
      : isSettling(orderStatus ?? undefined)
        ? "paying"
        : "paid",
    paidDate: analytics?.paidDate ?? null,
    delivery: deliveryCountsOf(analytics),
    scans: {
      total: analytics?.qrCode?.totalScans ?? 0,
      recipients: (analytics?.qrCode?.recipients ?? []).map((r) => ({
        id: r.id,
        // Typed as a string by the service; a value that is not a count counts as none.
        scans: /^\d+$/.test(r.totalScans) ? Number(r.totalScans) : 0,
        lastScan: r.lastScan,
      })),
    },
    cost: {
      volume: transactions?.volume ?? 0,
      totalPrice: transactions?.totalPrice ?? 0,
      costPerPiece: transactions?.costPerPiece ?? 0,
      ...chargesOf(transactions),
    },
    drops,
  };
}
