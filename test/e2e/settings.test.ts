/**
 * Where the service is, under the real pulumi CLI and the built `directmail`: every command finds
 * it in one order (flags, the stack's configuration, the environment, the default), so the sandbox
 * commands drive the stack's sandbox and never another one the environment names; a setting that
 * cannot be used fails the preview and the `up` once, in one line naming the key and the command
 * that fixes it, with no stack trace; and a refused key or a stopped sandbox tells the CLI's user
 * where the key or the address came from and what to do.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { directmailIn } from "./support/commands";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack, writePlainConfig } from "./support/pulumi";
import { pulumiIn } from "./support/yaml-program";

/** One key in both sandboxes, as the demo key is in every sandbox started with --seed demo. */
const KEY = "sbx_same_key_in_both_sandboxes";
const DAY_MS = 86_400_000;

let stackSandbox: TestSandbox;
let otherSandbox: TestSandbox;
const stacks: TestStack[] = [];

beforeAll(async () => {
  [stackSandbox, otherSandbox] = await Promise.all([
    startTestSandbox({ log: () => {} }),
    startTestSandbox({ log: () => {} }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const t of stacks) await t.dispose();
  await stackSandbox?.close();
  await otherSandbox?.close();
});

/** A stack of the campaign-folder program (folder `camps`) with `config`, and one campaign file. */
async function folderStack(config: Record<string, string>, campaign: string): Promise<TestStack> {
  const t = await createTestStack("campaign-folder", {
    config: Object.fromEntries(
      Object.entries(config).map(([k, value]) => [k, { value, secret: k === "directmail:apiKey" }]),
    ),
  });
  stacks.push(t);
  fs.mkdirSync(path.join(t.workDir, "camps"));
  fs.writeFileSync(path.join(t.workDir, "camps", "campaign.yaml"), campaign);
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

/** What a pulumi command printed shows no stack trace and no "unhandled exception". */
function expectNoTrace(output: string): void {
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain("unhandled exception");
  expect(output).not.toContain("failed unexpectedly");
  expect(output).not.toContain("\u001b[");
}

describe("the stack's sandbox, and no other", { timeout: 400_000 }, () => {
  let t: TestStack;
  let env: NodeJS.ProcessEnv;
  let orderId: number;
  let otherOrderId: number;
  const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env }, ...args);

  beforeAll(async () => {
    for (const sb of [stackSandbox, otherSandbox])
      await sb.control.createAccount({ apiKey: KEY, balance: 100 });
    const { id: templateId } = await stackSandbox.control.createTemplate({
      apiKey: KEY,
      name: "Postcard",
      hasQr: true,
    });
    const { id: otherTemplate } = await otherSandbox.control.createTemplate({
      apiKey: KEY,
      name: "Postcard",
      hasQr: true,
    });
    t = await folderStack(
      { "directmail:baseUrl": stackSandbox.url, "directmail:apiKey": KEY },
      campaignYaml("autumn-sale", templateId, { pay: true }),
    );
    // The environment names the other sandbox, with the same key.
    env = { ...t.env, DIRECTMAIL_BASE_URL: otherSandbox.url, DIRECTMAIL_API_KEY: KEY };
    // The pulumi CLI itself: the Automation API's up would read the outputs and the history after.
    const up = await pulumiIn(t, "up", "--yes", "--skip-preview");
    expect(up.code, up.output).toBe(0);
    const client = new DirectMailClient({ baseUrl: stackSandbox.url, apiKey: KEY });
    orderId = (await client.listOrders()).orders[0]?.orderId as number;
    await client.close();
    // The other sandbox holds a paid order of the same id.
    const other = new DirectMailClient({ baseUrl: otherSandbox.url, apiKey: KEY });
    ({ orderId: otherOrderId } = await other.createOrder({ templateId: otherTemplate }));
    await other.appendRecipients(otherOrderId, [
      newOrderRecipient({
        address: { address1: "9 Elm St", city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: "Grace", lastName: "Hopper" },
      }),
    ]);
    await other.checkout(otherOrderId, { postageType: "Standard", productionSpeed: "Normal" });
    await other.close();
    // Settled (Ready For Production): days from being mailed, so nothing but a command changes it.
    await otherSandbox.control.advanceClock(60);
  }, 300_000);

  /** The order's status, scans and the clock of a sandbox, read through its own API. */
  async function stateOf(sb: TestSandbox, id: number) {
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey: KEY });
    const [entry] = (await client.getAnalytics([id])).orders;
    await client.close();
    return {
      status: entry?.orderStatus,
      delivered: entry?.delivered,
      scans: entry?.qrCode?.totalScans ?? 0,
      clock: Date.parse((await sb.control.clock()).now),
    };
  }

  it("sandbox deliver, scan and clock advance change the stack's sandbox, say its address, and leave the other untouched", async () => {
    expect(otherOrderId).toBe(orderId);
    const otherBefore = await stateOf(otherSandbox, otherOrderId);
    expect(otherBefore.status).toBe("Ready For Production");

    const delivered = await directmail("sandbox", "deliver", "autumn-sale");
    expect(delivered).toMatchObject({ code: 0, stderr: "" });
    const lines = delivered.stdout.split("\n");
    expect(lines[0]).toBe(`order ${orderId} at ${stackSandbox.url}: Complete, 2 of 2 pieces delivered`);
    expect(lines[1]).toMatch(new RegExp(`^the sandbox clock at ${stackSandbox.url} is now \\S+, .+ later$`));
    expect(lines.slice(2)).toEqual([""]);
    expect(await stateOf(stackSandbox, orderId)).toMatchObject({ status: "Complete", delivered: 2 });

    expect(await directmail("sandbox", "scan", "autumn-sale", "3")).toEqual({
      code: 0,
      stdout: `recorded 3 QR scans of order ${orderId} at ${stackSandbox.url} on 2 pieces; it has 3 in all\n`,
      stderr: "",
    });
    expect((await stateOf(stackSandbox, orderId)).scans).toBe(3);

    const clockBefore = (await stateOf(stackSandbox, orderId)).clock;
    const advanced = await directmail("sandbox", "clock", "advance", "2d");
    expect(advanced).toMatchObject({ code: 0, stderr: "" });
    expect(advanced.stdout).toMatch(
      new RegExp(`^the sandbox clock at ${stackSandbox.url} is now \\S+, 2 days later\\n$`),
    );
    expect((await stateOf(stackSandbox, orderId)).clock - clockBefore).toBeGreaterThanOrEqual(2 * DAY_MS);

    // The other sandbox: its order of the same id neither delivered nor scanned, its clock not moved.
    const otherAfter = await stateOf(otherSandbox, otherOrderId);
    expect({ ...otherAfter, clock: undefined }).toEqual({ ...otherBefore, clock: undefined });
    expect(otherAfter.status).not.toBe("Complete");
    expect(otherAfter.clock - otherBefore.clock).toBeLessThan(DAY_MS);

    // A flag still comes first: --url drives the sandbox it names.
    const flagged = await directmail("sandbox", "clock", "advance", "1h", "--url", otherSandbox.url);
    expect(flagged.stdout).toMatch(new RegExp(`^the sandbox clock at ${otherSandbox.url} is now `));
  });

  it("whoami, status and report with a key the service refuses name the stack's key and the command that sets it", async () => {
    // Put back afterwards as it was, by the stack file's text: no second pulumi command.
    const stackFile = path.join(t.workDir, "Pulumi.e2e.yaml");
    const settings = fs.readFileSync(stackFile, "utf8");
    await t.stack.setConfig("directmail:apiKey", { value: "sbx_wrong_key", secret: true });
    try {
      const fix =
        `The service at ${stackSandbox.url} refused the API key from directmail:apiKey of stack "e2e". ` +
        "To use another key, set it with `pulumi config set --secret directmail:apiKey <key> --stack e2e`; " +
        "then run the command again.\n";
      const refused = "401 UNAUTHENTICATED: the API key is missing or invalid";
      expect(await directmail("whoami")).toEqual({
        code: 1,
        stdout: "",
        stderr: `directmail: GET /v1/me → ${refused} (GET /v1/me confirms a key). ${fix}`,
      });
      for (const command of ["status", "report"]) {
        const result = await directmail(command);
        expect(result).toMatchObject({ code: 1, stdout: "" });
        expect(result.stderr).toMatch(new RegExp(`^directmail: GET /v1/\\S+ → ${refused}`));
        expect(result.stderr.endsWith(fix)).toBe(true);
        expect(result.stderr.split("\n")).toHaveLength(2);
      }
    } finally {
      fs.writeFileSync(stackFile, settings);
    }
  });

  it("whoami, status and report with the stack's sandbox stopped name the address's setting and how to start it", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    writePlainConfig(t, { "directmail:baseUrl": url });
    try {
      const fix =
        `Nothing answers at ${url}, the address from directmail:baseUrl of stack "e2e": start the local sandbox ` +
        `with \`npx directmail sandbox --port ${port}\`; for another service, set it with ` +
        "`pulumi config set directmail:baseUrl <address> --stack e2e`; then run the command again.\n";
      for (const command of ["whoami", "status", "report"]) {
        const result = await directmail(command);
        expect(result).toMatchObject({ code: 1, stdout: "" });
        expect(result.stderr).toMatch(
          new RegExp(
            `^directmail: GET /v1/\\S+: could not connect \\(ECONNREFUSED: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)\\. `,
          ),
        );
        expect(result.stderr.endsWith(fix)).toBe(true);
      }
    } finally {
      writePlainConfig(t, { "directmail:baseUrl": stackSandbox.url });
    }
  });
});

