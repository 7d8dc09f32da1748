/**
 * `directmail validate --online`, `directmail status` and `directmail scans import` as a user runs
 * them (the built bin) against a sandbox: the exact output, and the sandbox's own records.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";

const bin = path.resolve(__dirname, "../../../bin/directmail.js");
const DAY = 86_400;
let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let env: NodeJS.ProcessEnv;
let postcard: number;
let letter: number;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-data-cli-"));

function run(...args: string[]) {
  return promisify(execFile)(process.execPath, [bin, ...args], { env, cwd: dir });
}
/** Runs a command expected to fail; its exit code and both streams. */
async function fails(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    await run(...args);
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
  throw new Error(`directmail ${args.join(" ")} succeeded`);
}
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

const people = [
  {
    firstName: "Ada",
    lastName: "Lovelace",
    address1: "1 Main St",
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  },
  {
    firstName: "Grace",
    lastName: "Hopper",
    address1: "107 Oak Avenue",
    city: "Madison",
    state: "WI",
    zipCode: "53703",
  },
  {
    firstName: "Alan",
    lastName: "Turing",
    address1: "114 Maple Drive",
    city: "Portland",
    state: "OR",
    zipCode: "97205",
  },
];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "analyst@example.com", balance: 100 }));
  ({ id: postcard } = await sb.control.createTemplate({
    apiKey,
    name: "Postcard",
    hasQr: true,
    requiredMergeFields: ["custom1"],
  }));
  ({ id: letter } = await sb.control.createTemplate({ apiKey, name: "Letter" }));
  await sb.control.uploadFont(apiKey, "My Hand");
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  env = { ...process.env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: apiKey };
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const campaign = (name: string, order: string, recipients: string) =>
  [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    ...order.split("\n").map((l) => `    ${l}`),
    "  recipients:",
    ...recipients.split("\n").map((l) => `    ${l}`),
    "",
  ].join("\n");

