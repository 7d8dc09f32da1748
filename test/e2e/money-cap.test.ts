import { setTimeout } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import { type LedgerResult, startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignStack } from "./support/campaign-stack";
import { directmailIn } from "./support/commands";
import { refreshOnce, upOnce } from "./support/one-command";
import { writePlainConfig } from "./support/pulumi";

let sb: TestSandbox;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: 2, settlementExpectedWithinSeconds: 30 },
  });
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await sb?.close();
});

/** What the ledger charged the order: its succeeded charges, to the cent. */
function ledgerCharged(ledger: LedgerResult, orderId: number): number {
  const charges = ledger.entries.filter(
    (e) => e.orderId === orderId && e.kind === "charge" && e.outcome === "succeeded",
  );
  return Math.round(charges.reduce((n, e) => n + e.amount, 0) * 100) / 100;
}

/** Recipients appended from outside the stack, as a second stack or the web application would. */
function appendElsewhere(client: DirectMailClient, orderId: number, count: number) {
  return client.appendRecipients(
    orderId,
    Array.from({ length: count }, (_, i) =>
      newOrderRecipient({
        address: { address1: `${200 + i} Oak Ave`, city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: `Other${i}`, lastName: "Elsewhere" },
      }),
    ),
  );
}

/** A stack of the campaign program over two recipients (5.00 USD at the sandbox's prices). */
async function campaign(config: Record<string, string> = {}) {
  const { apiKey, templateId, client, t, dispose } = await campaignStack(sb, config);
  cleanup.push(dispose);
  const checkoutState = () =>
    t
      .readStateFile()
      .checkpoint.checkpoint.latest.resources.find(
        (r: any) => r.type === "pulumi-nodejs:dynamic/directmail:Checkout",
      );
  return { apiKey, templateId, client, t, checkoutState };
}

describe("maxTotal against the ledger, under the real pulumi CLI", { timeout: 240_000 }, () => {
  it("recipients appended while the checkout is on its way: the up fails with the charge, the state and the outputs hold the ledger's charge", async () => {
    const { apiKey, client, t, checkoutState } = await campaign({ checkout: "true", maxTotal: "10" });
    const delay = await sb.control.addFault({
      method: "POST",
      path: "/v1/order/*/checkout",
      kind: "delay",
      delayMs: 4000,
      times: 1,
    });
    let output = "";
    const up = upOnce(t, { onOutput: (text) => (output += text) }).then(
      () => undefined,
      (error: Error) => error,
    );
    const fired = async () => (await sb.control.listFaults()).faults.find((f) => f.id === delay.id)?.fired;
    while ((await fired()) !== 1) await setTimeout(50);
    // The checkout is held at the service's door: 20 more recipients make it 22 pieces, 55.00 USD.
    const orderId = (await client.listOrders()).orders[0]?.orderId as number;
    await appendElsewhere(client, orderId, 20);
    const failure = await up;
    await sb.control.clearFaults();

    const charged = ledgerCharged(await sb.control.ledger(apiKey), orderId);
    expect(charged).toBe(55);
    expect(output).toContain(`Checkout of order ${orderId}: charging 5.00 USD (2 recipients)`);
    expect(output).not.toMatch(/payment settled/);
    expect(failure?.message).toContain(
      `Checkout of order ${orderId} charged 55.00 USD for 22 pieces, more than maxTotal 10.00 USD: it was ` +
        "priced 5.00 USD for 2 recipients just before it was sent, and the service charged for 22: recipients " +
        "were added to the order while the checkout was on its way (the service holds no price). The charge " +
        "stands at the service and the stack records it; this update fails until maxTotal is raised to 55.00 " +
        "USD to accept it.",
    );
    // The state records the checkout with what the ledger charged, never the preview.
    expect(checkoutState().outputs).toMatchObject({ totalCharges: charged, recordedExisting: false });

    // Every later up fails the same way until maxTotal accepts the charge; nothing is charged again.
    await expect(upOnce(t)).rejects.toThrow(
      `Checkout of order ${orderId} charged 55.00 USD for 22 pieces, more than maxTotal 10.00 USD: the state ` +
        "recorded that charge when the order was checked out.",
    );
    writePlainConfig(t, { maxTotal: "55" });
    const accepted = await upOnce(t);
    expect(accepted.summary.result).toBe("succeeded");
    expect(accepted.stdout).not.toMatch(/more than maxTotal/);
    expect(accepted.outputs.totalCharges?.value).toBe(charged);
    const ledger = await sb.control.ledger(apiKey);
    expect(ledgerCharged(ledger, orderId)).toBe(55);
    expect(ledger.entries.filter((e) => e.kind === "charge")).toHaveLength(1);
  });

  it("recipients appended before the checkout is sent: nothing is sent; after a refresh the plan prices them and the outputs are the ledger's charge", async () => {
    const { apiKey, client, t } = await campaign({ maxTotal: "100" });
    const draft = await upOnce(t);
    const orderId = draft.outputs.orderId?.value as number;
    await appendElsewhere(client, orderId, 1);

    writePlainConfig(t, { checkout: "true" });
    await expect(upOnce(t)).rejects.toThrow(
      `Checkout of order ${orderId} was not sent: the order holds 3 recipients at the service, and this stack's ` +
        "OrderRecipients holds 2; nothing was charged.",
    );
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect((await sb.control.ledger(apiKey)).entries).toEqual([]);

    await refreshOnce(t);
    const paid = await upOnce(t);
    const charged = ledgerCharged(await sb.control.ledger(apiKey), orderId);
    expect(charged).toBe(7.5);
    expect(paid.stdout).toContain(`Checkout of order ${orderId}: charging 7.50 USD (3 recipients)`);
    expect(paid.stdout).toMatch(
      /payment settled: (Paid|Ready For Production); the service charged 7\.50 USD/,
    );
    expect(paid.outputs.totalCharges?.value).toBe(charged);
  });
});