describe("a setting that cannot be used, under pulumi preview and up", { timeout: 400_000 }, () => {
  let templateId: number;
  let apiKey: string;

  beforeAll(async () => {
    ({ apiKey } = await stackSandbox.control.createAccount({ balance: 100 }));
    ({ id: templateId } = await stackSandbox.control.createTemplate({ apiKey, name: "Postcard" }));
  });

  const noScheme = () => stackSandbox.url.replace("http://", "");
  const baseUrlMessage = () =>
    `error: directmail:baseUrl "${noScheme()}" has no scheme (http:// or https://): set it with ` +
    `\`pulumi config set directmail:baseUrl ${stackSandbox.url} --stack e2e\``;
  const budgetMessage =
    'error: directmail:monthlyBudget must be an amount of US dollars such as 500 or 1250.50 (digits, a point before the cents, no thousands separator), not "4.000,00": ' +
    "set it with `pulumi config set directmail:monthlyBudget 500 --stack e2e`, or remove it with " +
    "`pulumi config rm directmail:monthlyBudget --stack e2e` for no budget";
  // A misspelled budget would otherwise be no budget at all.
  const misspeltMessage =
    "error: directmail:monthlybudget is not a setting of pulumi-directmail (did you mean directmail:monthlyBudget?): " +
    "remove it with `pulumi config rm directmail:monthlybudget --stack e2e` and set directmail:monthlyBudget instead. " +
    "Its settings are directmail:apiKey, directmail:baseUrl and directmail:monthlyBudget.";

  /** Each setting that cannot be used, alone, with the message that names it and its fix. */
  const unusable = () =>
    [
      ["directmail:baseUrl", noScheme(), baseUrlMessage()],
      ["directmail:monthlyBudget", "4.000,00", budgetMessage],
      ["directmail:monthlybudget", "5", misspeltMessage],
    ] as const;
  /** The stack's settings: good ones, but for `key` set to `value` (written to its Pulumi.e2e.yaml). */
  const setOnly = (t: TestStack, key: string, value: string) =>
    writePlainConfig(t, {
      "directmail:baseUrl": stackSandbox.url,
      "directmail:monthlyBudget": undefined,
      "directmail:monthlybudget": undefined,
      [key]: value,
    });

  it("a CampaignFolder's program fails the preview and the up in one line naming the key and its fix", async () => {
    // One stack, each unusable setting in turn.
    const t = await folderStack(
      { "directmail:baseUrl": stackSandbox.url, "directmail:apiKey": apiKey },
      campaignYaml("spring", templateId, { pay: true }),
    );
    for (const [key, value, message] of unusable()) {
      setOnly(t, key, value);
      for (const command of [
        (onOutput: (text: string) => void) => t.stack.preview({ onOutput }),
        (onOutput: (text: string) => void) => t.stack.up({ onOutput }),
      ]) {
        const { output, failed } = await run(command);
        expect(failed).toBe(true);
        expect(diagnostics(output)).toEqual({ "pulumi:pulumi:Stack (campaign-folder-e2e):": [message] });
        expectNoTrace(output);
      }
    }
    expect((await new DirectMailClient({ baseUrl: stackSandbox.url, apiKey }).listOrders()).orders).toEqual(
      [],
    );
  });

  it("resources declared without a folder fail at the provider's configure, once, naming the key and its fix", async () => {
    // One stack, each unusable setting in turn.
    const t = await createTestStack("orders", {
      config: {
        "directmail:baseUrl": { value: stackSandbox.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipients: {
          value: JSON.stringify([
            {
              firstName: "Ada",
              lastName: "L",
              address1: "1 Main St",
              city: "Springfield",
              state: "IL",
              zipCode: "62701",
            },
          ]),
        },
        orders: { value: "3" },
      },
    });
    stacks.push(t);
    for (const [key, value, message] of unusable()) {
      setOnly(t, key, value);
      for (const command of [
        (onOutput: (text: string) => void) => t.stack.preview({ onOutput }),
        (onOutput: (text: string) => void) => t.stack.up({ onOutput }),
      ]) {
        const { output, failed } = await run(command);
        expect(failed).toBe(true);
        const shown = Object.values(diagnostics(output)).flat();
        // The full message once; any other resource the engine ran says it stopped, in one line.
        expect(shown.filter((line) => line === message)).toHaveLength(1);
        expect(shown.filter((line) => line !== message && !/^error: update failed$/.test(line))).toEqual(
          shown
            .filter((line) => line !== message && !/^error: update failed$/.test(line))
            .map(
              () =>
                "error: Stopped: a directmail setting of this stack is not valid (see the first error about it).",
            ),
        );
        expectNoTrace(output);
      }
    }
    expect((await new DirectMailClient({ baseUrl: stackSandbox.url, apiKey }).listOrders()).orders).toEqual(
      [],
    );
  });
});
