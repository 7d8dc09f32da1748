/**
 * `directmail sandbox clock advance`, `deliver` and `scan` as a user runs them: the built bin against
 * `directmail sandbox --seed demo` in its own process, then `directmail status` showing what they did.
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { type CommandResult, directmailIn } from "../../e2e/support/commands";
import { type CliSandbox, scratchDir, startCliSandbox } from "../../support/cli-sandbox";
import { controlClient } from "../../support/sandbox";

let sb: CliSandbox;
let data: string;
let client: DirectMailClient;
let orderId: number;

/** The CLI with the sandbox's address and no key: the sandbox commands use the demo account's. */
function directmail(...args: string[]): Promise<CommandResult> {
  const env = { ...process.env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: "" };
  return directmailIn({ cwd: data, env }, ...args);
}

const clock = async () => Date.parse((await controlClient(sb.url).clock()).now);
/** An ISO time printed by the CLI, checked to be the sandbox's clock (within the seconds a command takes). */
async function expectClockAt(printed: string | undefined): Promise<void> {
  expect(Math.abs((await clock()) - Date.parse(printed as string))).toBeLessThan(10_000);
}

beforeAll(async () => {
  data = scratchDir("sandbox-commands");
  sb = await startCliSandbox(data, ["--seed", "demo"]);
  client = new DirectMailClient({ baseUrl: sb.url, apiKey: sb.first.apiKey });
  ({ orderId } = await client.createOrder({ templateId: sb.first.templates.postcard }));
  const address = (address1: string) => ({ address1, city: "Springfield", state: "IL", zipCode: "62701" });
  await client.appendRecipients(orderId, [
    newOrderRecipient({
      address: address("100 Main St"),
      personal: { firstName: "Ada", lastName: "Lovelace" },
    }),
    newOrderRecipient({
      address: address("107 Oak Ave"),
      personal: { firstName: "Grace", lastName: "Hopper" },
    }),
    // A multi-unit building without a unit: the sandbox returns the piece undeliverable.
    newOrderRecipient({
      address: address("9 Harbor Towers"),
      personal: { firstName: "Alan", lastName: "Turing" },
    }),
  ]);
  await client.checkout(orderId, { postageType: "Standard", productionSpeed: "Normal" });
}, 60_000);

afterAll(async () => {
  await client?.close();
  await sb?.stop();
  fs.rmSync(data, { recursive: true, force: true });
});

