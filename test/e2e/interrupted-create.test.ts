/**
 * An Order create interrupted by two Ctrl-C while the service is slow to answer (a sandbox delay
 * fault after the order is made), under the real pulumi CLI with the sandbox as the truth: the
 * order exists at the service and in no stack. The next `up` says so once, with the way to adopt or
 * delete it (for the sandbox, without a web application), its dates the service's alone, and the
 * command that clears the pending create Pulumi keeps, creating and adopting nothing; `directmail
 * orders untracked` lists it; the `up` after that creates a new order and warns of the pending
 * create until `pulumi refresh --clear-pending-creates` runs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recipientsCsv } from "./support/campaign";
import { directmailIn } from "./support/commands";
import { refreshOnce, stateOutputs, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { processesOfRun, spawnUp, waitFor } from "./support/processes";
import { createTestStack, type TestStack } from "./support/pulumi";

const MARKER = "DIRECTMAIL_E2E_RUN";
const runId = `interrupted-create-${process.pid}-${Date.now()}`;

let sb: TestSandbox;
let t: TestStack | undefined;
let client: DirectMailClient | undefined;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
});
afterAll(async () => {
  for (const p of processesOfRun(MARKER, runId)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("an Order create interrupted while the service is slow", { timeout: 300_000 }, () => {
  it("the next up names the order it may have made, once, and adopts nothing; the untracked listing shows it", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 0 });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
    client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    t = await createTestStack("campaign", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipientsFile: { value: "recipients.csv" },
      },
      env: { [MARKER]: runId },
    });
    fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([1, 2]));
    // The order is made at once; its answer is held back.
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "delay",
      delayMs: 60_000,
      after: true,
      times: 1,
    });

    const { cli, exited } = spawnUp(t);
    await waitFor("the order's creation to reach the sandbox", 120, async () =>
      (await sb.control.listFaults()).faults[0]?.fired === 1 ? true : undefined,
    );
    // Two Ctrl-C: the second one stops pulumi without waiting for the create.
    cli.kill("SIGINT");
    await sleep(500);
    cli.kill("SIGINT");
    await exited;
    await waitFor("the run's processes to exit", 30, async () =>
      processesOfRun(MARKER, runId).length === 0 ? true : undefined,
    );

    const orphans = (await client.listOrders()).orders;
    expect(orphans.map((o) => [o.orderStatus, o.templateId, o.recipientCount])).toEqual([
      ["Draft", templateId, 0],
    ]);
    const orphan = orphans[0] as (typeof orphans)[number];
    const untracked = await directmailIn({ cwd: t.workDir, env: t.env }, "orders", "untracked");
    expect([untracked.code, untracked.stdout]).toEqual([
      0,
      `${orphan.orderId}  Draft  template ${templateId}  0 recipients  created ${orphan.createdDate}\n` +
        "adopt one with `existingOrderId: <id>` in a campaign file's order, or delete it with " +
        `\`curl -X DELETE -H "X-API-KEY: $DIRECTMAIL_API_KEY" ${sb.url}/v1/order/<id>\` (the sandbox has no web application)\n`,
    ]);

    await sb.control.clearFaults();
    const next = await run((onOutput) => t?.stack.up({ onOutput }) as Promise<unknown>);
    expect(next.failed).toBe(true);
    const notice = diagnostics(next.output)["pulumi-nodejs:dynamic/directmail:Order (order):"] ?? [];
    expect(notice).toHaveLength(1);
    // The service's dates only; the sandbox's way to delete; what clears Pulumi's pending create.
    expect(notice[0]).toBe(
      `error: an earlier \`pulumi up\` was interrupted while it created an order from template ${templateId}, ` +
        `and the service holds order ${orphan.orderId} (Draft, no recipients, created ${orphan.createdDate}), ` +
        "which no stack records. Nothing was created. To use it, set `existingOrderId: " +
        `${orphan.orderId}\` in the campaign file's order (the Order's args) and run \`pulumi up\`; otherwise delete ` +
        `it with \`curl -X DELETE -H "X-API-KEY: $DIRECTMAIL_API_KEY" ${sb.url}/v1/order/${orphan.orderId}\` (the ` +
        "sandbox has no web application); `directmail orders untracked` lists such orders. This is said once: the " +
        "next `pulumi up` creates a new order. Pulumi keeps the interrupted create as a pending operation and warns " +
        "of it at every `pulumi up` until you run `pulumi refresh --clear-pending-creates` (once; it changes " +
        "nothing at the service).",
    );
    // Nothing was created or adopted: the orphan alone, still without recipients, and no stack output.
    expect((await client.listOrders()).orders.map((o) => [o.orderId, o.recipientCount])).toEqual([
      [orphan.orderId, 0],
    ]);
    expect(stateOutputs(t)).toEqual({});

    // Said once: the next up creates a new order; the orphan stays untracked.
    const after = await upOnce(t);
    expect(after.stdout + after.stderr).toContain("pending operations");
    expect(after.outputs.orderId?.value).not.toBe(orphan.orderId);
    expect((await client.listOrders()).totalCount).toBe(2);
    const listed = await directmailIn({ cwd: t.workDir, env: t.env }, "orders", "untracked");
    expect(listed.stdout.split("\n")[0]).toBe(
      `${orphan.orderId}  Draft  template ${templateId}  0 recipients  created ${orphan.createdDate}`,
    );
    // The command the notice names clears the warning; the orders stay as they are.
    await refreshOnce(t, { clearPendingCreates: true });
    const quiet = await upOnce(t);
    expect(quiet.stdout + quiet.stderr).not.toContain("pending operations");
    expect((await client.listOrders()).totalCount).toBe(2);
  });
});
