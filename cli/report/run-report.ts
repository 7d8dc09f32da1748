/**
 * `directmail report`: one self-contained HTML file on how a stack's orders (or the orders given
 * by id) went: delivery, QR scans, cost and drops, each as a chart with the table of its figures.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { oneLine } from "../../provider/text";
import {
  findProject,
  type ServiceSettings,
  selectStack,
  serviceSettings,
  settingsOfStack,
  withClient,
} from "../stack/settings";
import { gatherOrders, type OrderRef, ordersOfStack } from "./gather";
import { renderHtml } from "./html";
import type { ReportData } from "./model";

export interface ReportOptions {
  /** The Pulumi project folder, or a folder inside it. */
  cwd: string;
  /** The stack (default the selected one); ignored when order ids are given. */
  stack?: string;
  /** Order ids to report on instead of a stack's orders. */
  orders: number[];
  /** The HTML file to write (default directmail-report-<stack>.html, or directmail-report.html). */
  out?: string;
  /** The time the page says it was made (default now). */
  now?: Date;
}

export interface ReportOutcome {
  data: ReportData;
  file: string;
  bytes: number;
}

export async function runReport(options: ReportOptions): Promise<ReportOutcome> {
  let settings: ServiceSettings;
  let refs: OrderRef[];
  let title: string;
  let source: string;
  let defaultFile = "directmail-report.html";
  if (options.orders.length > 0) {
    settings = await serviceSettings({
      cwd: options.cwd,
      ...(options.stack !== undefined ? { stack: options.stack } : {}),
    });
    refs = [...new Set(options.orders)].map((orderId) => ({
      orderId,
      campaign: undefined,
      drops: undefined,
    }));
    title = "Direct-mail report";
    source = `order${refs.length === 1 ? "" : "s"} ${refs.map((r) => r.orderId).join(", ")}`;
  } else {
    const root = findProject(options.cwd);
    if (root === undefined) {
      throw new Error(
        `directmail report needs a Pulumi project (no Pulumi.yaml in ${options.cwd} or above) or order ids (--order 123)`,
      );
    }
    const selection = await selectStack(root, options.stack);
    if (selection === undefined) {
      throw new Error(
        `no stack is selected in the Pulumi project ${root}: run \`pulumi stack select\`, give --stack, or give order ids`,
      );
    }
    settings = await settingsOfStack(selection);
    refs = await ordersOfStack(selection);
    if (refs.length === 0) {
      throw new Error(
        `stack "${selection.stackName}" has no deployed order: run \`pulumi up\` first, or give order ids (--order 123)`,
      );
    }
    const project = selection.pulumi.name();
    title = `Direct-mail report: ${project}/${selection.stackName}`;
    source = `stack ${selection.stackName} of project ${project}, ${refs.length} order${refs.length === 1 ? "" : "s"}`;
    defaultFile = `directmail-report-${selection.stackName.replace(/[^\w.-]+/g, "-")}.html`;
  }

  const data = await withClient(settings, async (client): Promise<ReportData> => {
    const orders = await gatherOrders(client, refs);
    const notes = orders
      .filter((o) => o.error !== undefined)
      .map(
        (o) =>
          `The service reports nothing on order ${o.orderId} (${oneLine(o.name)}): ${oneLine(o.error ?? "")}.`,
      );
    return {
      title,
      source,
      service: settings.baseUrl,
      generatedAt: (options.now ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z"),
      orders,
      notes,
    };
  });
  const html = renderHtml(data, await chartLibrary());
  const file = path.resolve(options.out ?? defaultFile);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, html);
  return { data, file, bytes: Buffer.byteLength(html) };
}

/**
 * Chart.js's minified browser bundle, read from the installed dependency: the package does not
 * copy it, and the page inlines it so that it works offline.
 */
export async function chartLibrary(): Promise<string> {
  // The package's exports do not list its dist files: they are found beside its CommonJS entry.
  let bundle = "chart.js/dist/chart.umd.min.js";
  try {
    bundle = path.join(path.dirname(require.resolve("chart.js")), "chart.umd.min.js");
    return await fs.readFile(bundle, "utf8");
  } catch (error) {
    throw new Error(
      `cannot read Chart.js's browser bundle (${bundle}): ${(error as Error).message}; ` +
        "reinstall the project's packages (npm install)",
    );
  }
}