describe("directmail sandbox clock advance, deliver and scan", { timeout: 60_000 }, () => {
  it("advance moves the clock: the checkout settles, and status shows the order paid", async () => {
    const before = await clock();
    const advanced = await directmail("sandbox", "clock", "advance", "1h30m");
    expect(advanced).toMatchObject({ code: 0, stderr: "" });
    const [, now] =
      new RegExp(`^the sandbox clock at ${sb.url} is now (\\S+), 1 hour 30 minutes later\\n$`).exec(
        advanced.stdout,
      ) ?? [];
    await expectClockAt(now);
    expect(Date.parse(now as string) - before).toBeGreaterThanOrEqual(90 * 60_000);
    expect((await client.getOrder(orderId))?.orderStatus).toBe("In Production");
  });

  it("deliver runs the clock until every piece has arrived; scan records scans; status shows both", async () => {
    const delivered = await directmail("sandbox", "deliver");
    expect(delivered).toMatchObject({ code: 0, stderr: "" });
    const lines = delivered.stdout.split("\n");
    expect(lines[0]).toBe(
      `order ${orderId} at ${sb.url}: Complete, 2 of 3 pieces delivered, 1 undeliverable`,
    );
    // Mailed 3 days after Ready For Production, then Standard's 5-day window; 1h30m of it went by already.
    expect(lines[1]).toMatch(
      new RegExp(`^the sandbox clock at ${sb.url} is now \\S+, 7 days 22 hours 30 minutes later$`),
    );
    expect(lines.slice(2)).toEqual([""]);
    await expectClockAt(/now (\S+),/.exec(lines[1] as string)?.[1]);

    expect(await directmail("sandbox", "scan", String(orderId), "5")).toEqual({
      code: 0,
      stdout: `recorded 5 QR scans of order ${orderId} at ${sb.url} on 3 pieces; it has 5 in all\n`,
      stderr: "",
    });

    const [analytics] = (await client.getAnalytics([orderId])).orders;
    expect(analytics).toMatchObject({
      orderStatus: "Complete",
      delivered: 2,
      undeliverable: 1,
      totalCards: 3,
    });
    expect(analytics?.qrCode?.totalScans).toBe(5);
    const paid = analytics?.paidDate?.slice(0, 10);
    const status = await directmailIn(
      {
        cwd: data,
        env: { ...process.env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: sb.first.apiKey },
      },
      "status",
      String(orderId),
    );
    expect(status.stdout).toBe(
      [
        "ORDER  CAMPAIGN  STATUS    PAID        SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}  -         Complete  ${paid}  5      7.50 USD  1             2/3 delivered, 1 undeliverable`,
        "",
      ].join("\n"),
    );
  });

  it("says what is wrong in one line: nothing on its way, a draft, an unknown key, no sandbox", async () => {
    expect(await directmail("sandbox", "deliver")).toEqual({
      code: 0,
      stdout: `no paid order of the account at ${sb.url} is on its way: nothing to deliver (a campaign's checkout: pays for one)\n`,
      stderr: "",
    });
    const { orderId: draft } = await client.createOrder({ templateId: sb.first.templates.postcard });
    expect(await directmail("sandbox", "scan", String(draft))).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `directmail: the sandbox at ${sb.url} refused: order ${draft} is Draft: its pieces are not mailed yet, ` +
        `so nobody can scan them; deliver it first (directmail sandbox deliver ${draft})\n`,
    });
    expect(await directmail("sandbox", "deliver", String(draft))).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `directmail: the sandbox at ${sb.url} refused: order ${draft} is Draft: an order is mailed once its checkout ` +
        "is paid; give its campaign a checkout: section and run pulumi up, then deliver it\n",
    });
    expect(await directmail("sandbox", "deliver", "--api-key", "sbx_nobody")).toEqual({
      code: 1,
      stdout: "",
      stderr: `directmail: the sandbox at ${sb.url} has no account with the API key of --api-key\n`,
    });
    const empty = scratchDir("unseeded");
    const unseeded = await startCliSandbox(empty);
    try {
      expect(await directmail("sandbox", "deliver", "--url", unseeded.url)).toEqual({
        code: 1,
        stdout: "",
        stderr:
          `directmail: the sandbox at ${unseeded.url} has no account with the API key sbx_demo_key of the demo account ` +
          "(start the sandbox with --seed demo, or give a key with --api-key or DIRECTMAIL_API_KEY)\n",
      });
    } finally {
      await unseeded.stop();
      fs.rmSync(empty, { recursive: true, force: true });
    }
    expect(await directmail("sandbox", "scan", "1", "100001")).toMatchObject({
      code: 1,
      stderr:
        "error: command-argument value '100001' is invalid for argument 'count'. expected a whole number of scans from 1 to 100000\n",
    });
    const stopped = scratchDir("stopped");
    const gone = await startCliSandbox(stopped);
    await gone.stop();
    fs.rmSync(stopped, { recursive: true, force: true });
    expect(await directmail("sandbox", "clock", "advance", "3d", "--url", gone.url)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `directmail: no sandbox answers at ${gone.url}, the address from --url (connection refused): start one with ` +
        "`npx directmail sandbox --seed demo` in another terminal, or give its address with --url\n",
    });
    expect(await directmail("sandbox", "clock", "advance", "3 days")).toMatchObject({
      code: 1,
      stderr:
        "error: command-argument value '3 days' is invalid for argument 'duration'. expected a duration such as 3d, 12h, 90m, 45s or 1d12h\n",
    });
  });

  // Last: it takes the clock to its end.
  it("deliver says where it stopped when a step falls after the clock's end, and which order is left", async () => {
    const { orderId: held } = await client.createOrder({ templateId: sb.first.templates.postcard });
    await client.appendRecipients(held, [
      newOrderRecipient({
        address: { address1: "100 Main St", city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: "Ada", lastName: "Lovelace" },
      }),
    ]);
    const hold = "2999-12-30T00:00:00.000Z";
    await client.checkout(held, { postageType: "Standard", productionSpeed: "Normal", holdUntilDate: hold });
    const result = await directmail("sandbox", "deliver");
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(
      new RegExp(
        `^directmail: the sandbox at ${sb.url} refused: deliver stopped at the end of the sandbox clock \\(2999-12-31T23:59:59\\.000Z\\): ` +
          `the next step is due at 3000-01-02T00:00:00\\.000Z, after it; 1 of 1 orders are not Complete: order ${held} \\(In Production\\)\\. ` +
          "The steps before it ran and the clock is now 2999-12-30T01:00:0\\d\\.\\d{3}Z; an order held until after the clock's end is never mailed in the sandbox\n$",
      ),
    );
  });
});
