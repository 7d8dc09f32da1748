/**
 * What the sandbox holds for an account, as the service knows it and without its ids: the orders
 * (template, status, recipients), the ledger's charges, the address book and the automations'
 * queued recipients. Two accounts given the same campaigns by different programs compare equal.
 */
import { DirectMailClient } from "../../../provider/api/client";
import type { TestSandbox } from "../../support/sandbox";

export interface AccountState {
  /** Each order's template by name (ids differ between accounts), its status and its recipients. */
  orders: { template: string | number | undefined; status: string | undefined; recipients: string[] }[];
  charges: { amount: number; outcome: string }[];
  addressBook: Record<string, unknown>[];
  automationRecipients: string[];
}

/** Drops the keys that name one account's objects (ids, keys, times), at every depth. */
export function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/id$|Id$|^apiKey$|At$|^created|^updated/.test(key))
      .map(([key, item]) => [key, withoutIds(item)]),
  );
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

export async function accountState(
  sb: TestSandbox,
  apiKey: string,
  templateNames: Map<number, string> = new Map(),
): Promise<AccountState> {
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  try {
    const orders: AccountState["orders"] = [];
    for (const summary of (await client.listOrders()).orders) {
      const recipients: string[] = [];
      for await (const r of client.iterateRecipients(summary.orderId)) {
        recipients.push(
          `${r.personal.firstName} ${r.personal.lastName}, ${r.address.address1}, ${r.address.zipCode}`,
        );
      }
      const order = await client.getOrder(summary.orderId);
      const template =
        order?.templateId === undefined || order.templateId === null
          ? undefined
          : (templateNames.get(order.templateId) ?? order.templateId);
      orders.push({ template, status: order?.orderStatus, recipients: recipients.sort() });
    }
    const { entries } = await sb.control.ledger(apiKey);
    const automations = await client.listIntegrationOrders();
    const automationRecipients: string[] = [];
    for (const automation of automations) {
      const { recipients } = await sb.control.integrationRecipients(apiKey, automation.id);
      automationRecipients.push(...recipients.map((r) => JSON.stringify(withoutIds(r))));
    }
    return {
      orders: orders.sort(byJson),
      charges: entries
        .filter((entry) => entry.kind === "charge")
        .map((entry) => ({ amount: entry.amount, outcome: String(entry.outcome) }))
        .sort(byJson),
      addressBook: (
        (await sb.control.addressBook(apiKey)).entries.map(withoutIds) as Record<string, unknown>[]
      ).sort(byJson),
      automationRecipients: automationRecipients.sort(),
    };
  } finally {
    await client.close();
  }
}
