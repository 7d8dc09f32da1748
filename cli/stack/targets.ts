/**
 * The orders a command's arguments name: order ids as they are, campaign names through the selected
 * stack's state; without either, every order of the stack. `directmail status` and the sandbox's
 * control commands name orders this way. And a recipient of an order by name or address line, as
 * `status --recipient` and `proof --recipient` name one.
 */
import type { DirectMailClient } from "../../provider/api/client";
import { NotFoundError } from "../../provider/api/errors";
import type { RecipientDeliveryStatus } from "../../provider/api/schemas";
import { KIND } from "../../provider/campaign/names";
import type { ServiceSettings } from "./settings";
import { deployedResources } from "./state";

export interface Target {
  orderId: number;
  campaign: string | null;
}

/** The orders the arguments name: ids as they are, campaign names through the stack's state. */
export async function resolveTargets(targets: string[], settings: ServiceSettings): Promise<Target[]> {
  const ids = targets.filter((t) => /^\d+$/.test(t));
  const names = targets.filter((t) => !/^\d+$/.test(t));
  const inStack = ids.length === targets.length && targets.length > 0 ? [] : await stackOrders(settings);
  const campaignOf = new Map(inStack.map((o) => [o.orderId, o.campaign]));
  if (targets.length === 0) {
    if (inStack.length === 0) {
      throw new Error(
        `stack "${settings.stack?.stackName}" has no order yet; run pulumi up, or give order ids`,
      );
    }
    return inStack;
  }
  const found: Target[] = [];
  for (const name of names) {
    const orders = inStack.filter((o) => o.campaign === name);
    if (orders.length === 0) {
      const known = [...new Set(inStack.map((o) => o.campaign).filter((c) => c !== null))];
      throw new Error(
        `no campaign "${name}" in stack "${settings.stack?.stackName}"` +
          (known.length > 0 ? ` (its campaigns: ${known.join(", ")})` : "") +
          "; give a campaign name or an order id",
      );
    }
    found.push(...orders);
  }
  for (const id of ids) found.push({ orderId: Number(id), campaign: campaignOf.get(Number(id)) ?? null });
  const seen = new Set<number>();
  return found.filter((t) => !seen.has(t.orderId) && seen.add(t.orderId));
}

/** The orders of the selected stack's state, with their campaigns, by campaign name. */
async function stackOrders(settings: ServiceSettings): Promise<Target[]> {
  const selection = settings.stack;
  if (selection === undefined) {
    throw new Error(
      "name the orders by id, or run in a Pulumi project with a stack selected to name campaigns " +
        `(${settings.from})`,
    );
  }
  return (await deployedResources(selection))
    .filter((r) => r.kind === KIND.Order && typeof r.outputs.orderId === "number")
    .map((r) => ({ orderId: r.outputs.orderId as number, campaign: r.campaign ?? r.name }))
    .sort((a, b) => (a.campaign < b.campaign ? -1 : a.campaign > b.campaign ? 1 : a.orderId - b.orderId));
}

/** "First Last" by name; text with a digit (a house number) by address line. */
export function recipientQuery(who: string): { firstName: string; lastName: string } | { address1: string } {
  const text = who.trim();
  const space = text.lastIndexOf(" ");
  if (/\d/.test(text) || space < 0) return { address1: text };
  return { firstName: text.slice(0, space).trim(), lastName: text.slice(space + 1) };
}

/** The recipient of the order that `who` names (recipientQuery), with its latest carrier status; null when none matches. */
export async function recipientNamed(
  client: DirectMailClient,
  orderId: number,
  who: string,
): Promise<RecipientDeliveryStatus | null> {
  try {
    return await client.getDeliveryStatus(orderId, recipientQuery(who));
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
