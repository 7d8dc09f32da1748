/**
 * What the user reads when a deployment cannot go on, under the real pulumi CLI: a misspelled
 * field of an inline recipient is named with its row at preview, without a dump of the list; a wrong
 * API key and an unreachable service fail the preview (and `up`) once, before anything is planned,
 * naming the setting and the command that fixes it.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const resource = (kind: string, name: string) => `pulumi-nodejs:dynamic/directmail:${kind} (${name}):`;

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

async function ordersStack(
  baseUrl: string,
  recipients: unknown[],
  orders = 1,
  key = apiKey,
): Promise<TestStack> {
  const t = await createTestStack("orders", {
    config: {
      "directmail:baseUrl": { value: baseUrl },
      "directmail:apiKey": { value: key, secret: true },
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

  it("a wrong API key fails the preview once, naming the setting and the command that sets it; nothing is created", async () => {
    const t = await ordersStack(sb.url, [{ ...ada, address1: "12 Analytical Row" }], 3, "sbx_wrong_key");
    const { output, failed } = await run((onOutput) => t.stack.preview({ onOutput }));
    expect(failed).toBe(true);
    expect(onlyError(output)).toEqual([
      "error: GET /v1/me → 401 UNAUTHENTICATED: the API key is missing or invalid (GET /v1/me confirms a key). The service at " +
        `${sb.url} refused the API key; the key came from directmail:apiKey of stack "e2e": set the right one ` +
        "with `pulumi config set --secret directmail:apiKey <key> --stack e2e`, then run the command again.",
    ]);
    expect(output).not.toMatch(/\bat .*\.js:\d+/);
    expect((await client.listOrders()).orders).toEqual([]);
  });

  it("a stopped sandbox fails the preview, and `up` before anything is sent, once, naming the service and how to start it", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const t = await ordersStack(url, [{ ...ada, address1: "12 Analytical Row" }], 3);
    const commands = [
      (onOutput: (text: string) => void) => t.stack.preview({ onOutput }),
      (onOutput: (text: string) => void) => t.stack.up({ onOutput }),
    ];
    for (const command of commands) {
      const { output, failed } = await run(command);
      expect(failed).toBe(true);
      expect(onlyError(output)).toEqual([
        `error: GET /v1/me: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}). ` +
          `Nothing answers at ${url} (directmail:baseUrl): start the local sandbox with \`npx directmail sandbox ` +
          `--port ${port}\`, then run the command again.`,
      ]);
    }
  });
});

/**
 * The lines of the one resource that the diagnostics show, after checking that the run showed no
 * other of the stack's Orders (none was planned after it).
 */
function onlyError(output: string): string[] {
  const shown = Object.entries(diagnostics(output));
  expect(shown.map(([heading]) => heading)).toEqual([
    expect.stringMatching(/^pulumi-nodejs:dynamic\/directmail:Order \(order-\d\):$/),
  ]);
  expect(new Set(output.match(/\border-\d\b/g)).size).toBe(1);
  return shown[0]?.[1] ?? [];
}
