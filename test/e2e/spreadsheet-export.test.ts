/**
 * A spreadsheet export as the recipients file, under the real pulumi CLI and the built `directmail`
 * CLI, with the repository's own program (a CampaignFolder) against the sandbox. The export has
 * "Customer ID", "First Name", "Zip" headers, an extra Phone column, and a ZIP code that lost its
 * leading zero (2134 for 02134):
 * - `keyColumn: customerId` finds the column "Customer ID";
 * - `validate` and the preview's one failure say once what to write for Phone (ignoreColumns), with
 *   the row the service will drop beside it, its ZIP named as one that lost its leading zero;
 * - a key column the header lacks is one line naming the columns found, not a line a row;
 * - with `ignoreColumns: [Phone]` it deploys: the sandbox holds the two good recipients under their
 *   keys, without the phone numbers, and the stack reports the third dropped for its ZIP code.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { columnKey } from "../../provider/recipients/index";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { directmailIn } from "./support/commands";
import { upOnce } from "./support/one-command";
import { diagnostics, run } from "./support/output";
import { createCampaignsStack, type TestStack } from "./support/pulumi";

const EXPORT = [
  "Customer ID,First Name,Last Name,Address,City,State,Zip,Phone",
  "C-1,Ada,Lovelace,12 Analytical St,Springfield,IL,62701,555-0100",
  "C-2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202,555-0101",
  "C-3,Edsger,Dijkstra,2 Shortest Path Ln,Boston,MA,2134,555-0102",
  "",
].join("\n");
const LOST_ZERO =
  "ADDRESS_NOT_VALID: address.zipCode: a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero " +
  "(format the column as text and write all 5 digits)";
const DROP_WARNING = `campaigns/export.csv:4:1: warning: the service will drop this row: ${LOST_ZERO}`;
const PHONE =
  'campaigns/export.csv:1:1: unknown column "Phone": not a recipient field; rename it if it is misspelled, or ' +
  'leave it out with ignoreColumns: ["Phone"] (an option of the recipients, beside file)';

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let env: Record<string, string>;

const campaign = (keyColumn: string, recipients: string[] = []) =>
  campaignYaml("export", templateId, { file: "export.csv", keyColumn, recipients });
const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env }, ...args);

/** The error lines of a failed preview's one failure, at the stack. */
const stackError = (output: string) =>
  Object.entries(diagnostics(output)).find(([heading]) => heading.startsWith("pulumi:pulumi:Stack"))?.[1];

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "export@example.com" }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createCampaignsStack("spreadsheet", { baseUrl: sb.url, apiKey });
  env = { ...t.env };
  write("campaigns/export.csv", EXPORT);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("a spreadsheet export under the real CLIs", { timeout: 300_000 }, () => {
  it("validate and the preview say once what to write for the extra column, the drop beside it; nothing is created", async () => {
    write("campaigns/export.yaml", campaign("customerId"));
    expect(await directmail("validate", "campaigns")).toEqual({
      code: 1,
      stdout: "",
      stderr: [DROP_WARNING, PHONE, "checked 1 campaign file: 0 valid, 1 with problems (1 problem)", ""].join(
        "\n",
      ),
    });

    const preview = await run((onOutput) => t.stack.preview({ onOutput }));
    expect(preview.failed).toBe(true);
    expect(stackError(preview.output)).toEqual([
      "error: the campaign files have problems; nothing was changed:",
      DROP_WARNING,
      PHONE,
    ]);
    expect(preview.output.split(PHONE)).toHaveLength(2);
    expect((await client.listOrders()).totalCount).toBe(0);
  });

  it("a key column the header lacks is one line naming the columns found, not a line a row", async () => {
    write("campaigns/export.yaml", campaign("clientId", ["ignoreColumns: [Phone]"]));
    expect(await directmail("validate", "campaigns")).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        'campaigns/export.csv:1:1: the key column "clientId" is not in the header, whose columns are "Customer ID", ' +
          '"First Name", "Last Name", "Address", "City", "State", "Zip", "Phone"; set keyColumn to the column that ' +
          "identifies each recipient (case, spaces, _ and - do not matter)",
        'campaigns/export.csv:1:1: unknown column "Customer ID": not a recipient field; rename it if it is ' +
          'misspelled, or leave it out with ignoreColumns: ["Customer ID"] (an option of the recipients, beside file)',
        "checked 1 campaign file: 0 valid, 1 with problems (2 problems)",
        "",
      ].join("\n"),
    });
  });

  it("with ignoreColumns: [Phone] it deploys: the sandbox holds the recipients by their keys, without the phones", async () => {
    write("campaigns/export.yaml", campaign("customerId", ["ignoreColumns: [Phone]"]));
    expect(await directmail("validate", "campaigns")).toEqual({
      code: 0,
      stdout:
        "checked 1 campaign file: 1 valid (1 campaign); the service will drop 1 recipient (the warnings above)\n",
      stderr: `${DROP_WARNING}\n`,
    });

    const up = await upOnce(t);
    const orderId = up.outputs.export?.value.orderId as number;
    expect(up.outputs.export?.value).toMatchObject({
      accepted: 2,
      dropped: 1,
      dropReasons: { [LOST_ZERO]: 1 },
      droppedSample: [{ row: 4, reason: LOST_ZERO }],
    });

    const listed = (await client.listRecipients(orderId)).recipients;
    expect(listed.map((r) => [r.personal.firstName, r.personal.lastName, r.address.zipCode])).toEqual([
      ["Ada", "Lovelace", "62701"],
      ["Grace", "Hopper", "22202"],
    ]);
    // Each under the key of its Customer ID, carried in custom6 (followed by its content digest).
    expect(listed.map((r) => r.metadata.custom6?.slice(0, 16))).toEqual([columnKey("C-1"), columnKey("C-2")]);
    // The service's listing and the stack's state file as stored.
    for (const stored of [JSON.stringify(listed), t.readStateFile().text])
      expect(stored).not.toMatch(/555-010\d/);

    // Deployed as declared: a second preview changes nothing.
    const again = await run((onOutput) => t.stack.preview({ onOutput, expectNoChanges: true }));
    expect(again.failed, again.output).toBe(false);
  });
});
