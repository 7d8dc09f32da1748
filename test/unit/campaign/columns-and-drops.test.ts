/**
 * A campaign file over a spreadsheet export: its key column named as the headers are, its extra
 * columns left out with `ignoreColumns`, and the rows the service will drop warned of together with
 * the other rows' problems, so that one edit fixes both.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type CampaignProblem, loadCampaignFiles, recipientListOf } from "../../../provider/campaign/loader";
import { fileCampaign, inlineCampaign, tempDir } from "./fixtures";

const tmp = tempDir("directmail-columns-");
afterAll(tmp.remove);

const at = (problems: CampaignProblem[], file: string) =>
  problems
    .filter((p) => p.file === file)
    .map((p) => `${p.line}:${p.column}: ${p.warning ? "warning: " : ""}${p.message}`);

const EXPORT =
  "Customer ID,First Name,Last Name,Address,City,State,Zip,Phone\n" +
  "C-1,Ada,Lovelace,12 Analytical St,London,KY,40741,555-0100\n" +
  "C-2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202,555-0101\n";

const withOptions = (name: string, ...options: string[]) =>
  fileCampaign(name, "export.csv", "customerId") + options.map((o) => `    ${o}\n`).join("");

describe("a spreadsheet export as the recipients file", () => {
  it("keyColumn: customerId reads the column Customer ID; ignoreColumns leaves Phone out", async () => {
    tmp.write("export/export.csv", EXPORT);
    const file = tmp.write("export/spring.yaml", withOptions("spring", "ignoreColumns: [Phone]"));
    const loaded = await loadCampaignFiles([file]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.campaigns[0]?.document.spec.recipients.ignoreColumns).toEqual(["Phone"]);
    expect(recipientListOf(loaded.campaigns[0] as never)?.set?.size).toBe(2);
  });

  it("without ignoreColumns, the extra column is one problem saying what to write", async () => {
    const csv = tmp.write("extra/export.csv", EXPORT);
    const file = tmp.write("extra/spring.yaml", withOptions("spring"));
    const loaded = await loadCampaignFiles([file]);
    expect(at(loaded.problems, csv)).toEqual([
      '1:1: unknown column "Phone": not a recipient field; rename it if it is misspelled, or leave it out with ' +
        'ignoreColumns: ["Phone"] (an option of the recipients, beside file)',
    ]);
  });

  it("ignoreColumns that names the key column, by any spelling, is a problem at ignoreColumns", async () => {
    tmp.write("both/export.csv", EXPORT);
    const file = tmp.write("both/spring.yaml", withOptions("spring", "ignoreColumns: [Phone, customer_id]"));
    const loaded = await loadCampaignFiles([file]);
    expect(at(loaded.problems, file)).toEqual([
      '11:20: spec.recipients.ignoreColumns: "customer_id" is the key column (keyColumn): it identifies each ' +
        "recipient and cannot be ignored",
    ]);
  });
});

describe("rows the service will drop, while other rows have problems", () => {
  it("are warned of beside the problems of a CSV file", async () => {
    const csv = tmp.write(
      "mixed/people.csv",
      "customerId,firstName,address1,city,state,zipCode\n" +
        "c1,Ada,12 Analytical St,,KY,40741\n" + // no city: a problem
        "c2,Grace,1 Compiler Way,Arlington,VA,2202\n" + // a ZIP of 4 digits: dropped
        "c3,Alan,Enigma Road,Portland,OR,97205\n", // no house number: dropped
    );
    const file = tmp.write("mixed/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
    const loaded = await loadCampaignFiles([file]);
    expect(at(loaded.problems, csv)).toEqual(["2:1: city: city is required"]);
    expect(at(loaded.warnings, csv)).toEqual([
      "3:1: warning: the service will drop this row: ADDRESS_NOT_VALID: address.zipCode: a ZIP code of 4 digits: " +
        "a spreadsheet may have dropped its leading zero (format the column as text and write all 5 digits)",
      "4:1: warning: the service will drop this row: ADDRESS_NOT_VALID: address.address1: address1 has no primary " +
        "(house) number",
    ]);
    expect(loaded.campaigns).toEqual([]);
  });

  it("are warned of beside the problems of inline recipients", async () => {
    const file = tmp.write(
      "mixed/inline.yaml",
      `${inlineCampaign("inline").replace("12 Frequency Way", "Frequency Way")}      - firstName: Grace\n        city: Arlington\n        state: VA\n        zipCode: "22202"\n`,
    );
    const loaded = await loadCampaignFiles([file]);
    expect(at(loaded.problems, file)).toEqual([
      "15:9: spec.recipients.inline[1].address1: address1 is required",
    ]);
    expect(at(loaded.warnings, file)).toEqual([
      "10:9: warning: spec.recipients.inline[0]: the service will drop this recipient: ADDRESS_NOT_VALID: " +
        "address.address1: address1 has no primary (house) number",
    ]);
  });
});