describe("directmail report against the ledger", { timeout: 240_000 }, () => {
  it("counts only paid orders as printed, spends what the transactions charged, and lists drafts apart: for a stack and for ids", async () => {
    const { apiKey, client, templateId, t } = await campaign();
    const draft = (await upOnce(t)).outputs.orderId?.value as number;
    // Two more drafts of the account, with three and two recipients, and one paid order of two.
    const drafts = [draft];
    for (const count of [3, 2]) {
      const { orderId } = await client.createOrder({ templateId });
      await appendElsewhere(client, orderId, count);
      drafts.push(orderId);
    }
    const { orderId: paidId } = await client.createOrder({ templateId });
    await appendElsewhere(client, paidId, 2);
    await client.checkout(paidId, {
      postageType: "Standard",
      productionSpeed: "Normal",
      holdUntilDate: null,
    });
    await sb.control.advanceClock(5);
    const ledger = await sb.control.ledger(apiKey);
    const charged = ledgerCharged(ledger, paidId);
    expect(charged).toBe(5);
    expect(drafts.map((id) => ledgerCharged(ledger, id))).toEqual([0, 0, 0]);

    const env = { ...t.env };
    const stackReport = await directmailIn({ cwd: t.workDir, env }, "report");
    expect(stackReport.stderr).toBe("");
    expect(stackReport.stdout.split("\n").slice(1)).toEqual([
      "0 pieces printed, 0 delivered, 0 undeliverable, 0 QR scans, 0.00 USD spent",
      `1 draft order, not printed and not charged: order (order ${draft})`,
      "",
    ]);

    const byId = await directmailIn(
      { cwd: t.workDir, env },
      "report",
      ...[...drafts, paidId].map(String),
      "--out",
      "ids.html",
    );
    expect(byId.stderr).toBe("");
    const [paidCards] = (await client.getAnalytics([paidId])).orders.map((o) => o.totalCards);
    expect(paidCards).toBe(2);
    expect(byId.stdout.split("\n").slice(1)).toEqual([
      `2 pieces printed, 0 delivered, 0 undeliverable, 0 QR scans, ${charged.toFixed(2)} USD spent`,
      `3 draft orders, not printed and not charged: ${drafts.map((id) => `Postcard (order ${id})`).join(", ")}`,
      "",
    ]);
  });
});
