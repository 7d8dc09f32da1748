/**
 * What a user reads about recipient rows, under the real pulumi CLI and the built `directmail` CLI,
 * in a campaign repository deployed to the sandbox:
 * - a row with no house number: `validate` names it and its reason, and the review predicts the drop
 *   and refuses the change before merge for maxDroppedPercent (exit 1);
 * - a `;`-separated recipients file: `validate` and `pulumi preview` say once what to write, and with
 *   `delimiter: ";"` it deploys;
 * - a recipient change of a paid order is refused naming the keys that changed and the way out;
 * - `directmail scans import` names recipients by campaign and key, and the sandbox records each
 *   scan against the right recipient.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Review } from "../../cli/review/model";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { directmailIn, gitIn } from "./support/commands";
import { previewOnce, upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createTestStack, type TestStack } from "./support/pulumi";

const HEADER = "customerId,firstName,lastName,address1,city,state,zipCode";
const SPRING = [
  HEADER,
  "C-1,Grace,Hopper,1 Compiler Way,Arlington,VA,22202",
  "C-2,Alan,Turing,7 Enigma Road,Portland,OR,97205",
  "C-3,Ada,Lovelace,12 Analytical St,Springfield,IL,62701",
  "",
].join("\n");
const PAID = [
  HEADER,
  "P-1,Hedy,Lamarr,5 Frequency Way,Boulder,CO,80302",
  "P-2,Edsger,Dijkstra,2 Shortest Path Ln,Austin,TX,78701",
  "",
].join("\n");
const EURO = [
  "customerId;firstName;lastName;address1;city;state;zipCode",
  "E-1;Barbara;Liskov;4 Substitution Sq;Cambridge, MA;MA;02139",
  "E-2;Donald;Knuth;8 Volume Blvd;Stanford;CA;94305",
  "",
].join("\n");

/** A campaign keyed by customerId, its recipients in `file`, with these recipients settings. */
const campaign = (name: string, file: string, recipients: string[] = [], pay = false) =>
  campaignYaml(name, templateId, { file, keyColumn: "customerId", recipients, pay });

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let env: NodeJS.ProcessEnv;
const orders: Record<string, number> = {};

const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env }, ...args);
const git = (...args: string[]) => gitIn(t.workDir, ...args);