describe("directmail validate --online", () => {
  it("passes campaign files that fit the account, and says which account it asked", async () => {
    write(
      "good.yaml",
      campaign(
        "good",
        `templateId: ${postcard}\nhandwritingFont: neat print\nuseQr: true`,
        'inline:\n  - { firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, zipCode: "62701", custom1: Hello }',
      ),
    );
    const { stdout } = await run("validate", "--online", "good.yaml");
    expect(stdout).toBe(`checked 1 campaign file: 1 valid (1 campaign), against the account at ${sb.url}\n`);
  });

  it("reports a wrong template, font, QR setting and missing merge field at its line, naming what to do", async () => {
    write(
      "list.csv",
      "firstName,lastName,address1,city,state,zipCode,custom1\nAda,L,1 Main St,Springfield,IL,62701,\nBo,M,2 Main St,Springfield,IL,62701,Hi\n",
    );
    write(
      "bad.yaml",
      [
        campaign(
          "letter",
          `templateId: ${letter}\nuseQr: true\nqrUrl: https://example.com/x\nhandwritingFont: My Hand`,
          "file: list.csv",
        ),
        "---",
        campaign("postcard", `templateId: ${postcard}`, "file: list.csv"),
        "---",
        campaign("nothing", "templateId: 99999", "file: list.csv"),
      ].join("\n"),
    );
    const { code, stdout, stderr } = await fails("validate", "--online", "bad.yaml", "good.yaml");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    const styles = "Casual Cursive, Neat Print, Bold Marker, Elegant Script, Quick Note";
    expect(stderr).toBe(
      [
        `bad.yaml:8:12: spec.order.useQr: template ${letter} ("Letter") has no QR code, and the service refuses useQr for it; remove useQr, or choose a template with a QR code`,
        `bad.yaml:9:12: spec.order.qrUrl: template ${letter} ("Letter") has no QR code, so the URL would be printed nowhere; remove qrUrl, or choose a template with a QR code`,
        `bad.yaml:10:22: spec.order.handwritingFont: "My Hand" is a font uploaded to the account, which orders cannot use; choose one of the service's handwriting styles: ${styles}`,
        `bad.yaml:23:11: spec.recipients.file: 1 of 2 recipients have no custom1 (row 2), which template ${postcard} ("Postcard") prints; fill in custom1 for every recipient, or choose a template that does not print it`,
        `bad.yaml:32:17: spec.order.templateId: 99999 is not a template of this account; use one of the account's templates: ${postcard} "Postcard", ${letter} "Letter"`,
        `checked 2 campaign files: 1 valid, 1 with problems (5 problems), against the account at ${sb.url}`,
        "",
      ].join("\n"),
    );
  });

  it("names an order given as a template, and fails with one line when the service cannot be reached", async () => {
    const { orderId } = await client.createOrder({ templateId: letter });
    write(
      "order.yaml",
      campaign(
        "order",
        `templateId: ${orderId}`,
        'inline:\n  - { firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, zipCode: "62701" }',
      ),
    );
    const { stderr } = await fails("validate", "--online", "order.yaml");
    expect(stderr.split("\n")[0]).toBe(
      `order.yaml:7:17: spec.order.templateId: ${orderId} is an order made from template ${letter}, not a template; use one of the account's templates: ${postcard} "Postcard", ${letter} "Letter"`,
    );
    const offline = await promisify(execFile)(process.execPath, [bin, "validate", "order.yaml"], {
      env,
      cwd: dir,
    });
    expect(offline.stdout).toBe("checked 1 campaign file: 1 valid (1 campaign)\n");
    const down = await promisify(execFile)(process.execPath, [bin, "validate", "--online", "order.yaml"], {
      env: { ...env, DIRECTMAIL_BASE_URL: "http://127.0.0.1:9" },
      cwd: dir,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(down).toMatchObject({ code: 1 });
    expect((down as { stderr: string }).stderr.trim().split("\n")).toHaveLength(1);
    expect((down as { stderr: string }).stderr).toMatch(/^directmail: .*127\.0\.0\.1:9/);
  });
});

describe("directmail status and scans import", () => {
  let orderId: number;
  let draftId: number;
  let recipientIds: number[];
  let paidDay: string;

  beforeAll(async () => {
    ({ orderId } = await client.createOrder({ templateId: postcard }));
    await client.appendRecipients(
      orderId,
      people.map(({ firstName, lastName, ...address }) =>
        newOrderRecipient({ address, personal: { firstName, lastName }, metadata: { custom1: "Hi" } }),
      ),
    );
    recipientIds = (await client.listRecipients(orderId)).recipients.map((r) => r.id);
    ({ orderId: draftId } = await client.createOrder({ templateId: letter }));
    await client.checkout(orderId, { postageType: "Standard", productionSpeed: "Normal" });
    paidDay = (await sb.control.advanceClock(5)).now.slice(0, 10);
  });

  it("shows a paid order not mailed yet, a draft and an id that is no order of the account", async () => {
    const { stdout, stderr } = await run("status", String(orderId), String(draftId), "999999");
    const expected = await client.getAnalytics([orderId]);
    const by = expected.orders[0]?.maxEstimatedDeliveredDate?.slice(0, 10);
    expect(stdout).toBe(
      [
        "ORDER   CAMPAIGN  STATUS                                   PAID        SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${orderId}   -         Ready For Production                     ${paidDay}  0      7.50 USD  1             3 pieces, not mailed yet (delivery expected by ${by})`,
        `${draftId}   -         Draft                                    -           0      0.00 USD  0             0 pieces, not mailed`,
        "999999  -         NotFound (not an order of this account)  -           -      -         -             -",
        "",
      ].join("\n"),
    );
    expect(stderr).toContain("API key from DIRECTMAIL_API_KEY");
  });

  it("refuses a scans file with problems, one line each, and sends nothing", async () => {
    write(
      "scans.csv",
      [
        "orderId,orderRecipientId,statisticValue",
        `${orderId},${recipientIds[0]},2`,
        `${orderId},${recipientIds[1]}, 7`,
        `${orderId},${recipientIds[1]},1.5`,
        `${orderId},999999,1`,
        `abc,${recipientIds[2]},1`,
        "",
      ].join("\n"),
    );
    const { code, stdout, stderr } = await fails("scans", "import", "scans.csv");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      [
        'scans.csv:3: statisticValue: " 7" is not a whole number from 0 to 2147483647 written in digits only',
        'scans.csv:4: statisticValue: "1.5" is not a whole number from 0 to 2147483647 written in digits only',
        'scans.csv:6: orderId: must be a whole number; found "abc"',
        "3 problems in scans.csv; nothing was sent: fix them and import the file again",
        "",
      ].join("\n"),
    );
    // The ids are checked at the service once every line reads well.
    write(
      "ids.jsonl",
      [
        JSON.stringify({ orderId, orderRecipientId: recipientIds[0], statisticValue: 2 }),
        JSON.stringify({ orderId, orderRecipientId: 999999, statisticValue: "1" }),
        JSON.stringify({ orderId: 888888, orderRecipientId: recipientIds[0], statisticValue: "1" }),
      ].join("\n"),
    );
    const ids = await fails("scans", "import", "ids.jsonl");
    expect(ids.stderr).toBe(
      [
        `ids.jsonl:2: orderRecipientId: 999999 is not a recipient of order ${orderId}; check the id`,
        "ids.jsonl:3: orderId: 888888 is not an order of this account; check the id",
        "2 problems in ids.jsonl; nothing was sent: fix them and import the file again",
        "",
      ].join("\n"),
    );
    const stored = sb.sandbox.store.all<{ n: number }>("SELECT count(*) AS n FROM statistics");
    expect(stored).toEqual([{ n: 0 }]);
  });

  it("refuses a binary scans file in one line at its first byte that is not text, and sends nothing", async () => {
    // A spreadsheet saved under a .csv name, then a JSON Lines file with a NUL in its second line.
    fs.writeFileSync(path.join(dir, "sheet.csv"), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]));
    write(
      "nul.jsonl",
      `${JSON.stringify({ orderId, orderRecipientId: recipientIds[0], statisticValue: "1" })}\n{"x\u0000"}\n`,
    );
    const sheet = await fails("scans", "import", "sheet.csv");
    expect([sheet.code, sheet.stdout, sheet.stderr]).toEqual([
      1,
      "",
      "directmail: sheet.csv:1:3: not text: a control character (\\u0003) here; remove it, or save the file as UTF-8 text\n",
    ]);
    const nul = await fails("scans", "import", "nul.jsonl");
    expect(nul.stderr).toBe(
      "directmail: nul.jsonl:2:4: not text: a control character (\\u0000) here; remove it, or save the file as UTF-8 text\n",
    );
    const stored = sb.sandbox.store.all<{ n: number }>("SELECT count(*) AS n FROM statistics");
    expect(stored).toEqual([{ n: 0 }]);
  });

  it("records every scan of a good file, which the service then counts", async () => {
    write(
      "scans.csv",
      [
        "orderId,orderRecipientId,statisticValue,statisticName",
        `${orderId},${recipientIds[0]},2,`,
        `${orderId},${recipientIds[1]},1,3`,
        `${orderId},${recipientIds[0]},1,`,
        "",
      ].join("\n"),
    );
    const { stdout } = await run("scans", "import", "scans.csv");
    expect(stdout.split("\n")[0]).toBe(
      `recorded 3 scan records from scans.csv (order ${orderId}); the service applies them shortly`,
    );
    const stored = sb.sandbox.store.all<{ recipient_id: number; value: number; data: string }>(
      "SELECT recipient_id, value, data FROM statistics ORDER BY id",
    );
    expect(stored.map((s) => [s.recipient_id, s.value, JSON.parse(s.data).statisticName])).toEqual([
      [recipientIds[0], 2, 1],
      [recipientIds[1], 1, 3],
      [recipientIds[0], 1, 1],
    ]);
    await sb.control.advanceClock(2);
    const analytics = await client.getAnalytics([orderId]);
    expect(analytics.orders[0]?.qrCode?.totalScans).toBe(4);
  });

  it("reads a semicolon-separated scans file, as a spreadsheet exports it, and names every field an unknown one could be", async () => {
    const before = sb.sandbox.store.all<{ n: number }>("SELECT count(*) AS n FROM statistics")[0]?.n ?? 0;
    write(
      "semicolons.csv",
      // A value of 0: the order's count of scans, which the next test reads, stays as it is.
      ["orderId;orderRecipientId;statisticValue", `${orderId};${recipientIds[2]};0`, ""].join("\n"),
    );
    const { stdout } = await run("scans", "import", "semicolons.csv");
    expect(stdout.split("\n")[0]).toBe(
      `recorded 1 scan record from semicolons.csv (order ${orderId}); the service applies them shortly`,
    );
    const stored = sb.sandbox.store.all<{ recipient_id: number; value: number }>(
      "SELECT recipient_id, value FROM statistics ORDER BY id",
    );
    expect(stored.slice(before)).toEqual([{ recipient_id: recipientIds[2], value: 0 }]);

    write(
      "phone.csv",
      ["orderId,orderRecipientId,statisticValue,phone", `${orderId},${recipientIds[2]},1,555`, ""].join("\n"),
    );
    const unknown = await fails("scans", "import", "phone.csv");
    expect(unknown.stderr).toBe(
      [
        'phone.csv:2: unknown field "phone": the fields are orderId, orderRecipientId, statisticValue and ' +
          "statisticName, or campaign and key in place of orderId and orderRecipientId",
        "1 problem in phone.csv; nothing was sent: fix them and import the file again",
        "",
      ].join("\n"),
    );
  });

  it("shows the delivery progress and the scans once the pieces travel, as a table and as JSON", async () => {
    // Mailed 3 days after Ready For Production; Standard pieces arrive 3 to 5 days later.
    await sb.control.advanceClock(3 * DAY + 2 * 3600 + 4 * DAY);
    const [entry] = (await client.getAnalytics([orderId])).orders;
    const { stdout } = await run("status", String(orderId), "--recipient", "Ada Lovelace");
    expect(entry?.orderStatus).toBe("Mailed");
    const delivered = entry?.delivered ?? -1;
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("ORDER  CAMPAIGN  STATUS  PAID        SCANS  CHARGED   TRANSACTIONS  DELIVERY");
    expect(lines[1]).toBe(
      `${orderId}  -         Mailed  ${paidDay}  4      7.50 USD  1             ${delivered}/3 delivered` +
        [
          [entry?.inTransit, "in transit"],
          [entry?.localFacility, "at the local facility"],
        ]
          .filter(([n]) => Number(n) > 0)
          .map(([n, words]) => `, ${n} ${words}`)
          .join(""),
    );
    const ada = await client.getDeliveryStatus(orderId, { firstName: "Ada", lastName: "Lovelace" });
    expect(lines[2]).toBe(
      `order ${orderId}, recipient ${recipientIds[0]} (Ada Lovelace): ${ada.deliveryStatus} since ${ada.updatedDate}`,
    );
    expect(delivered).toBeGreaterThan(0);

    const json = JSON.parse((await run("status", String(orderId), "--json")).stdout);
    expect(json).toEqual([
      {
        orderId,
        campaign: null,
        status: "Mailed",
        found: true,
        paidDate: entry?.paidDate,
        delivery: {
          totalCards: 3,
          waitingUSPS: 0,
          mailed: 0,
          inTransit: entry?.inTransit,
          localFacility: entry?.localFacility,
          delivered,
          undeliverable: 0,
          estimatedMin: entry?.minEstimatedDeliveredDate,
          estimatedMax: entry?.maxEstimatedDeliveredDate,
        },
        qrScans: { total: 4, lastScan: entry?.qrCode?.lastScan },
        transactions: {
          count: 1,
          charged: 7.5,
          credited: 0,
          entries: [expect.objectContaining({ amount: 7.5, isCredit: false })],
        },
      },
    ]);
  });

  it("stops at a failed record and lists exactly the lines not recorded", async () => {
    const before = sb.sandbox.store.all<{ id: number }>("SELECT id FROM statistics").length;
    // Each line's statisticValue is its line number, to tell which ones the sandbox stored.
    const lines = Array.from({ length: 12 }, (_, i) => `${orderId},${recipientIds[i % 3]},${i + 2}`);
    write("more.csv", ["orderId,orderRecipientId,statisticValue", ...lines, ""].join("\n"));
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order-recipients-statistics",
      kind: "status",
      status: 500,
      times: 1,
    });
    const { code, stderr } = await fails("scans", "import", "more.csv");
    await sb.control.clearFaults();
    expect(code).toBe(1);
    const said =
      /^directmail: line (\d+): .*\. Recorded (\d+) of 12 scan records; not recorded: lines? ([\d, ]+)\. Import only those lines again: a recorded scan sent again counts twice\n$/.exec(
        stderr,
      );
    expect(said, stderr).not.toBeNull();
    const [, failed, recorded, notRecorded] = said as RegExpExecArray;
    const stored = sb.sandbox.store
      .all<{ value: number }>("SELECT value FROM statistics ORDER BY id")
      .slice(before)
      .map((s) => s.value);
    const left = (notRecorded as string).split(", ").map(Number);
    expect(stored).toHaveLength(Number(recorded));
    expect(left).toContain(Number(failed));
    expect([...stored, ...left].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
  });

  it("needs ids outside a Pulumi project", async () => {
    const { stderr } = await fails("status");
    expect(stderr).toMatch(
      /^directmail: name the orders by id, or run in a Pulumi project with a stack selected/,
    );
  });
});
