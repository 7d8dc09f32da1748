/**
 * What the user reads when a deployment cannot go on, under the real pulumi CLI: a misspelled
 * field of an inline recipient is named with its row at preview, without a dump of the list, and an
 * unreachable service is reported once for the run, with how to start the local sandbox.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const resource = (kind: string, name: string) => `pulumi-nodejs:dynamic/directmail:${kind} (${name}):`;
const STACK = "pulumi:pulumi:Stack (orders-e2e):";

const ada = { firstName: "Ada", lastName: "Lovelace", city: "Springfield", state: "IL", zipCode: "62701" };

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
const stacks: TestStack[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
}, 120_000);

afterAll(async () => {
  await client?.close();
  for (const t of stacks) await t.dispose();
  await sb?.close();
});

async function ordersStack(baseUrl: string, recipients: unknown[], orders = 1): Promise<TestStack> {
  const t = await createTestStack("orders", {
    config: {
      "directmail:baseUrl": { value: baseUrl },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipients: { value: JSON.stringify(recipients) },
      orders: { value: String(orders) },
    },
  });
  stacks.push(t);
  return t;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("messages under the real pulumi CLI", { timeout: 240_000 }, () => {
  it("a misspelled field of an inline recipient fails the preview naming its row and field, with no dump of the list", async () => {
    const t = await ordersStack(sb.url, [
      { ...ada, address1: "12 Analytical Row" },
      { ...ada, firstName: "Alan", adress1: "14 Maple Avenue" },
    ]);
    const { output, failed } = await run((onOutput) => t.stack.preview({ onOutput }));
    expect(failed).toBe(true);
    expect(diagnostics(output)).toEqual({
      [resource("OrderRecipients", "recipients-1")]: [
        "error: pulumi-nodejs:dynamic/directmail:OrderRecipients resource 'recipients-1' has a problem: " +
          'recipients row 2, adress1: unknown field "adress1"; recipients row 2, address1: address1 is required',
      ],
    });
    expect(output).not.toContain("Maple Avenue");
    expect(output).not.toContain("map[");
    expect((await client.listOrders()).orders).toEqual([]);
  });

  it("an unreachable service is reported once for the run, saying how to start the sandbox", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const t = await ordersStack(url, [{ ...ada, address1: "12 Analytical Row" }], 3);
    const { output, failed } = await run((onOutput) => t.stack.up({ onOutput }));
    expect(failed).toBe(true);
    const shown = diagnostics(output);
    const full =
      `error: POST /v1/order: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}). ` +
      `Nothing answers at ${url} (directmail:baseUrl): start the local sandbox with \`npx directmail sandbox ` +
      `--port ${port}\`, then run the command again.`;
    const short = `error: Not sent: ${url} did not answer earlier in this run (see the first error about it).`;
    expect(shown[STACK]).toEqual(["error: update failed"]);
    const orders = [1, 2, 3].map((n) => shown[resource("Order", `order-${n}`)]?.join("\n"));
    expect(orders.toSorted()).toEqual([full, short, short].toSorted());
    expect(Object.keys(shown)).toHaveLength(4);
  });
});
