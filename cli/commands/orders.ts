/**
 * `directmail orders untracked`: the account's Draft orders that no stack of the project holds, such
 * as the order an interrupted `pulumi up` created whose answer never arrived. The stacks' states are
 * read with `pulumi stack export` (every stack of the project, as `pulumi stack ls` lists them); the
 * account is the selected stack's (or `--stack`'s).
 */
import type { Command } from "commander";
import { ORDER_STATUS } from "../../provider/api/schemas/order";
import { KIND } from "../../provider/campaign/names";
import { howToDelete } from "../../provider/resources/order/interrupted";
import { note, say } from "../output";
import { type StackOptions, withStackOptions } from "../stack/options";
import { pulumiCall, type ServiceSettings, serviceSettings, withClient } from "../stack/settings";
import { deployedResources } from "../stack/state";

export function registerOrdersCommand(program: Command): void {
  const orders = program.command("orders").description("Orders of the account, beside the stacks.");
  withStackOptions(
    orders
      .command("untracked")
      .description(
        "List the account's Draft orders that no stack of the project holds (adopt or delete them).",
      ),
  ).action(async (options: StackOptions) => {
    const settings = await serviceSettings(options);
    const held = await heldByStacks(settings);
    const lines = await withClient(settings, async (client) => {
      const found: string[] = [];
      for await (const order of client.iterateOrders({ status: ORDER_STATUS.draft })) {
        if (held.has(order.orderId)) continue;
        found.push(
          `${order.orderId}  Draft  template ${order.templateId ?? "-"}  ${order.recipientCount} recipients  created ${order.createdDate}`,
        );
      }
      return found;
    });
    say(
      lines.length > 0
        ? `${lines.join("\n")}\nadopt one with \`existingOrderId: <id>\` in a campaign file's order, or ${howToDelete(settings.baseUrl, "<id>")}`
        : "no Draft order outside the project's stacks",
    );
    note(`(${settings.from})`);
  });
}

/** The order ids every stack of the project records (created or adopted). */
async function heldByStacks(settings: ServiceSettings): Promise<Set<number>> {
  const selection = settings.stack;
  if (selection === undefined) {
    throw new Error(
      `run in a Pulumi project with a stack selected: its stacks say which orders are held (${settings.from})`,
    );
  }
  const { pulumi } = selection;
  const held = new Set<number>();
  const summaries = await pulumiCall("cannot list the project's stacks", () => pulumi.listStacks());
  for (const { name } of summaries) {
    // Exported by name: the user's stack selection stays as it is.
    for (const r of await deployedResources({ pulumi, stackName: name }))
      if (r.kind === KIND.Order && typeof r.outputs.orderId === "number") held.add(r.outputs.orderId);
  }
  return held;
}
