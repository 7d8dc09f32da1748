/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `directmail report` as a user runs it, looked at in a real browser: a stack deployed to the
 * sandbox with the real pulumi CLI pays for one campaign; a second order, whose template is named
 * like an attack, is made and paid with the client. The sandbox clock moves on so that mail is
 * printed, carried and delivered, and QR scans come in on three days. The built CLI writes the
 * report for the stack and for the two orders by id; headless Chromium (Debian's) opens each file
 * offline, and every chart must be drawn with the figures the sandbox holds (its analytics, its
 * ledger) and the drops the upload reported. Screenshots are kept in test-results/.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import type { OrderAnalyticsEntry } from "../../provider/api/schemas";
import { ensureChromium, launchChromium } from "../support/chromium";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn } from "./support/commands";
import { upOnce } from "./support/one-command";
import { createTestStack, type TestStack } from "./support/pulumi";

const RESULTS = path.resolve(__dirname, "../../test-results");
const HOSTILE = "<script>alert(1)</script>";
const DAY = 86_400;

const CAMPAIGN = [
  "apiVersion: directmail/v1",
  "kind: Campaign",
  "metadata:",
  "  name: spring",
  "spec:",
  "  order:",
  "    templateId: TEMPLATE",
  "  recipients:",
  "    inline:",
  '      - { firstName: Grace, lastName: Hopper, address1: 1 Compiler Way, city: Arlington, state: VA, zipCode: "22202" }',
  '      - { firstName: Alan, lastName: Turing, address1: 7 Enigma Road, city: Portland, state: OR, zipCode: "97205" }',
  // A multi-unit building without a unit: accepted, and returned by the carrier.
  '      - { firstName: Katherine, lastName: Johnson, address1: 3 Orbit Towers, city: Madison, state: WI, zipCode: "53703" }',
  // On the do-not-mail list: dropped at upload.
  '      - { firstName: Ada, lastName: Lovelace, address1: 12 Analytical St, city: Springfield, state: IL, zipCode: "62701" }',
  // No house number: dropped at upload.
  '      - { firstName: Edsger, lastName: Dijkstra, address1: Shortest Path Lane, city: Austin, state: TX, zipCode: "78701" }',
  "  checkout:",
  "    postageType: Standard",
  "    productionSpeed: Normal",
  "",
].join("\n");

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
let env: Record<string, string>;
let browser: Browser;
let springId: number;
let hostileId: number;
/** Each QR scan's day (when the sandbox applied it), by order and recipient. */
const scanDays: { order: number; recipient: number; count: number; day: string }[] = [];

const directmail = (
  args: string[],
  where: { cwd: string; env: NodeJS.ProcessEnv } = { cwd: t.workDir, env },
) => directmailIn(where, ...args);

/** Records a scan and lets the sandbox apply it; its day is the one the service will report. */
async function scan(order: number, recipient: number, count: number): Promise<void> {
  const { now } = await sb.control.clock();
  await client.recordQrScan({
    orderId: order,
    statisticName: 1,
    statisticValue: String(count),
    orderRecipientId: recipient,
  });
  await sb.control.advanceClock(2);
  const applied = (await client.getAnalytics([order])).orders[0]?.qrCode?.recipients.find(
    (r) => r.id === recipient,
  );
  expect(applied?.lastScan?.slice(0, 10)).toBe(now.slice(0, 10));
  scanDays.push({ order, recipient, count, day: (applied?.lastScan ?? "").slice(0, 10) });
}

async function recipientIds(order: number): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for await (const r of client.iterateRecipients(order)) ids.set(r.personal.firstName ?? "", r.id);
  return ids;
}

