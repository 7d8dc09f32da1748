/**
 * After the mailing, under the real pulumi CLI with the repository's own program (a CampaignFolder
 * whose outputs are the stack's): the plan refuses a campaign the account cannot print before
 * anything is created; `pulumi refresh` reads every order's delivery counts and QR scans in one
 * analytics request; the next `pulumi up`, or `pulumi refresh --run-program` at once, shows them in
 * the stack's outputs; and `directmail status` in the project prints each campaign's order as the
 * service reports it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import type { OrderAnalyticsEntry } from "../../provider/api/schemas";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { directmailIn } from "./support/commands";
import { previewOnce, refreshOnce, stateOutputs, upOnce } from "./support/one-command";
import { createTestStack, type TestStack } from "./support/pulumi";

const DAY = 86_400;

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let env: Record<string, string>;
const requests: string[] = [];

function campaign(name: string, order: string[], custom1: [string, string], pay: boolean): string {
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    ...order.map((line) => `    ${line}`),
    "  recipients:",
    "    inline:",
    `      - { firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, zipCode: "62701"${custom1[0]} }`,
    `      - { firstName: Alan, lastName: Turing, address1: 2 Main St, city: Springfield, state: IL, zipCode: "62701"${custom1[1]} }`,
    ...(pay ? ["  checkout:", "    postageType: Standard", "    productionSpeed: Normal"] : []),
    "",
  ].join("\n");
}
const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);

const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env: env }, ...args);

/** The Order resources of the stack's state, by campaign: their delivery and scan outputs. */
function orderOutputs(): Record<
  string,
  { orderId: number; delivery: unknown; qrScans: number; lastScan: unknown }
> {
  const { checkpoint } = t.readStateFile();
  const resources = checkpoint.checkpoint.latest.resources as { type: string; urn: string; outputs: any }[];
  return Object.fromEntries(
    resources
      .filter((r) => r.type === "pulumi-nodejs:dynamic/directmail:Order")
      .map((r) => [
        r.urn.split("::").pop(),
        {
          orderId: r.outputs.orderId,
          delivery: r.outputs.delivery,
          qrScans: r.outputs.qrScans,
          lastScan: r.outputs.lastScan,
        },
      ]),
  );
}

const counts = (e: OrderAnalyticsEntry | undefined) => ({
  totalCards: e?.totalCards,
  mailed: e?.mailed,
  inTransit: e?.inTransit,
  localFacility: e?.localFacility,
  delivered: e?.delivered,
  undeliverable: e?.undeliverable,
  waitingUSPS: e?.waitingUSPS,
});

