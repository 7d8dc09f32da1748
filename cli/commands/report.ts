import * as path from "node:path";
import { Argument, type Command, InvalidArgumentError } from "commander";
import { usd } from "../../provider/money";
import { shown } from "../../provider/text";
import { say } from "../output";
import { reported, type Summary, summaryOf } from "../report/model";
import { runReport } from "../report/run-report";
import { shownPath } from "../stack/shown-path";

interface ReportCommandOptions {
  cwd?: string;
  stack?: string;
  order: number[];
  out?: string;
}

/** An order id of --order or of the arguments: a whole number above zero. */
function orderId(value: string, previous: number[] = []): number[] {
  // At most 15 digits: every such number is exact in JavaScript.
  if (!/^[1-9]\d{0,14}$/.test(value)) {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    throw new InvalidArgumentError(`"${shown}" is not an order id (a whole number such as 123)`);
  }
  previous.push(Number(value));
  return previous;
}

/**
 * `directmail report`: one HTML file with charts of how the orders went (delivery, QR scans, cost,
 * drops), for a stack's orders or the orders given by id. See docs/report.md.
 */
export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description(
      "Write one self-contained HTML file with charts of how the orders went: the delivery funnel, " +
        "QR scans over time, the cost per order and per recipient, and dropped recipients by reason. " +
        "The orders are the stack's, or those given by id.",
    )
    .addArgument(new Argument("[orders...]", "order ids (instead of a stack's orders)").argParser(orderId))
    .option("--order <id>", "an order id; repeat for more (instead of a stack's orders)", orderId, [])
    .option("--cwd <dir>", "the Pulumi project folder (default: the working directory)")
    .option("--stack <name>", "the stack (default: the selected stack)")
    .option(
      "--out <file>",
      "the HTML file to write (default: directmail-report-<stack>.html, or directmail-report.html for order ids)",
    )
    .action(async (args: number[] | undefined, options: ReportCommandOptions) => {
      const orders = [...(args ?? []), ...options.order];
      const { data, file, bytes } = await runReport({
        cwd: path.resolve(options.cwd ?? "."),
        orders,
        ...(options.stack !== undefined ? { stack: options.stack } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
      });
      const s = summaryOf(data);
      const missing = data.orders.length - reported(data).length;
      say(
        [
          `wrote ${shownPath(file)} (${Math.round(bytes / 1024)} kB): ${data.source}`,
          `${s.printed} pieces printed, ${s.delivered} delivered, ${s.undeliverable} undeliverable, ` +
            `${s.scans} QR scans, ${usd(s.spent)} spent`,
          ...(s.drafts.length > 0 ? [draftsLine(s.drafts)] : []),
          ...(missing > 0 ? data.notes : []),
        ].join("\n"),
      );
    });
}

/** The drafts, apart from the figures: nothing of theirs is printed or charged. */
function draftsLine(drafts: Summary["drafts"]): string {
  const names = drafts.map((d) => `${shown(d.name)} (order ${d.orderId})`).join(", ");
  return `${drafts.length} draft order${drafts.length === 1 ? "" : "s"}, not printed and not charged: ${names}`;
}