beforeAll(async () => {
  ensureChromium();
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "report@example.com", balance: 100 }));
  const { id: templateId } = await sb.control.createTemplate({
    apiKey,
    name: "Spring postcard",
    hasQr: true,
  });
  const { id: hostileTemplate } = await sb.control.createTemplate({ apiKey, name: HOSTILE, hasQr: true });
  await sb.control.addDoNotMail({
    apiKey,
    address1: "12 Analytical St",
    city: "Springfield",
    state: "IL",
    zip: "62701",
  });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("report", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  // The environment names another service: the stack's configuration must win.
  env = { ...t.env, DIRECTMAIL_BASE_URL: "http://127.0.0.1:9", DIRECTMAIL_API_KEY: "not-this-key" };
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  fs.writeFileSync(
    path.join(t.workDir, "campaigns/spring.yaml"),
    CAMPAIGN.replace("TEMPLATE", String(templateId)),
  );
  const up = await upOnce(t);
  springId = up.outputs.spring?.value.orderId;
  const spring = await recipientIds(springId);

  // Day 4: spring's mail is on its way; Grace scans three times.
  await sb.control.advanceClock(4 * DAY);
  await scan(springId, spring.get("Grace") as number, 3);
  // Day 5: a second order, paid with the client; Alan scans once.
  await sb.control.advanceClock(DAY);
  ({ orderId: hostileId } = await client.createOrder({ templateId: hostileTemplate }));
  await client.appendRecipients(hostileId, [
    newOrderRecipient({
      personal: { firstName: "Hedy", lastName: "Lamarr" },
      address: { address1: "5 Frequency Way", city: "Boulder", state: "CO", zipCode: "80302" },
    }),
    newOrderRecipient({
      personal: { firstName: "Barbara", lastName: "Liskov" },
      address: { address1: "4 Substitution Sq", city: "Cambridge", state: "MA", zipCode: "02139" },
    }),
  ]);
  await client.checkout(hostileId, { postageType: "Standard", productionSpeed: "Normal", autoBill: true });
  await sb.control.advanceClock(10);
  // Settled: the order goes to production.
  expect((await client.getOrder(hostileId))?.orderStatus).toBe("Ready For Production");
  await scan(springId, spring.get("Alan") as number, 1);
  // Day 9.5: spring's mail has all arrived or come back; the second order's is in transit.
  await sb.control.advanceClock(4.5 * DAY);
  await scan(springId, spring.get("Alan") as number, 2);
  await scan(hostileId, (await recipientIds(hostileId)).get("Hedy") as number, 1);
  browser = await launchChromium();
  fs.mkdirSync(RESULTS, { recursive: true });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

/** The page's charts as Chart.js holds them, and how many of each canvas's pixels are painted. */
async function chartsOf(page: Page) {
  return page.evaluate(() => {
    const Chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): any } }).Chart;
    return [...document.querySelectorAll("canvas")].map((canvas) => {
      const chart = Chart.getChart(canvas);
      const { width, height } = canvas;
      const pixels = canvas.getContext("2d")?.getImageData(0, 0, width, height).data ?? [];
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) > 0) painted++;
      return {
        id: canvas.id,
        width,
        height,
        painted,
        labels: chart?.data.labels as string[],
        datasets: Object.fromEntries(
          (chart?.data.datasets ?? []).map((d: { label: string; data: number[] }) => [d.label, d.data]),
        ),
      };
    });
  });
}

/** The rows of a figures table, as text. */
async function tableRows(page: Page, id: string): Promise<string[][]> {
  return page.$$eval(`#${id} tr`, (rows) =>
    rows.map((row) => [...row.querySelectorAll("th, td")].map((cell) => cell.textContent ?? "")),
  );
}