beforeAll(async () => {
  sb = await startTestSandbox({ requestLog: true, log: (line) => requests.push(line) });
  ({ apiKey } = await sb.control.createAccount({ email: "after-the-mailing@example.com", balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({
    apiKey,
    name: "Postcard",
    hasQr: true,
    requiredMergeFields: ["custom1"],
  }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("status", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  // The environment names nothing: the CLI reads the stack's configuration.
  env = { ...t.env, DIRECTMAIL_BASE_URL: "http://127.0.0.1:9", DIRECTMAIL_API_KEY: "" };
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("after the mailing, under the pulumi CLI", { timeout: 300_000 }, () => {
  it("the plan refuses a font and a missing merge field the account cannot print, at their lines; nothing is created", async () => {
    write(
      "campaigns/spring.yaml",
      campaign("spring", ["handwritingFont: Comic Sans"], [", custom1: Hi", ""], true),
    );
    let output = "";
    await expect(previewOnce(t, { onOutput: (text) => (output += text) })).rejects.toThrow();
    const diagnostics = output.slice(output.indexOf("Diagnostics:"), output.indexOf("\nResources:"));
    expect(diagnostics.trim().split("\n")).toEqual([
      "Diagnostics:",
      "  pulumi:pulumi:Stack (directmail-campaigns-e2e):",
      "    error: the campaign files have problems; nothing was changed:",
      '    campaigns/spring.yaml:8:22: spec.order.handwritingFont: "Comic Sans" is not a handwriting style of the service; choose one of the service\'s handwriting styles: Casual Cursive, Neat Print, Bold Marker, Elegant Script, Quick Note',
      `    campaigns/spring.yaml:11:7: spec.recipients.inline: 1 of 2 recipients have no custom1 (row 2), which template ${templateId} ("Postcard") prints; fill in custom1 for every recipient, or choose a template that does not print it`,
    ]);
    expect((await client.listOrders()).totalCount).toBe(0);
    expect(requests.filter((r) => / GET \/v1\/templates /.test(r))).toHaveLength(1);
    expect(requests.filter((r) => / GET \/v1\/fonts /.test(r))).toHaveLength(1);
  });

  it("pays two campaigns; refresh reads their delivery and scans in one analytics request; up shows them", async () => {
    write(
      "campaigns/spring.yaml",
      campaign("spring", ["handwritingFont: Neat Print"], [", custom1: Hi", ", custom1: Yo"], true),
    );
    write("campaigns/autumn.yaml", campaign("autumn", [], [", custom1: A", ", custom1: B"], true));
    const up = await upOnce(t);
    expect(up.outputs.spring?.value).toMatchObject({ qrScans: 0 });
    const before = orderOutputs();
    expect(before.spring).toMatchObject({ qrScans: 0, lastScan: null });

    // Settled, produced, mailed (3 days after Ready For Production), then 4 days on the road.
    await sb.control.advanceClock(5);
    await sb.control.advanceClock(3 * DAY + 2 * 3600 + 4 * DAY);
    const springId = before.spring?.orderId as number;
    const autumnId = before.autumn?.orderId as number;
    const [ada] = (await client.listRecipients(springId)).recipients;
    await client.recordQrScan({
      orderId: springId,
      statisticName: 1,
      statisticValue: "3",
      orderRecipientId: ada?.id as number,
    });
    await sb.control.advanceClock(2);
    const { orders } = await client.getAnalytics([springId, autumnId]);
    const [spring, autumn] = orders;
    expect(spring?.orderStatus).toBe("Mailed");
    expect((spring?.delivered ?? 0) + (spring?.inTransit ?? 0) + (spring?.localFacility ?? 0)).toBe(2);

    requests.length = 0;
    await refreshOnce(t);
    expect(requests.filter((r) => / GET \/v1\/order\/analytics\?/.test(r))).toHaveLength(1);
    expect(orderOutputs()).toEqual({
      spring: { orderId: springId, delivery: counts(spring), qrScans: 3, lastScan: spring?.qrCode?.lastScan },
      autumn: { orderId: autumnId, delivery: counts(autumn), qrScans: 0, lastScan: null },
    });

    // refresh does not run the program: the stack's outputs follow on the next up, which changes nothing.
    const next = await upOnce(t);
    expect(next.summary.resourceChanges).toEqual({ same: expect.any(Number) });
    expect(next.outputs.spring?.value).toMatchObject({ delivery: counts(spring), qrScans: 3 });
    expect(next.outputs.autumn?.value).toMatchObject({ delivery: counts(autumn), qrScans: 0 });

    // `pulumi refresh --run-program` runs the program too: the stack's outputs follow at once.
    await client.recordQrScan({
      orderId: springId,
      statisticName: 1,
      statisticValue: "2",
      orderRecipientId: ada?.id as number,
    });
    await sb.control.advanceClock(2);
    await refreshOnce(t, { runProgram: true });
    expect(orderOutputs().spring?.qrScans).toBe(5);
    expect(stateOutputs(t).spring?.value).toMatchObject({ qrScans: 5 });
  });

  it("directmail status prints every campaign's order of the stack, or the ones named", async () => {
    const ids = orderOutputs();
    const { orders } = await client.getAnalytics([
      ids.autumn?.orderId as number,
      ids.spring?.orderId as number,
    ]);
    const delivery = (e: OrderAnalyticsEntry | undefined) =>
      [
        `${e?.delivered}/2 delivered`,
        ...(
          [
            [e?.inTransit, "in transit"],
            [e?.localFacility, "at the local facility"],
          ] as const
        )
          .filter(([n]) => Number(n) > 0)
          .map(([n, words]) => `${n} ${words}`),
      ].join(", ");
    const paid = (e: OrderAnalyticsEntry | undefined) => e?.paidDate?.slice(0, 10);
    const [autumn, spring] = orders;
    const all = await directmail("status");
    expect(all.code).toBe(0);
    expect(all.stdout).toBe(
      [
        "ORDER  CAMPAIGN  STATUS  PAID        SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${autumn?.orderId}  autumn    Mailed  ${paid(autumn)}  0      5.00 USD  1             ${delivery(autumn)}`,
        `${spring?.orderId}  spring    Mailed  ${paid(spring)}  5      5.00 USD  1             ${delivery(spring)}`,
        "",
      ].join("\n"),
    );
    expect(all.stderr).toContain('directmail:apiKey of stack "e2e"');
    const named = JSON.parse((await directmail("status", "autumn", "--json")).stdout);
    expect(named).toMatchObject([
      { orderId: autumn?.orderId, campaign: "autumn", status: "Mailed", qrScans: { total: 0 } },
    ]);
    const unknown = await directmail("status", "winter");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toBe(
      'directmail: no campaign "winter" in stack "e2e" (its campaigns: autumn, spring); give a campaign name or an order id\n',
    );
  });
});