/** The recipients of an order at the sandbox: id by first name. */
async function idsByName(orderId: number): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  for await (const r of client.iterateRecipients(orderId)) ids[r.personal.firstName ?? ""] = r.id;
  return ids;
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "rows@example.com", balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("rows", {
    from: ["Pulumi.yaml", "program"],
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      campaignsDir: { value: "campaigns" },
    },
  });
  env = { ...t.env };
  fs.mkdirSync(path.join(t.workDir, "campaigns"));
  write("campaigns/spring.yaml", campaign("spring", "spring.csv", ["maxDroppedPercent: 10"]));
  write("campaigns/spring.csv", SPRING);
  write("campaigns/paid.yaml", campaign("paid", "paid.csv", [], true));
  write("campaigns/paid.csv", PAID);
  write(".gitignore", "review-*/\n");
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "spring as a draft, paid paid");
  const up = await upOnce(t);
  for (const [name, value] of Object.entries(up.outputs)) orders[name] = value.value.orderId;
}, 300_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("recipient rows under the real CLIs", { timeout: 300_000 }, () => {
  it("a row without a house number: validate names it; the review predicts the drop and fails maxDroppedPercent before merge", async () => {
    write("campaigns/spring.csv", `${SPRING}C-4,Linus,Torvalds,Kernel Street,Portland,OR,97205\n`);
    const validated = await directmail("validate", "campaigns");
    expect(validated.code).toBe(1);
    expect(validated.stderr).toBe(
      [
        "campaigns/spring.csv:5:1: warning: the service will drop this row: ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number",
        "campaigns/spring.yaml:11:24: spec.recipients.maxDroppedPercent: the service will drop 1 of 4 recipients (25.0%), more than maxDroppedPercent 10: row 5 (ADDRESS_NOT_VALID 1); fix or remove those rows, or raise maxDroppedPercent",
        "checked 2 campaign files: 1 valid, 1 with problems (1 problem); the service will drop 1 recipient (the warnings above)",
        "",
      ].join("\n"),
    );

    const before = await client.getOrder(orders.spring as number);
    const review = await directmail("review", "--base", "main", "--out", "review-1");
    expect(review.code, review.stderr).toBe(1);
    const markdown = fs.readFileSync(path.join(t.workDir, "review-1/review.md"), "utf8");
    const json = JSON.parse(fs.readFileSync(path.join(t.workDir, "review-1/review.json"), "utf8")) as Review;
    const lines = markdown.split("\n");
    expect(lines).toContain(
      "| Campaign | Action | Recipients (+ added − removed ~ changed) | Accepted / dropped (after the change; now) | Price | ⚠ |",
    );
    expect(lines).toContain(
      "| **spring** | update | +1 −0 ~0 | 3 / 1 (ADDRESS_NOT_VALID 1) after the change; now 3 / 0 | — | ❌ 1 problem |",
    );
    expect(lines).toContain(
      "- **spring**: after this change the service will drop 1 of 4 recipients (25.0%), more than maxDroppedPercent 10: " +
        "row 5 (ADDRESS_NOT_VALID 1): merged, `pulumi up` fails on it. Fix or remove those rows, or raise maxDroppedPercent.",
    );
    expect(lines).toContain(
      "- After this change (predicted by the service's address rules): 3 accepted, 1 dropped (row 5: " +
        "`ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number` 1)",
    );
    expect(lines).toContain("- On the draft now (current): 3 accepted, 0 dropped");
    expect(json.validation).toEqual([]);
    expect(json.campaigns.find((c) => c.name === "spring")?.predicted).toEqual({
      declared: 4,
      dropped: 1,
      rows: [5],
      reasons: [
        { reason: "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number", count: 1 },
      ],
    });
    // Keys and rows only: no name or address of the new row.
    for (const personal of ["Linus", "Torvalds", "Kernel"]) expect(markdown).not.toContain(personal);
    expect(await client.getOrder(orders.spring as number)).toEqual(before);
    write("campaigns/spring.csv", SPRING);
  });

  it("a `;`-separated file: validate and pulumi preview say once what to write; with delimiter it deploys", async () => {
    write("campaigns/euro.yaml", campaign("euro", "euro.csv"));
    write("campaigns/euro.csv", EURO);
    const advice =
      'this file looks separated by ";"; write delimiter: ";" (an option of the recipients, beside file) or save it with commas';
    const validated = await directmail("validate", "campaigns");
    expect(validated).toMatchObject({
      code: 1,
      stderr: [
        `campaigns/euro.csv:1:1: ${advice}`,
        "checked 3 campaign files: 2 valid, 1 with problems (1 problem)",
        "",
      ].join("\n"),
    });
    const preview = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(preview.failed).toBe(true);
    expect(preview.output.split(advice)).toHaveLength(2);
    expect(preview.output).toContain(`campaigns/euro.csv:1:1: ${advice}`);
    expect(preview.output).not.toContain("more problems");

    write("campaigns/euro.yaml", campaign("euro", "euro.csv", ['delimiter: ";"']));
    expect((await directmail("validate", "campaigns")).code).toBe(0);
    const up = await upOnce(t);
    orders.euro = up.outputs.euro?.value.orderId as number;
    expect(Object.keys(await idsByName(orders.euro)).sort()).toEqual(["Barbara", "Donald"]);
    const cities: string[] = [];
    for await (const r of client.iterateRecipients(orders.euro)) cities.push(r.address.city ?? "");
    expect(cities.sort()).toEqual(["CAMBRIDGE MA", "STANFORD"]);
  });

  it("a recipient change of a paid order is refused, naming the keys that changed and the way out", async () => {
    const status = (await client.getOrder(orders.paid as number))?.orderStatus;
    write(
      "campaigns/paid.csv",
      `${PAID.replace("2 Shortest Path Ln", "3 Shortest Path Ln")}P-3,Grace,Hopper,1 Compiler Way,Arlington,VA,22202\n`,
    );
    const { output, failed } = await run((onOutput) => previewOnce(t, { onOutput }));
    expect(failed).toBe(true);
    expect(
      diagnostics(output)["pulumi-nodejs:dynamic/directmail:OrderRecipients (paid-recipients):"],
    ).toEqual([
      `error: Order ${orders.paid} is "${status}": its recipients cannot change (declared 2, now 3; added (customerId): ` +
        "P-3; changed (customerId): P-2), because the service changes recipients only in Draft, Edits Needed, Needs " +
        "Edits. Put the recipient list back as it was. To mail the changed list, declare it as a new campaign (a new " +
        "Order), and keep this campaign as it was or remove it: an order past draft stays at the service " +
        "(`retain: true` keeps any order there).",
    ]);
    for (const personal of ["Grace", "Hopper", "Shortest"]) expect(output).not.toContain(personal);
    write("campaigns/paid.csv", PAID);
  });

  it("scans import names recipients by campaign and key: each scan is recorded against that recipient", async () => {
    write(
      "scans.csv",
      ["campaign,key,statisticValue", "spring,C-2,3", "paid,P-1,1", "spring,C-9,1", "autumn,A-1,1", ""].join(
        "\n",
      ),
    );
    const refused = await directmail("scans", "import", "scans.csv");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      [
        'scans.csv:4: key: key "C-9" is not a customerId of campaign "spring"; check the value',
        'scans.csv:5: campaign: the stack has no campaign "autumn" with recipients',
        "2 problems in scans.csv; nothing was sent: fix them and import the file again",
        "",
      ].join("\n"),
    );
    expect(sb.sandbox.store.all("SELECT * FROM statistics")).toEqual([]);

    write("scans.csv", ["campaign,key,statisticValue", "spring,C-2,3", "paid,P-1,1", ""].join("\n"));
    const imported = await directmail("scans", "import", "scans.csv");
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.split("\n")[0]).toBe(
      `recorded 2 scan records from scans.csv (orders ${orders.spring}, ${orders.paid}); the service applies them shortly`,
    );
    const spring = await idsByName(orders.spring as number);
    const paid = await idsByName(orders.paid as number);
    const recorded = sb.sandbox.store.all<{ order_id: number; recipient_id: number; value: number }>(
      "SELECT order_id, recipient_id, value FROM statistics ORDER BY value DESC",
    );
    expect(recorded).toEqual([
      { order_id: orders.spring, recipient_id: spring.Alan, value: 3 },
      { order_id: orders.paid, recipient_id: paid.Hedy, value: 1 },
    ]);
  });
});