/** Opens a report offline (every request but the file itself fails) and waits for its charts. */
async function open(file: string): Promise<{ page: Page; dialogs: string[]; requests: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const requests: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await context.route("**/*", (route) => {
    requests.push(route.request().url());
    return route.request().url().startsWith("file:") ? route.continue() : route.abort();
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("body[data-charts-ready=true]", { timeout: 10_000 });
  expect(errors).toEqual([]);
  return { page, dialogs, requests };
}

/** Each piece counts at every stage it has passed (the service gives its current one). */
function funnel(a: OrderAnalyticsEntry): number[] {
  return [
    a.totalCards,
    a.waitingUSPS + a.mailed + a.inTransit + a.localFacility + a.delivered + a.undeliverable,
    a.mailed + a.inTransit + a.localFacility + a.delivered + a.undeliverable,
    a.inTransit + a.localFacility + a.delivered + a.undeliverable,
    a.localFacility + a.delivered,
    a.delivered,
    a.undeliverable,
  ];
}

/** Every day from the first scan's to the last's. */
function days(): string[] {
  const sorted = scanDays.map((s) => s.day).sort();
  const first = Date.parse(sorted[0] as string);
  const last = Date.parse(sorted[sorted.length - 1] as string);
  return Array.from({ length: (last - first) / (DAY * 1000) + 1 }, (_, i) =>
    new Date(first + i * DAY * 1000).toISOString().slice(0, 10),
  );
}

/** Scans per day of one order: each recipient's all on the day of its last scan. */
function scansPerDay(order: number, labels: string[]): number[] {
  const last = new Map<number, { day: string; count: number }>();
  for (const s of scanDays.filter((x) => x.order === order)) {
    last.set(s.recipient, { day: s.day, count: (last.get(s.recipient)?.count ?? 0) + s.count });
  }
  return labels.map((day) =>
    [...last.values()].filter((r) => r.day === day).reduce((n, r) => n + r.count, 0),
  );
}

async function charged(order: number): Promise<number> {
  const { entries } = await sb.control.ledger(apiKey);
  return entries
    .filter((e) => e.orderId === order && e.kind === "charge" && e.outcome === "succeeded")
    .reduce((n, e) => n + e.amount, 0);
}

describe("directmail report in a browser", { timeout: 120_000 }, () => {
  it("draws a stack's delivery funnel, QR scans over time, cost and drops with the sandbox's figures", async () => {
    const [analytics] = (await client.getAnalytics([springId])).orders as [OrderAnalyticsEntry];
    // Three pieces: the do-not-mail and the invalid address were dropped; all arrived or came back.
    expect(analytics.totalCards).toBe(3);
    expect([analytics.delivered, analytics.undeliverable]).toEqual([2, 1]);
    const total = await charged(springId);
    expect(total).toBeGreaterThan(0);
    const [costs] = (await client.getTransactions([springId])).orders;

    const run = await directmail(["report"]);
    expect(run.stderr).toBe("");
    const file = path.join(t.workDir, "directmail-report-e2e.html");
    const kB = Math.round(fs.statSync(file).size / 1024);
    expect(run.stdout.split("\n")).toEqual([
      `wrote directmail-report-e2e.html (${kB} kB): stack e2e of project directmail-campaigns, 1 order`,
      `3 pieces printed, 2 delivered, 1 undeliverable, 6 QR scans, ${total.toFixed(2)} USD spent`,
      "",
    ]);

    const { page, requests } = await open(file);
    const charts = await chartsOf(page);
    expect(charts.map((c) => c.id)).toEqual(["chart-funnel", "chart-scans", "chart-cost", "chart-drops"]);
    for (const c of charts) {
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(200);
      // Bars, axes and legend: a good share of the canvas is painted.
      expect(c.painted, c.id).toBeGreaterThan(c.width * c.height * 0.02);
    }
    const [funnelChart, scans, cost, drops] = charts as [
      (typeof charts)[0],
      (typeof charts)[0],
      (typeof charts)[0],
      (typeof charts)[0],
    ];
    expect(funnelChart.labels).toEqual([
      "Printed",
      "Handed to the carrier",
      "Mailed",
      "In transit",
      "At the local facility",
      "Delivered",
      "Undeliverable",
    ]);
    expect(funnelChart.datasets).toEqual({ spring: funnel(analytics) });
    expect(funnel(analytics)).toEqual([3, 3, 3, 3, 2, 2, 1]);

    const labels = days();
    expect(labels.length).toBeGreaterThanOrEqual(5);
    expect(scans.labels).toEqual(labels);
    const perDay = scansPerDay(springId, labels);
    expect(perDay.reduce((a, b) => a + b, 0)).toBe(6);
    expect(scans.datasets).toEqual({
      spring: perDay,
      "Total so far": perDay.map((_, i) => perDay.slice(0, i + 1).reduce((a, b) => a + b, 0)),
    });

    expect(cost.labels).toEqual(["spring"]);
    expect(cost.datasets).toEqual({
      "Total (USD)": [Math.round(total * 100) / 100],
      "Per recipient (USD)": [costs?.costPerPiece],
    });

    expect(drops.labels).toEqual([
      "ADDRESS_NOT_VALID",
      "DO_NOT_MAIL",
      "Undeliverable (returned by the carrier)",
    ]);
    expect(drops.datasets).toEqual({ spring: [1, 1, 1] });

    // The same figures in text, under each chart.
    expect(await tableRows(page, "figures-drops")).toEqual([
      ["Reason", "spring", "Total"],
      ["ADDRESS_NOT_VALID", "1", "1"],
      ["DO_NOT_MAIL", "1", "1"],
      ["Undeliverable (returned by the carrier)", "1", "1"],
    ]);
    expect((await tableRows(page, "figures-funnel"))[6]).toEqual(["Delivered", "2", "2", "2"]);
    expect(requests.every((url) => url.startsWith("file:"))).toBe(true);
    await page.screenshot({ path: path.join(RESULTS, "report.png"), fullPage: true });
    await page.context().close();
  });

  it("reports orders given by id, escaping the service's texts: an order named like a script stays text", async () => {
    const answers = (await client.getAnalytics([hostileId, springId])).orders as OrderAnalyticsEntry[];
    expect(answers.map((a) => a.campaignName)).toEqual([HOSTILE, "Spring postcard"]);
    const hostile = answers[0] as OrderAnalyticsEntry;
    // Printed and in transit, not yet delivered.
    expect([hostile.totalCards, hostile.inTransit]).toEqual([2, 2]);

    const run = await directmail([
      "report",
      String(hostileId),
      "--order",
      String(springId),
      "--out",
      "out/orders.html",
    ]);
    expect(run.stderr).toBe("");
    const file = path.join(t.workDir, "out/orders.html");
    expect(run.stdout.split("\n")[0]).toBe(
      `wrote out/orders.html (${Math.round(fs.statSync(file).size / 1024)} kB): orders ${hostileId}, ${springId}`,
    );
    const html = fs.readFileSync(file, "utf8");
    expect(html).not.toContain(HOSTILE);

    const { page, dialogs } = await open(file);
    const charts = await chartsOf(page);
    expect(charts.map((c) => c.id)).toEqual(["chart-funnel", "chart-scans", "chart-cost", "chart-drops"]);
    const names = [HOSTILE, "Spring postcard"];
    expect(charts[0]?.datasets).toEqual(Object.fromEntries(answers.map((a, i) => [names[i], funnel(a)])));
    const labels = days();
    expect(charts[1]?.datasets).toEqual({
      [HOSTILE]: scansPerDay(hostileId, labels),
      "Spring postcard": scansPerDay(springId, labels),
      "Total so far": labels.map(
        (_, i) =>
          scansPerDay(hostileId, labels.slice(0, i + 1)).reduce((a, b) => a + b, 0) +
          scansPerDay(springId, labels.slice(0, i + 1)).reduce((a, b) => a + b, 0),
      ),
    });
    expect(charts[2]?.datasets["Total (USD)"]).toEqual([
      Math.round((await charged(hostileId)) * 100) / 100,
      Math.round((await charged(springId)) * 100) / 100,
    ]);
    // Without the stack's state, only the carrier's returns are known.
    expect(charts[3]?.labels).toEqual(["Undeliverable (returned by the carrier)"]);
    expect(charts[3]?.datasets).toEqual({ [HOSTILE]: [0], "Spring postcard": [1] });

    // The name is shown as text, and ran nowhere.
    expect(dialogs).toEqual([]);
    expect(await page.locator("script").count()).toBe(3);
    expect((await tableRows(page, "orders-table"))[1]).toEqual([
      HOSTILE,
      String(hostileId),
      hostile.orderStatus,
      hostile.paidDate,
    ]);
    expect(await page.title()).toBe("Direct-mail report");
    await page.screenshot({ path: path.join(RESULTS, "report-orders.png"), fullPage: true });
    await page.context().close();
  });

  it("refuses an order id that is not a whole number, names an order the service does not know, and asks for a stack or ids", async () => {
    const bad = await directmail(["report", "--order", "12x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      `error: option '--order <id>' argument '12x' is invalid. "12x" is not an order id (a whole number such as 123)\n`,
    );
    const positional = await directmail(["report", "7", "abc"]);
    expect(positional.code).toBe(1);
    expect(positional.stderr).toBe(
      `error: command-argument value 'abc' is invalid for argument 'orders'. "abc" is not an order id (a whole number such as 123)\n`,
    );
    // Outside a project the environment names the service; no pulumi command runs.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-report-"));
    const unknown = await directmail(["report", "999999", String(springId)], {
      cwd: outside,
      env: { ...process.env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: apiKey } as Record<
        string,
        string
      >,
    });
    const kB = Math.round(fs.statSync(path.join(outside, "directmail-report.html")).size / 1024);
    // Without order ids it needs a stack, and says so.
    const nothing = await directmail(["report"], {
      cwd: outside,
      env: process.env as Record<string, string>,
    });
    fs.rmSync(outside, { recursive: true, force: true });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toBe(
      `directmail: directmail report needs a Pulumi project (no Pulumi.yaml in ${outside} or above) or order ids (--order 123)\n`,
    );
    expect(unknown.code).toBe(0);
    expect(unknown.stdout.split("\n")).toEqual([
      `wrote directmail-report.html (${kB} kB): orders 999999, ${springId}`,
      `3 pieces printed, 2 delivered, 1 undeliverable, 6 QR scans, ${(await charged(springId)).toFixed(2)} USD spent`,
      "The service reports nothing on order 999999 (order 999999): NotFound.",
      "",
    ]);
  });
});
