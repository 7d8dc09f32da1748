/**
 * The report as one HTML file that works offline: the charting library (Chart.js) and the figures
 * are inlined, every text of the service or the stack is escaped, and each chart is followed by the
 * table of its figures. Pure: the library's source is passed in (run-report.ts reads it).
 */
import { usd } from "../../provider/money";
import { oneLine } from "../../provider/text";
import { type ChartModel, chartsOf, type ReportData, type ReportOrder, reported, summaryOf } from "./model";

/** Tableau 10: distinct, colour-blind-safe hues, one per order. */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#e15759",
  "#76b7b2",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

/** The funnel's stages when one order fills it: blues on the way, green delivered, red returned. */
const STAGE_COLOURS = ["#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#59a14f", "#e15759"];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for HTML content and attribute values: markup escaped, control characters and line breaks shown as escapes (oneLine). */
export function escapeHtml(text: string | number): string {
  return oneLine(String(text)).replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/**
 * JSON inside a <script> element: no `<` (so no `</script>`), and no line separators JavaScript
 * rejects. Its texts are the charts' labels: their control characters are shown as escapes too.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? oneLine(v) : v))
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function renderHtml(data: ReportData, chartLibrary: string): string {
  if (/<\/script|<!--/i.test(chartLibrary)) {
    throw new Error("the charting library's source cannot be inlined: it contains </script or <!--");
  }
  const charts = chartsOf(data);
  const s = summaryOf(data);
  const percent = (n: number) => (s.printed > 0 ? ` (${Math.round((n / s.printed) * 100)}%)` : "");
  const cards: [string, string][] = [
    ["Orders", String(s.orders)],
    ["Pieces printed", String(s.printed)],
    ["Delivered", `${s.delivered}${percent(s.delivered)}`],
    ["Undeliverable", `${s.undeliverable}${percent(s.undeliverable)}`],
    [
      `QR scans, by ${s.scanningRecipients} recipient${s.scanningRecipients === 1 ? "" : "s"}`,
      String(s.scans),
    ],
    ["Spent", usd(s.spent)],
    ["Draft orders, not printed", String(s.drafts.length)],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(data.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(data.title)}</h1>
<p class="meta">${escapeHtml(data.source)} · service ${escapeHtml(data.service)} · generated ${escapeHtml(data.generatedAt)}</p>
</header>
<main>
<section class="cards" aria-label="Summary">
${cards.map(([label, value]) => `<div class="card"><div class="value">${escapeHtml(value)}</div><div class="label">${escapeHtml(label)}</div></div>`).join("\n")}
</section>
<div class="charts">
${charts.map(chartSection).join("\n")}
</div>
${ordersSection(data)}
${data.notes.length > 0 ? `<section class="notes"><h2>Notes</h2><ul>${data.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul></section>` : ""}
</main>
<script>${chartLibrary}</script>
<script type="application/json" id="report-data">${scriptJson({ charts, palette: PALETTE, stages: STAGE_COLOURS })}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

function chartSection(chart: ChartModel): string {
  const figure =
    chart.empty !== undefined
      ? `<p class="empty">${escapeHtml(chart.empty)}</p>`
      : `<div class="plot"><canvas id="chart-${chart.id}" role="img" aria-label="${escapeHtml(chart.title)}: the figures are in the table below"></canvas></div>`;
  return `<section class="chart" id="${chart.id}" data-chart="${chart.id}">
<h2>${escapeHtml(chart.title)}</h2>
<p class="caption">${escapeHtml(chart.caption)}</p>
${figure}
${table(chart.table.head, chart.table.rows, `figures-${chart.id}`, `Figures of “${chart.title}”`)}
</section>`;
}

function table(head: string[], rows: (string | number)[][], id: string, caption: string): string {
  const cell = (value: string | number, i: number) =>
    i === 0 ? `<th scope="row">${escapeHtml(value)}</th>` : `<td>${escapeHtml(value)}</td>`;
  return `<details class="figures"${rows.length <= 12 ? " open" : ""}><summary>${escapeHtml(caption)}</summary>
<table id="${id}">
<thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join("")}</tr></thead>
<tbody>
${rows.map((row) => `<tr>${row.map(cell).join("")}</tr>`).join("\n")}
</tbody>
</table>
</details>`;
}

/** The orders, and apart from them the drafts, which are neither printed nor charged. */
function ordersSection(data: ReportData): string {
  const shown = new Set(reported(data));
  const isDraft = (o: ReportOrder) => shown.has(o) && o.stage === "draft";
  const rows = data.orders
    .filter((o) => !isDraft(o))
    .map((o) => [
      o.name,
      o.orderId,
      shown.has(o) ? (o.orderStatus ?? "—") : `not reported: ${o.error}`,
      o.paidDate ?? "—",
    ]);
  const drafts = data.orders.filter(isDraft).map((o) => [o.name, o.orderId, o.orderStatus ?? "—"]);
  const orders = `<section class="orders"><h2>Orders</h2>${table(["Order", "Id", "Status", "Paid"], rows, "orders-table", "The orders of this report")}</section>`;
  if (drafts.length === 0) return orders;
  return `${orders}
<section class="orders"><h2>Drafts</h2><p class="caption">Not paid: nothing of theirs is printed or charged, and the figures above leave them out.</p>${table(["Order", "Id", "Status"], drafts, "drafts-table", "The draft orders")}</section>`;
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --accent: #4e79a7; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f5f7fa; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 20px 32px; }
h1 { margin: 0 0 4px; font-size: 24px; }
h2 { margin: 0 0 4px; font-size: 18px; }
.meta, .caption { color: var(--muted); margin: 0; font-size: 13px; }
main { padding: 20px 32px 40px; max-width: 1400px; margin: 0 auto; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; margin-bottom: 20px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card .value { font-size: 22px; font-weight: 600; color: var(--accent); }
.card .label { color: var(--muted); font-size: 13px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 20px; }
section.chart, section.orders, section.notes { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; }
section.orders, section.notes { margin-top: 20px; }
.plot { position: relative; height: 300px; margin: 12px 0; }
details.figures { overflow-x: auto; }
/* Room for a day or a short name on one line; longer names wrap. */
tbody th { min-width: 6.5em; }
.empty { color: var(--muted); font-style: italic; margin: 24px 0; }
details.figures summary { cursor: pointer; color: var(--muted); font-size: 13px; margin: 4px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: right; }
th:first-child, td:first-child, thead th:first-child { text-align: left; }
thead th { color: var(--muted); font-weight: 600; }
`;

/** Draws each chart from the figures in #report-data; the charts stay reachable as Chart.getChart(canvas). */
const PAGE_SCRIPT = `
(function () {
  var report = JSON.parse(document.getElementById("report-data").textContent);
  var palette = report.palette;
  report.charts.forEach(function (c) {
    var canvas = document.getElementById("chart-" + c.id);
    if (!canvas) return;
    var value = c.horizontal ? "x" : "y";
    var category = c.horizontal ? "y" : "x";
    var hasLine = c.series.some(function (s) { return s.line; });
    var datasets = c.series.map(function (s, i) {
      if (s.line) {
        return { type: "line", label: s.label, data: s.data, yAxisID: "y1", order: 0,
          borderColor: "#1f2933", backgroundColor: "#1f2933", pointRadius: 4, tension: 0 };
      }
      var colour = c.id === "cost" ? palette[0] : palette[i % palette.length];
      // One order in the funnel: each stage its own colour, so delivered and returned stand out.
      if (c.id === "funnel" && c.series.length === 1) colour = report.stages;
      return { label: s.label, data: s.data, backgroundColor: colour, borderRadius: 3, maxBarThickness: 56, order: 1 };
    });
    var tick = c.money ? function (v) { return v.toFixed(2); } : undefined;
    var scales = {};
    scales[value] = { beginAtZero: true, stacked: c.stacked, title: { display: true, text: c.axis },
      ticks: tick ? { callback: tick } : { precision: 0 } };
    scales[category] = { stacked: c.stacked, grid: { display: false } };
    if (hasLine) {
      scales.y1 = { position: "right", beginAtZero: true, grid: { drawOnChartArea: false },
        title: { display: true, text: c.lineAxis }, ticks: tick ? { callback: tick } : { precision: 0 } };
    }
    new Chart(canvas, {
      type: "bar",
      data: { labels: c.labels, datasets: datasets },
      options: {
        indexAxis: c.horizontal ? "y" : "x",
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: scales,
        plugins: { legend: { display: c.series.length > 1, position: "bottom" } }
      }
    });
  });
  document.body.setAttribute("data-charts-ready", "true");
})();
`;
