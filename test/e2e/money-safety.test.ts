/**
 * Money safety under the real pulumi CLI: a failed payment and its retry, a `pulumi up` killed
 * during the settlement wait and run again, each with exactly one charge in the sandbox ledger;
 * adopting an order made elsewhere; destroying a draft campaign.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignStack } from "./support/campaign-stack";
import { destroyOnce, refreshOnce, upOnce } from "./support/one-command";
import { type TestStack, writePlainConfig } from "./support/pulumi";

let sb: TestSandbox;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  // Settlement takes 6 s here, so that a test can stop pulumi while it waits.
  sb = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: 6, settlementExpectedWithinSeconds: 30 },
  });
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await sb?.close();
});

async function campaign(
  account: { payment?: "succeed" | "fail" | "hang" } = {},
  extra: Record<string, string> = {},
) {
  const { apiKey, templateId, client, t, dispose } = await campaignStack(sb, extra, {
    account,
    recipients: [1, 2, 3, 4, 5],
  });
  cleanup.push(dispose);
  return { apiKey, templateId, client, t };
}

/** Runs `pulumi up` and kills it, plugins and all, once its output contains `marker`. */
function upKilledAt(t: TestStack, marker: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", "e2e"], {
      cwd: t.workDir,
      env: t.env,
      detached: true,
    });
    let output = "";
    const timer = setTimeout(() => {
      process.kill(-(child.pid as number), "SIGKILL");
      reject(new Error(`pulumi never printed ${marker}:\n${output}`));
    }, 90_000);
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (marker.test(output)) process.kill(-(child.pid as number), "SIGKILL");
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

describe("money safety under the real pulumi CLI", { timeout: 240_000 }, () => {
  it("a failed payment fails the up with guidance; after fixing it the next up pays exactly once", async () => {
    const { apiKey, client, t } = await campaign({ payment: "fail" }, { checkout: "true" });
    await expect(upOnce(t)).rejects.toThrow(/Payment for order \d+ failed/);
    const { orders, totalCount } = await client.listOrders();
    expect(totalCount).toBe(1);
    const orderId = orders[0]?.orderId as number;
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Draft");
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(0);

    await sb.control.updateAccount({ apiKey, payment: "succeed" });
    const up = await upOnce(t);
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
  });

  it("pulumi killed during the settlement wait: the next up records the checkout and charges nothing more", async () => {
    const { apiKey, client, t } = await campaign({}, { checkout: "true" });
    const output = await upKilledAt(t, /waiting up to \d+ s for payment to settle/);
    expect(output).toMatch(/charging/);
    const orderId = (await client.listOrders()).orders[0]?.orderId as number;
    expect((await client.getOrder(orderId))?.orderStatus).toBe("Payment Needed");

    // The documented recovery (docs/resources.md): the killed run left its lock and a pending
    // create; `pulumi cancel` removes the lock, `pulumi refresh --clear-pending-creates` the pending
    // create, and `pulumi up` finds the order checked out and records it.
    await t.stack.cancel();
    await refreshOnce(t, { clearPendingCreates: true });
    const up = await upOnce(t);
    expect(up.outputs.checkoutStatus?.value).toMatch(/Paid|Ready For Production|Payment Needed/);
    // The recovery may finish before the payment settles (6 s): let it settle, then count charges.
    await sb.control.advanceClock(10);
    expect((await client.getOrder(orderId))?.orderStatus).toMatch(/Paid|Ready For Production/);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    const state = t.readStateFile().checkpoint.checkpoint.latest;
    const checkout = state.resources.find((r: any) => r.type === "pulumi-nodejs:dynamic/directmail:Checkout");
    expect(checkout.outputs.recordedExisting).toBe(true);
    expect(state.pending_operations ?? []).toEqual([]);
  });

  it("a connection reset after the checkout took effect: up resolves it from the order's status, and the next up changes nothing", async () => {
    const { apiKey, client, t } = await campaign({}, { checkout: "true" });
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order/*/checkout",
      kind: "reset",
      after: true,
      times: 1,
    });
    const up = await upOnce(t);
    const orderId = up.outputs.orderId?.value;
    expect(up.summary.result).toBe("succeeded");
    expect((await sb.control.listFaults()).faults.find((f) => f.path === "/v1/order/*/checkout")?.fired).toBe(
      1,
    );
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    const again = await upOnce(t);
    expect(Object.keys(again.summary.resourceChanges ?? {}).filter((op) => op !== "same")).toEqual([]);
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    await sb.control.clearFaults();
    await client.close();
  });

  it("adopts an order made elsewhere, and destroy of a draft campaign deletes it", async () => {
    const { apiKey, client, templateId, t } = await campaign();
    const existing = await client.createOrder({ templateId });
    writePlainConfig(t, { existingOrderId: String(existing.orderId) });
    const up = await upOnce(t);
    expect(up.outputs.orderId?.value).toBe(existing.orderId);
    expect((await client.listOrders()).totalCount).toBe(1);
    expect((await client.getOrder(existing.orderId))?.recipientCount).toBe(5);

    const destroy = await destroyOnce(t);
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.getOrder(existing.orderId)).toBeUndefined();
    expect((await sb.control.ledger(apiKey)).entries.filter((e) => e.kind === "charge")).toEqual([]);
  });
});
