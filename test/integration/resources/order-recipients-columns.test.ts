/**
 * OrderRecipients declared in a program over a spreadsheet export: `keyColumn` finds the column
 * "Customer ID", `ignoreColumns` leaves Phone out (and names the option when it is missing), and a
 * key column in `ignoreColumns` is refused; what is created at the sandbox has no phone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { columnKey } from "../../../provider/recipients/index";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, type Provider, projectFolder } from "./support";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let recipients: Provider;
const dir = projectFolder("directmail-recipients-columns-");

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createAccount({ balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  recipients = await configuredProvider("OrderRecipients", sb, apiKey);
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

const file = path.join(dir, "export.csv");
fs.writeFileSync(
  file,
  "Customer ID,First Name,Last Name,Address,City,State,Zip,Phone\n" +
    "C-1,Ada,Lovelace,12 Analytical St,Springfield,IL,62701,555-0100\n" +
    "C-2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202,555-0101\n",
);

describe("OrderRecipients over a spreadsheet export", { timeout: 60_000 }, () => {
  it("check names ignoreColumns for the extra column; with it, create sends the rows by their keys, without the phones", async () => {
    const orderId = (await client.createOrder({ templateId })).orderId;
    const declared = { orderId, file, keyColumn: "customerId" };
    expect((await recipients.check({}, declared)).failures).toEqual([
      {
        property: "file",
        reason:
          `${file} row 1: unknown column` +
          ' "Phone": not a recipient field; rename it if it is misspelled, or leave ' +
          'it out with ignoreColumns: ["Phone"] (an option of the recipients, beside file)',
      },
    ]);
    const checked = await recipients.check({}, { ...declared, ignoreColumns: ["Phone"] });
    expect(checked.failures ?? []).toEqual([]);
    expect(checked.inputs).toMatchObject({ ignoreColumns: ["Phone"], declaredCount: 2 });
    const { outs } = await recipients.create(checked.inputs);
    expect(outs).toMatchObject({ acceptedCount: 2, droppedCount: 0 });
    const listed = (await client.listRecipients(orderId)).recipients;
    expect(listed.map((r) => r.metadata.custom6?.slice(0, 16))).toEqual([columnKey("C-1"), columnKey("C-2")]);
    expect(JSON.stringify(listed)).not.toMatch(/555-010\d/);
  });

  it("check refuses ignoreColumns that names the key column, by any spelling", async () => {
    const result = await recipients.check(
      {},
      { orderId: 1, file, keyColumn: "customerId", ignoreColumns: ["Phone", "Customer ID"] },
    );
    expect(result.failures).toEqual([
      {
        property: "ignoreColumns",
        reason:
          '"Customer ID" is the key column (keyColumn): it identifies each recipient and cannot be ignored',
      },
    ]);
  });
});
