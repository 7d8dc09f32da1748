/**
 * The campaign loader with malformed files: every problem, with its exact line, column and
 * message, and nothing thrown.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CampaignProblem,
  formatProblems,
  type LoadedCampaign,
  listCampaignFiles,
  loadCampaignFiles,
  loadCampaignsDir,
  MAX_RECIPIENT_PROBLEMS,
  recipientListOf,
} from "../../../provider/campaign/loader";
import { fileCampaign, GOOD_CSV, inlineCampaign, tempDir } from "./fixtures";

const tmp = tempDir("directmail-loader-");
afterAll(tmp.remove);

/** Problems as `line:column: message` (the file checked apart), for exact comparisons. */
/** A path as the loader prints it by default: relative to the working directory when that is shorter. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== "" && relative.length < file.length ? relative : file;
}

function at(problems: CampaignProblem[], file: string): string[] {
  expect(problems.every((p) => p.file === file)).toBe(true);
  return problems.map((p) => `${p.line}:${p.column}: ${p.message}`);
}

describe("loading a valid campaign", () => {
  it("returns the document and the recipients file, absolute and relative to the campaign file", async () => {
    tmp.write("ok/lists/customers.csv", GOOD_CSV);
    const file = tmp.write(
      "ok/spring.yaml",
      [
        "# yaml-language-server: $schema=../schema/campaign.schema.json",
        "apiVersion: directmail/v1",
        "kind: Campaign",
        "metadata:",
        "  name: spring-sale",
        "spec:",
        "  order:",
        "    templateId: 10001",
        "  recipients:",
        "    file: lists/customers.csv",
        "    keyColumn: customerId",
        "  checkout:",
        "    postageType: Standard",
        "    productionSpeed: Normal",
        "",
      ].join("\n"),
    );
    const { campaigns, problems } = await loadCampaignFiles([path.relative(process.cwd(), file)]);
    expect(problems).toEqual([]);
    expect(campaigns).toEqual([
      {
        file,
        documentIndex: 0,
        recipientsFile: path.join(tmp.dir, "ok/lists/customers.csv"),
        predictedDrops: { declared: 2, dropped: 0, rows: [], reasons: [] },
        document: {
          apiVersion: "directmail/v1",
          kind: "Campaign",
          metadata: { name: "spring-sale" },
          spec: {
            order: { templateId: 10001 },
            recipients: { file: "lists/customers.csv", keyColumn: "customerId" },
            checkout: { postageType: "Standard", productionSpeed: "Normal" },
          },
        },
      },
    ]);
  });

  it("has no recipientsFile for inline recipients", async () => {
    const file = tmp.write("inline-ok.yaml", inlineCampaign("inline-ok"));
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(problems).toEqual([]);
    expect(campaigns).toHaveLength(1);
    expect(campaigns[0]).not.toHaveProperty("recipientsFile");
    expect(campaigns[0]?.document.spec.recipients.inline?.[0]?.zipCode).toBe("80302");
  });

  it("reads retain: true, and points at a retain that is not true or false", async () => {
    const kept = tmp.write("kept.yaml", `${inlineCampaign("kept")}  retain: true\n`);
    const loaded = await loadCampaignFiles([kept]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.campaigns[0]?.document.spec.retain).toBe(true);

    const wrong = tmp.write("kept-wrong.yaml", `${inlineCampaign("kept-wrong")}  retain: yes\n`);
    const { campaigns, problems } = await loadCampaignFiles([wrong]);
    expect(campaigns).toEqual([]);
    expect(at(problems, wrong)).toEqual(['15:11: spec.retain: must be true or false; found "yes"']);
  });
});

describe("YAML syntax errors", () => {
  it("are reported at the parser's positions, every one, and the document is not checked further", async () => {
    const file = tmp.write(
      "syntax.yaml",
      [
        "apiVersion: directmail/v1",
        "kind: Campaign",
        "metadata:",
        "  name: a: b", // line 4: an unquoted ": " inside a value
        "spec:",
        "\torder: {}", // line 6: a tab as indentation
        "",
      ].join("\n"),
    );
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, file)).toEqual([
      '4:9: YAML: Nested mappings are not allowed in compact mappings (put a value that contains ": " in quotes)',
      "6:1: YAML: Tabs are not allowed as indentation",
    ]);
  });

  it("counts the lines of a value the parser could not read, so later problems stay on their lines", async () => {
    // A stray word, then a comment: what follows is not read as YAML, and "b\n  c" (lines 3-4) is
    // one token in error whose line end the parser does not report. The ":" after c is on line 4.
    const lines = ["stray", "# a comment", "x: b", "  c: d"];
    const file = tmp.write("stray.yaml", `${lines.join("\n")}\n`);
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      '3:1: YAML: Unexpected scalar token in YAML stream: "x"',
      '3:2: YAML: Unexpected map-value-ind token in YAML stream: ":"',
      '3:4: YAML: Unexpected scalar token in YAML stream: "b\\n  c"',
      '4:4: YAML: Unexpected map-value-ind token in YAML stream: ":"',
      '4:6: YAML: Unexpected scalar token in YAML stream: "d"',
    ]);
  });

  it("reports a key written twice in one section", async () => {
    const file = tmp.write("dup-key.yaml", `${inlineCampaign("dup-key")}kind: Campaign\n`);
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual(["15:1: YAML: this key appears twice in the same section; keep one"]);
  });

  it("reports an alias without its anchor where the alias is, without throwing", async () => {
    const file = tmp.write(
      "alias.yaml",
      inlineCampaign("alias").replace("templateId: 10002", "templateId: *template"),
    );
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, file)).toEqual([
      "7:17: YAML: Unresolved alias (the anchor must be set before the alias): template",
    ]);
  });

  it("reports an unknown tag and does not load the document", async () => {
    const file = tmp.write(
      "tag.yaml",
      inlineCampaign("tagged").replace("templateId: 10002", "templateId: !ref 10002"),
    );
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, file)).toEqual(["7:17: YAML: Unresolved tag: !ref"]);
  });
});

describe("files saved on Windows", () => {
  it("load with a byte-order mark and CRLF line ends, with the same positions", async () => {
    const text = inlineCampaign("windows")
      .replace("templateId: 10002", "templateId: 0")
      .replace(/\n/g, "\r\n");
    const file = tmp.write("windows.yaml", `\uFEFF${text}`);
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual(["7:17: spec.order.templateId: must be greater than 0; found 0"]);
  });
});

describe("schema errors", () => {
  it("point at the offending value and say what is allowed", async () => {
    const file = tmp.write(
      "types.yaml",
      [
        "apiVersion: directmail/v2", // 1
        "kind: Campaign",
        "metadata:",
        "  name: Spring Sale", // 4
        "spec:",
        "  order:",
        "    templateId: ten", // 7
        "    useQr: yes", // 8: YAML 1.2 reads yes as text
        "    qrUrl: example.com", // 9
        "  recipients:",
        "    inline: []",
        "    maxDroppedPercent: 150", // 12
        "  checkout:",
        "    postageType: Express", // 14
        "    productionSpeed: Normal",
        "    holdUntilDate: 2026-05-01", // 16
        "  addressBook:",
        "    - address1: 5 Oven Road",
        "      city: Madison",
        "      state: WI",
        "      zip: 02134", // 21
        "",
      ].join("\n"),
    );
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, file)).toEqual([
      '1:13: apiVersion: must be directmail/v1; found "directmail/v2"',
      '4:9: metadata.name: name is lowercase letters, digits and dashes (at most 63), starting with a letter or digit; found "Spring Sale"',
      '7:17: spec.order.templateId: must be a whole number; found "ten"',
      '8:12: spec.order.useQr: must be true or false; found "yes"',
      '9:12: spec.order.qrUrl: must be a web address such as https://example.com/offer; found "example.com"',
      "12:24: spec.recipients.maxDroppedPercent: must be at most 100; found 150",
      '14:18: spec.checkout.postageType: must be one of Standard, FirstClass; found "Express"',
      '16:20: spec.checkout.holdUntilDate: must be a date and time with a time zone, such as 2026-05-01T09:00:00Z; found "2026-05-01"',
      '21:12: spec.addressBook[0].zip: must be text; found 2134; write it in quotes: "02134"',
    ]);
  });

  it("points at an empty value's key, and at a non-mapping document's start", async () => {
    const file = tmp.write(
      "empty-values.yaml",
      [
        "apiVersion: directmail/v1",
        "kind: Campaign",
        "metadata:",
        "  name: empty-values",
        "spec:",
        "---",
        "- a list",
        "",
      ].join("\n"),
    );
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      "5:1: spec: must be a section of key: value lines; found nothing (an empty value)",
      "7:1: the campaign: must be a section of key: value lines; found a list",
    ]);
  });

  it("reports each unknown key at the key, suggesting the near one and listing the allowed ones", async () => {
    const file = tmp.write(
      "unknown.yaml",
      inlineCampaign("unknown")
        .replace("templateId: 10002", "templateID: 10002\n    colour: blue")
        .replace("kind: Campaign", "kind: Campaign\nowner: marketing"),
    );
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      '3:1: unknown key "owner"; allowed keys: apiVersion, kind, metadata, spec',
      "8:5: spec.order: templateId is required (the template order the campaign's order is made from)",
      '8:5: spec.order: unknown key "templateID" (did you mean "templateId"?); allowed keys: templateId, useQr, qrUrl, handwritingFont, existingOrderId',
      '9:5: spec.order: unknown key "colour"; allowed keys: templateId, useQr, qrUrl, handwritingFont, existingOrderId',
    ]);
  });

  it("reports a missing key at its parent section, saying what to write", async () => {
    const file = tmp.write(
      "missing.yaml",
      [
        "kind: Campaign", // 1: apiVersion missing from the document
        "metadata:",
        "  description: no name", // 3: name missing from metadata
        "spec:",
        "  order:",
        "    templateId: 1",
        "  checkout:",
        "    postageType: Standard", // 8: productionSpeed missing
        "",
      ].join("\n"),
    );
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      "1:1: the campaign: apiVersion is required (write apiVersion: directmail/v1)",
      "3:3: metadata: name is required (names the campaign's resources: renaming it replaces them; renaming the file does not)",
      "5:3: spec: recipients is required (a section with file, inline, delimiter, keyColumn, ignoreColumns, identityField, maxDroppedPercent)",
      "8:5: spec.checkout: productionSpeed is required (one of Normal, ExpeditedFaster, ExpeditedFastest)",
    ]);
  });

  it("requires recipients as a file or inline, exactly one", async () => {
    const file = tmp.write(
      "both.yaml",
      inlineCampaign("both").replace("  recipients:\n", "  recipients:\n    file: list.csv\n"),
    );
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      "9:5: spec.recipients: give the recipients either as a file or inline, exactly one of the two",
    ]);
  });

  it("says a YAML file that is not a campaign is not one, once", async () => {
    const file = tmp.write("Pulumi.yaml", "name: project\nruntime: nodejs\n");
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      "1:1: not a campaign: a campaign document starts with apiVersion: directmail/v1 and kind: Campaign (a campaigns folder holds campaign files only)",
    ]);
  });
});

describe("recipients", () => {
  it("reports a missing recipients file at its `file` value, saying where it looked", async () => {
    const file = tmp.write("nofile/campaign.yaml", fileCampaign("nofile", "missing.csv"));
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, file)).toEqual([
      `9:11: spec.recipients.file: recipients file "missing.csv" not found (looked for ${shown(path.join(tmp.dir, "nofile", "missing.csv"))}; the path is relative to the campaign file)`,
    ]);
  });

  it("reports a recipients file of an unknown type, and a folder", async () => {
    tmp.write("types/list.txt", "x");
    fs.mkdirSync(path.join(tmp.dir, "types/folder.csv"), { recursive: true });
    const a = tmp.write("types/a.yaml", fileCampaign("type-a", "list.txt"));
    const b = tmp.write("types/b.yaml", fileCampaign("type-b", "folder.csv"));
    const { problems } = await loadCampaignFiles([a, b]);
    expect(formatProblems(problems).split("\n")).toEqual([
      `${shown(a)}:9:11: spec.recipients.file: "list.txt" is not a recipients file type; use a .csv, .json, .jsonl or .ndjson file`,
      `${shown(b)}:9:11: spec.recipients.file: "folder.csv" is a folder, not a recipients file`,
    ]);
  });

  it("reports bad CSV rows as <recipients file>:<row>:1: <field>: <message>, after the campaign file's", async () => {
    const csv = tmp.write(
      "badcsv/people.csv",
      "customerId,firstName,address1,city,state,zipCode,favouriteColour\n" +
        "c1,Ada,12 Analytical St,London,KY,,blue\n" + // row 2: no zipCode
        "c2,,1 Nowhere,Springfield,IL,62701,\n" + // row 3: no name
        ",Grace,1 Compiler Way,Arlington,VA,22202,\n", // row 4: empty key column
    );
    const file = tmp.write("badcsv/campaign.yaml", fileCampaign("badcsv", "people.csv", "customerId"));
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns).toEqual([]);
    expect(at(problems, csv)).toEqual([
      '1:1: unknown column "favouriteColour": not a recipient field; rename it if it is misspelled, or leave it out with ignoreColumns: ["favouriteColour"] (an option of the recipients, beside file)',
      "2:1: zipCode: zipCode is required",
      "3:1: firstName: a recipient needs a name (firstName, lastName) or an organization (toOrganization)",
      "4:1: customerId: customerId (the key column) is empty",
    ]);
  });

  it("reports a CSV row with more values than the header has columns at its line", async () => {
    const csv = tmp.write(
      "ragged/people.csv",
      "firstName,address1,city,state,zipCode\nAda,12 Analytical St,London,KY,40741\nGrace,1 Compiler Way, Suite 2,Arlington,VA,22202\n",
    );
    const file = tmp.write("ragged/c.yaml", fileCampaign("ragged", "people.csv"));
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, csv)).toEqual([
      '3:1: this row has 6 values but the header has a different number of columns (a comma inside a value needs "quotes")',
    ]);
  });

  it("reports an unclosed quote in a CSV file at the line where the quote opens", async () => {
    const csv = tmp.write(
      "quote/people.csv",
      'firstName,address1,city,state,zipCode\nAda,"12 Analytical St, Flat 2",London,KY,40741\nGrace,"1 Compiler Way,Arlington,VA,22202\nAlan,3 Turing Rd,Wilmslow,CH,12345\n',
    );
    const file = tmp.write("quote/c.yaml", fileCampaign("quote", "people.csv"));
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, csv)).toEqual([
      '3:1: a quoted value starts here and is never closed (a " is missing)',
    ]);
  });

  it(`lists the first ${MAX_RECIPIENT_PROBLEMS} recipient problems and counts the rest at the file value`, async () => {
    const rows = Array.from({ length: MAX_RECIPIENT_PROBLEMS + 5 }, (_, i) => `Person ${i},1 Way,Town,IL,`);
    const csv = tmp.write("many/people.csv", `firstName,address1,city,state,zipCode\n${rows.join("\n")}\n`);
    const file = tmp.write("many/c.yaml", fileCampaign("many", "people.csv"));
    const { problems } = await loadCampaignFiles([file]);
    expect(problems.filter((p) => p.file === csv)).toHaveLength(MAX_RECIPIENT_PROBLEMS);
    expect(problems.filter((p) => p.file === csv).at(-1)).toMatchObject({
      line: MAX_RECIPIENT_PROBLEMS + 1,
      column: 1,
    });
    expect(
      at(
        problems.filter((p) => p.file === file),
        file,
      ),
    ).toEqual([
      `9:11: spec.recipients.file: "people.csv" has 5 more problems besides the ${MAX_RECIPIENT_PROBLEMS} listed`,
    ]);
  });

  it("reports a bad element of a JSON array recipients file at the element's line and column", async () => {
    const json = tmp.write(
      "jsonfile/people.json",
      '[\n  {"firstName": "Ada", "address1": "1 Way", "city": "X", "state": "IL", "zipCode": "62701"},\n  {"firstName": "Grace"}, 7\n]\n',
    );
    const file = tmp.write("jsonfile/c.yaml", fileCampaign("jsonfile", "people.json"));
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, json)).toEqual([
      "3:3: address1: address1 is required",
      "3:3: city: city is required",
      "3:3: state: state is required",
      "3:3: zipCode: zipCode is required",
      "3:27: expected an object with recipient fields",
    ]);
  });

  it("reports inline recipient problems at the recipient's field", async () => {
    const file = tmp.write(
      "inline-bad.yaml",
      inlineCampaign("inline-bad").replace(
        '        zipCode: "80302"\n',
        '        zipCode: "80302"\n      - firstName: Grace\n        address1: 1 Compiler Way\n        city: Arlington\n        state: VA\n        zip: 02202\n        shoeSize: 9\n' +
          '      - toOrganization: Navy\n        address1: 1 Pier\n        city: Norfolk\n        state: VA\n        zip: ""\n',
      ),
    );
    const { problems } = await loadCampaignFiles([file]);
    expect(at(problems, file)).toEqual([
      '19:14: spec.recipients.inline[1].zip: 02202 is read as the number 2202; write it in quotes: "02202"',
      '20:9: spec.recipients.inline[1].shoeSize: unknown field "shoeSize"',
      // Written as zip (an alias of zipCode): named and placed as written.
      "25:9: spec.recipients.inline[2].zip: zipCode is required",
    ]);
  });
});

describe("rows the service will drop (predicted by its address rules)", () => {
  const dropping =
    "customerId,firstName,lastName,address1,city,state,zipCode\n" +
    "c1,Ada,Lovelace,12 Analytical St,London,KY,40741\n" +
    "c2,Grace,Hopper,Compiler Way,Arlington,VA,22202\n" +
    "c3,Alan,Turing,7 Enigma Rd,Portland,Oregonia,9720\n";

  it("are warnings at their rows, naming fields only; the campaign stays valid within maxDroppedPercent", async () => {
    const csv = tmp.write("drops/people.csv", dropping);
    const file = tmp.write("drops/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
    const loaded = await loadCampaignFiles([file]);
    expect(loaded.problems).toEqual([]);
    expect(at(loaded.warnings, csv)).toEqual([
      "3:1: the service will drop this row: ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number",
      "4:1: the service will drop this row: ADDRESS_NOT_VALID: address.state: not a US state or territory; address.zipCode: a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero (format the column as text and write all 5 digits)",
    ]);
    expect(loaded.warnings.every((w) => w.warning)).toBe(true);
    expect(loaded.campaigns[0]?.predictedDrops).toEqual({
      declared: 3,
      dropped: 2,
      rows: [3, 4],
      reasons: [
        { reason: "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number", count: 1 },
        {
          reason:
            "ADDRESS_NOT_VALID: address.state: not a US state or territory; address.zipCode: a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero (format the column as text and write all 5 digits)",
          count: 1,
        },
      ],
    });
    expect(JSON.stringify(loaded)).not.toMatch(/Oregonia|9720[^2]/);
  });

  it("above maxDroppedPercent are a problem at it, naming both figures and the rows; the campaign is still listed", async () => {
    tmp.write("limit/people.csv", dropping);
    const file = tmp.write(
      "limit/spring.yaml",
      `${fileCampaign("spring", "people.csv", "customerId")}    maxDroppedPercent: 50\n`,
    );
    const loaded = await loadCampaignFiles([file]);
    expect(at(loaded.problems, file)).toEqual([
      "11:24: spec.recipients.maxDroppedPercent: the service will drop 2 of 3 recipients (66.7%), more than " +
        "maxDroppedPercent 50: rows 3, 4 (ADDRESS_NOT_VALID 2); fix or remove those rows, or raise maxDroppedPercent",
    ]);
    expect(loaded.problems[0]?.dropLimit).toBe(true);
    expect(loaded.invalidFiles).toEqual([file]);
    expect(loaded.campaigns.map((c) => c.document.metadata.name)).toEqual(["spring"]);
  });

  it("are not predicted for a side read only to be compared (recipientChecks false); its list is the same", async () => {
    tmp.write("compared/people.csv", dropping);
    const file = tmp.write(
      "compared/spring.yaml",
      `${fileCampaign("spring", "people.csv", "customerId")}    maxDroppedPercent: 50\n`,
    );
    const inline = tmp.write(
      "compared/inline.yaml",
      inlineCampaign("inline-drops").replace("12 Frequency Way", "Frequency Way"),
    );
    const checked = await loadCampaignFiles([file, inline]);
    const compared = await loadCampaignFiles([file, inline], { recipientChecks: false });
    expect(compared.problems).toEqual([]);
    expect(compared.warnings).toEqual([]);
    expect(compared.campaigns.map((c) => c.document.metadata.name)).toEqual(["spring", "inline-drops"]);
    compared.campaigns.forEach((campaign, i) => {
      expect(campaign.predictedDrops).toBeUndefined();
      const list = recipientListOf(campaign);
      const full = recipientListOf(checked.campaigns[i] as LoadedCampaign);
      expect(list?.fields).toBeUndefined();
      expect([...(list?.set?.values() ?? [])]).toEqual([...(full?.set?.values() ?? [])]);
      expect(list?.set?.size).toBeGreaterThan(0);
    });
  });

  it("inline, are warnings at the recipient; in a JSON array, at the element", async () => {
    const inline = tmp.write(
      "drops/inline.yaml",
      inlineCampaign("inline-drops").replace("12 Frequency Way", "Frequency Way"),
    );
    tmp.write(
      "drops/people.json",
      JSON.stringify(
        [
          { firstName: "Ada", address1: "1 A St", city: "B", state: "IL", zipCode: "62701" },
          { firstName: "Bo", address1: "1 A St", city: "B", state: "IL", zipCode: "1" },
        ],
        null,
        2,
      ),
    );
    const jsonCampaign = tmp.write("drops/json.yaml", fileCampaign("json-drops", "people.json"));
    const loaded = await loadCampaignFiles([inline, jsonCampaign]);
    expect(loaded.problems).toEqual([]);
    expect(
      loaded.warnings.map((w) => `${path.basename(w.file)}:${w.line}:${w.column}: ${w.message}`),
    ).toEqual([
      "inline.yaml:10:9: spec.recipients.inline[0]: the service will drop this recipient: ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number",
      "people.json:9:3: the service will drop this row: ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code",
    ]);
  });

  it(`lists the first ${MAX_RECIPIENT_PROBLEMS} and counts the rest at the file value`, async () => {
    const rows = Array.from({ length: 250 }, (_, i) => `c${i},Ada,L,No Number Rd,Boulder,CO,80302`);
    tmp.write(
      "many/people.csv",
      `customerId,firstName,lastName,address1,city,state,zipCode\n${rows.join("\n")}\n`,
    );
    const file = tmp.write("many/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
    const loaded = await loadCampaignFiles([file]);
    expect(loaded.warnings).toHaveLength(MAX_RECIPIENT_PROBLEMS + 1);
    expect(loaded.warnings.at(-1)).toMatchObject({
      file,
      line: 9,
      message: `spec.recipients.file: "people.csv": the service will drop 150 more rows besides the ${MAX_RECIPIENT_PROBLEMS} listed`,
    });
    expect(loaded.campaigns[0]?.predictedDrops).toMatchObject({
      declared: 250,
      dropped: 250,
      rows: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    });
  });
});

describe("a recipients file separated by `;` or a tab", () => {
  const semicolons = GOOD_CSV.replace(/,/g, ";");

  it("is one problem at its header saying what to write, and loads with `delimiter`", async () => {
    const csv = tmp.write("semi/people.csv", semicolons);
    const file = tmp.write("semi/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
    const refused = await loadCampaignFiles([file]);
    expect(at(refused.problems, csv)).toEqual([
      '1:1: this file looks separated by ";"; write delimiter: ";" (an option of the recipients, beside file) or save it with commas',
    ]);
    tmp.write(
      "semi/spring.yaml",
      `${fileCampaign("spring", "people.csv", "customerId")}    delimiter: ";"\n`,
    );
    const loaded = await loadCampaignFiles([file]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.campaigns[0]?.predictedDrops).toMatchObject({ declared: 2, dropped: 0 });
  });

  it("`delimiter` with a file that is not CSV is a problem at it", async () => {
    tmp.write(
      "semi/people.jsonl",
      '{"firstName":"Ada","address1":"1 A St","city":"B","state":"IL","zipCode":"62701"}\n',
    );
    const file = tmp.write("semi/json.yaml", `${fileCampaign("json", "people.jsonl")}    delimiter: ";"\n`);
    expect(at((await loadCampaignFiles([file])).problems, file)).toEqual([
      '10:16: spec.recipients.delimiter: separates the values of a CSV file; "people.jsonl" is not one',
    ]);
  });
});

describe("several documents and several files", () => {
  it("loads every document of a file separated by ---, skipping empty ones, reporting each at its line", async () => {
    const file = tmp.write(
      "multi.yaml",
      `---\n${inlineCampaign("first")}---\n${inlineCampaign("second").replace("templateId: 10002", "templateId: 0")}---\n`,
    );
    const { campaigns, problems } = await loadCampaignFiles([file]);
    expect(campaigns.map((c) => [c.document.metadata.name, c.documentIndex])).toEqual([["first", 0]]);
    // The second document starts on line 17: its templateId is on line 17 + 6.
    expect(at(problems, file)).toEqual(["23:17: spec.order.templateId: must be greater than 0; found 0"]);
  });

  it("reports a duplicate metadata.name at the second occurrence, naming the first file", async () => {
    const first = tmp.write("dups/a.yaml", inlineCampaign("spring"));
    const second = tmp.write("dups/b.yaml", `${inlineCampaign("autumn")}---\n${inlineCampaign("spring")}`);
    const { campaigns, problems } = await loadCampaignFiles([first, second]);
    expect(campaigns.map((c) => c.document.metadata.name)).toEqual(["spring", "autumn"]);
    expect(at(problems, second)).toEqual([
      `19:9: metadata.name: the campaign name "spring" is already used in ${shown(first)}:4:9; each campaign needs its own name (it names the campaign's resources)`,
    ]);
  });

  it("reports an empty file and a missing file", async () => {
    const empty = tmp.write("empty.yaml", "# nothing yet\n");
    const missing = path.join(tmp.dir, "nope.yaml");
    const { problems } = await loadCampaignFiles([empty, missing]);
    expect(formatProblems(problems).split("\n")).toEqual([
      `${shown(empty)}:1:1: the file is empty; a campaign file holds one or more campaigns (apiVersion, kind, metadata, spec)`,
      `${shown(missing)}:1:1: campaign file not found`,
    ]);
  });
});

describe("campaign folders", () => {
  it("lists *.yaml and *.yml recursively, sorted by path, skipping hidden folders and other files", async () => {
    const d = tempDir("directmail-folder-");
    try {
      d.write("b.yml", inlineCampaign("b"));
      d.write("a/z.yaml", inlineCampaign("z"));
      d.write("a/list.csv", GOOD_CSV);
      d.write(".github/workflows/ci.yml", "on: push\n");
      d.write("README.md", "# campaigns\n");
      expect(await listCampaignFiles(d.dir)).toEqual([
        path.join(d.dir, "a/z.yaml"),
        path.join(d.dir, "b.yml"),
      ]);
      const { campaigns, problems } = await loadCampaignsDir(d.dir);
      expect(problems).toEqual([]);
      expect(campaigns.map((c) => c.document.metadata.name)).toEqual(["z", "b"]);
    } finally {
      d.remove();
    }
  });

  it("reports a missing folder as a problem", async () => {
    const dir = path.join(tmp.dir, "no-such-folder");
    expect(await loadCampaignsDir(dir)).toEqual({
      campaigns: [],
      resources: [],
      problems: [{ file: dir, line: 1, column: 1, message: "campaign folder not found" }],
      warnings: [],
      invalidFiles: [],
    });
  });
});

describe("the example campaigns", () => {
  it("load without problems", async () => {
    const { campaigns, problems } = await loadCampaignsDir(
      path.resolve(__dirname, "../../../examples/campaigns"),
    );
    expect(formatProblems(problems)).toBe("");
    expect(campaigns.length).toBeGreaterThan(0);
  });
});

describe("formatProblems", () => {
  it("prints path:line:column: message, relative to the cwd when shorter", () => {
    const inside = path.join(process.cwd(), "campaigns", "a.yaml");
    const outside = path.join(path.parse(process.cwd()).root, "x.yaml");
    expect(
      formatProblems([
        { file: inside, line: 3, column: 5, message: "one" },
        { file: outside, line: 1, column: 1, message: "two" },
      ]),
    ).toBe(`${path.join("campaigns", "a.yaml")}:3:5: one\n${outside}:1:1: two`);
  });
});

describe("paths in messages relative to a given folder (the Pulumi project's)", () => {
  it("names other files relative to it, inside messages and in formatProblems, also outside it", async () => {
    // A project folder and, beside it, a campaign folder of its own (campaignsDir: ../camps).
    const project = path.join(tmp.dir, "relative", "project");
    fs.mkdirSync(path.join(project, "program"), { recursive: true });
    const first = tmp.write("relative/camps/a.yaml", inlineCampaign("spring"));
    const second = tmp.write(
      "relative/camps/b.yaml",
      `${inlineCampaign("spring")}---\n${fileCampaign("lists", "missing.csv")}`,
    );
    const { problems } = await loadCampaignFiles([first, second], { relativeTo: project });
    const camps = path.join("..", "camps");
    expect(formatProblems(problems, project).split("\n")).toEqual([
      `${path.join(camps, "b.yaml")}:4:9: metadata.name: the campaign name "spring" is already used in ${path.join(camps, "a.yaml")}:4:9; each campaign needs its own name (it names the campaign's resources)`,
      `${path.join(camps, "b.yaml")}:24:11: spec.recipients.file: recipients file "missing.csv" not found (looked for ${path.join(camps, "missing.csv")}; the path is relative to the campaign file)`,
    ]);
    // The working directory plays no part: from a subfolder the paths read the same.
    const cwd = process.cwd();
    try {
      process.chdir(path.join(project, "program"));
      const again = await loadCampaignFiles([first, second], { relativeTo: project });
      expect(formatProblems(again.problems, project)).toBe(formatProblems(problems, project));
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("invalidFiles", () => {
  it("names each campaign file with a problem, in itself or in the recipients file it names, even when two share that file", async () => {
    const good = tmp.write("invalid/good.yaml", inlineCampaign("fine"));
    const bad = tmp.write(
      "invalid/bad.yaml",
      inlineCampaign("bad").replace("templateId: 10002", "templateId: ten"),
    );
    tmp.write(
      "invalid/people.csv",
      "firstName,address1,city,state,zipCode\nAda,12 Analytical St,London,KY,\n",
    );
    const listA = tmp.write("invalid/list-a.yaml", fileCampaign("list-a", "people.csv"));
    const listB = tmp.write("invalid/list-b.yaml", fileCampaign("list-b", "people.csv"));
    const missing = path.join(tmp.dir, "invalid", "gone.yaml");
    const { campaigns, problems, invalidFiles } = await loadCampaignFiles([good, bad, listA, listB, missing]);
    expect(campaigns.map((c) => c.file)).toEqual([good]);
    expect(invalidFiles).toEqual([bad, listA, listB, missing]);
    // The recipients file's problem is printed once although both campaigns name it.
    expect(problems.map((p) => path.basename(p.file))).toEqual(["bad.yaml", "people.csv", "gone.yaml"]);
  });
});

describe("Conversions and Automation documents", () => {
  const conversions = (name: string, spec: string) =>
    `apiVersion: directmail/v1\nkind: Conversions\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
  const automation = (name: string, spec: string) =>
    `apiVersion: directmail/v1\nkind: Automation\nmetadata:\n  name: ${name}\nspec:\n${spec}`;

  it("loads them beside campaigns, their files resolved relative to the document's file", async () => {
    tmp.write("kinds/lists/sales.csv", "uniqueId,revenue\nA-1,10\n");
    const file = tmp.write(
      "kinds/all.yaml",
      [
        `${inlineCampaign("with-conversions")}  conversions:\n    inline:\n      - { uniqueId: A-1, revenue: "10" }\n    keyField: uniqueId\n`,
        conversions("q2-sales", "  file: lists/sales.csv\n  keyField: uniqueId\n"),
        automation(
          "welcome",
          "  integrationOrderId: 3001\n  recipients:\n    inline:\n      - { firstName: Ada, address1: 1 Main St }\n    maxNew: 5\n" +
            '  proximitySearches:\n    - name: around\n      addresses:\n        - { address1: 200 Elm St, city: Springfield, state: IL, zip: "62701", desiredCount: 2 }\n',
        ),
      ].join("---\n"),
    );
    const result = await loadCampaignFiles([file]);
    expect(result.problems).toEqual([]);
    expect(result.campaigns.map((c) => c.document.spec.conversions)).toEqual([
      { inline: [{ uniqueId: "A-1", revenue: "10" }], keyField: "uniqueId" },
    ]);
    expect(result.resources.map((r) => [r.document.kind, r.document.metadata.name, r.recordsFile])).toEqual([
      ["Conversions", "q2-sales", path.join(path.dirname(file), "lists/sales.csv")],
      ["Automation", "welcome", undefined],
    ]);
  });

  it("checks each kind against its own schema, names the kinds allowed, and a missing file at its value", async () => {
    const file = tmp.write(
      "kinds/bad.yaml",
      [
        conversions("bad-conv", "  file: nope.csv\n  keyfield: id\n"),
        automation("bad-auto", "  integrationOrderId: 0\n  recipients:\n    inline: []\n    file: x.csv\n"),
        "apiVersion: directmail/v1\nkind: Mailing\nmetadata:\n  name: other\nspec: {}\n",
      ].join("---\n"),
    );
    const missing = tmp.write("kinds/missing.yaml", conversions("missing-file", "  file: nope.csv\n"));
    expect(at((await loadCampaignFiles([missing])).problems, missing)).toEqual([
      "6:9: spec.file: file not found",
    ]);
    const result = await loadCampaignFiles([file]);
    expect(result.resources).toEqual([]);
    expect(at(result.problems, file)).toEqual([
      '7:3: spec: unknown key "keyfield" (did you mean "keyField"?); allowed keys: file, inline, keyField, deleteWaitSeconds',
      "14:23: spec.integrationOrderId: must be greater than 0; found 0",
      "16:5: spec.recipients: give the recipients either as a file or inline, exactly one of the two",
      '20:7: kind: write one of Campaign, Conversions, Automation; found "Mailing"',
      "23:7: spec: order is required (a section with templateId, useQr, qrUrl, handwritingFont, existingOrderId)",
      "23:7: spec: recipients is required (a section with file, inline, delimiter, keyColumn, ignoreColumns, identityField, maxDroppedPercent)",
    ]);
  });
});
