/**
 * What Conversions, AutomationRecipients and ProximitySearch judge before anything is sent: record
 * shapes and sources (rows, keys, fields), the plans of an update, and the proximity request's rules
 * with the fields named as the program spells them.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecipientIndex } from "../../../provider/recipients/index";
import { planRecipients, recipientShape } from "../../../provider/resources/automation-recipients/provider";
import { planConversions } from "../../../provider/resources/conversions/provider";
import { conversionShape, recordProblemOf } from "../../../provider/resources/conversions/record";
import type { ProximitySearchInputs } from "../../../provider/resources/proximity-search/inputs";
import { proximityBody, proximityProblems } from "../../../provider/resources/proximity-search/provider";
import { loadRecords } from "../../../provider/resources/records/source";
import { UserError } from "../../../provider/resources/user-error";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-services-"));
const cwd = process.cwd();
// The provider reads records files of its project only: here, the folder it runs in (no Pulumi.yaml above).
beforeAll(() => process.chdir(dir));
afterAll(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});
const file = (name: string, text: string) => {
  const full = path.join(dir, name);
  fs.writeFileSync(full, text);
  return full;
};

describe("conversion records", () => {
  it("a CSV row fills primaryAddress from flat columns and secondaryAddress from dotted ones", () => {
    expect(
      conversionShape.shape({
        uniqueId: "A-1",
        address1: "1 Main St",
        zip: "62701",
        "secondaryAddress.city": "Madison",
        revenue: 12.5,
      }),
    ).toEqual({
      record: {
        uniqueId: "A-1",
        primaryAddress: { address1: "1 Main St", zipCode: "62701" },
        secondaryAddress: { city: "Madison" },
        revenue: "12.5",
      },
    });
  });

  it("an unknown field, an unknown address field and a value that is not text are problems naming the field", () => {
    const result = conversionShape.shape({ revnue: "1", "primaryAddress.street": "x", couponCode: { a: 1 } });
    expect("problems" in result && result.problems.map((p) => p.field)).toEqual([
      "revnue",
      "primaryAddress.street",
      "couponCode",
    ]);
  });

  it("reads the service's per-record messages back to the record's place in the batch", () => {
    expect(recordProblemOf("[3].primaryEmail: Invalid email address")).toEqual({
      index: 3,
      text: "primaryEmail: Invalid email address",
    });
    expect(recordProblemOf("2 of 4 records were invalid")).toBeUndefined();
  });

  it("a source reports every bad row with its line and field, keys each record, and counts duplicates", async () => {
    const csv = file(
      "sales.csv",
      "uniqueId,revenue,colour\nA-1,10,red\n\nA-2,5,\nA-2,6,\n,7,\nA-3,8,\nA-3,8,\n",
    );
    const loaded = await loadRecords({ file: csv }, conversionShape, "uniqueId");
    expect(loaded.problems).toEqual([
      {
        row: 2,
        field: "colour",
        message: expect.stringMatching(/^unknown field "colour"; a conversion record has /),
      },
      { row: 5, field: "uniqueId", message: 'uniqueId "A-2" is used by row 4 too, with different details' },
      { row: 6, field: "uniqueId", message: "uniqueId (the key field) is empty" },
    ]);
    expect([...loaded.byKey.values()].map((r) => [r.row, r.keyValue])).toEqual([
      [4, "A-2"],
      [7, "A-3"],
    ]);
    expect(loaded.duplicateRows).toBe(1);
  });

  it("a JSON Lines line that is not JSON is a problem at its line; the others load", async () => {
    const jsonl = file("sales.jsonl", '{"revenue":"1"}\n{not json\n\n{"revenue":"2"}\n');
    const loaded = await loadRecords({ file: jsonl }, conversionShape, undefined);
    expect(loaded.problems.map((p) => p.row)).toEqual([2]);
    expect([...loaded.byKey.values()].map((r) => r.row)).toEqual([1, 4]);
  });

  it("a records file that is not JSON is one error on one line, naming the file", async () => {
    const json = file("sales.json", '[{"revenue": "1"},\noops\nmore]\n');
    const error = await loadRecords({ file: json }, conversionShape, undefined).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/sales\.json: not valid JSON: /);
    expect(error?.message).not.toContain("\n");
  });

  it("a records file outside the project folder, or a link to one, is refused unread, without quoting it", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "secret.csv"), "uniqueId,revenue\nSECRET-1,5\n");
      fs.symlinkSync(path.join(outside, "secret.csv"), path.join(dir, "linked.csv"));
      const refusal = (file: string) =>
        loadRecords({ file }, conversionShape, undefined).then(
          () => undefined,
          (e: Error) => e,
        );
      const relative = path.relative(dir, path.join(outside, "secret.csv"));
      for (const named of [path.join(outside, "secret.csv"), relative, "linked.csv"]) {
        const error = await refusal(named);
        expect(error).toBeInstanceOf(UserError);
        expect(error?.message).toBe(
          `file: "${named.length > 60 ? `${named.slice(0, 60)}…` : named}" is outside the Pulumi project folder ${dir}/ (after following links); name a file inside it`,
        );
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a records file is read as a recipients file is: binary, a broken CSV and multi-line values", async () => {
    const failure = (name: string, content: string | Buffer) =>
      loadRecords({ file: file(name, content as string) }, conversionShape, undefined).then(
        () => undefined,
        (e: Error) => e,
      );
    // A spreadsheet saved as .csv: one line naming the file, its line and column, what to do.
    const binary = await failure("sheet.csv", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06]));
    expect(binary).toBeInstanceOf(UserError);
    expect(binary?.message).toBe(
      `${path.join(dir, "sheet.csv")}:1:3: not text: a control character (\\u0003) here; remove it, or save the file as UTF-8 text`,
    );
    const binaryJsonl = await failure("sheet.jsonl", '{"revenue":"1"}\n{"revenue":"2\u0000"}\n');
    expect(binaryJsonl?.message).toMatch(/sheet\.jsonl:2:14: not text: a control character \(\\u0000\)/);
    // The row in error is named at the line it starts on, past a quoted value over two lines.
    const broken = await failure("broken.csv", 'revenue,uniqueId\n"1\n0",A\n5,B,extra\n');
    expect(broken?.message).toBe(
      `${path.join(dir, "broken.csv")}:4:1: this row has 3 values but the header has a different number of columns (a comma inside a value needs "quotes")`,
    );
    const loaded = await loadRecords(
      { file: file("multi.csv", '\ufeffrevenue,uniqueId,colour\n"1\n0",A,\n5,B,red\n') },
      conversionShape,
      "uniqueId",
    );
    expect(loaded.problems).toEqual([
      { row: 4, field: "colour", message: expect.stringMatching(/^unknown field/) },
    ]);
    expect([...loaded.byKey.values()].map((r) => [r.row, r.keyValue])).toEqual([[2, "A"]]);
  });

  it("an update deletes only the uploads holding a changed or removed record, and re-sends their other records", () => {
    const rec = (key: string, content: string) => ({ key, content, row: 1, record: {} });
    const current = new RecipientIndex([
      ["a".repeat(16), { id: 7, content: "1".repeat(16), listed: 0 }],
      ["b".repeat(16), { id: 7, content: "2".repeat(16), listed: 0 }],
      ["c".repeat(16), { id: 8, content: "3".repeat(16), listed: 0 }],
      ["d".repeat(16), { id: 0, content: "4".repeat(16), listed: 0 }],
    ]);
    const declared = new Map(
      [
        rec("a".repeat(16), "9".repeat(16)), // changed: upload 7 goes
        rec("b".repeat(16), "2".repeat(16)), // unchanged, but in upload 7: sent again
        rec("c".repeat(16), "3".repeat(16)), // unchanged in upload 8: kept
        rec("d".repeat(16), "4".repeat(16)), // refused and unchanged: not sent again
        rec("e".repeat(16), "5".repeat(16)), // new
      ].map((r) => [r.key, r]),
    );
    const plan = planConversions(declared, current);
    expect(plan.deleteUploads).toEqual([7]);
    expect(plan.send.map((r) => r.key[0])).toEqual(["a", "b", "e"]);
    expect([...plan.keep.keys()].map((k) => k[0])).toEqual(["c", "d"]);
    expect({ added: plan.added, removed: plan.removed, changed: plan.changed }).toEqual({
      added: 1,
      removed: 0,
      changed: 1,
    });
  });
});

describe("automation recipients", () => {
  it("a key column that is not a recipient field is not sent; any other unknown field is a problem", () => {
    const shape = recipientShape("customerId");
    expect(shape.shape({ customerId: "C-1", firstName: "Ada", zipCode: 62701 })).toEqual({
      record: { firstName: "Ada", zipCode: "62701" },
    });
    const bad = shape.shape({ customerId: "C-1", frstName: "Ada" });
    expect("problems" in bad && bad.problems[0]?.field).toBe("frstName");
  });

  it("a mailed recipient is never sent again, a refused one only once changed, a removed one is forgotten", () => {
    const rec = (key: string, content: string) => ({ key, content, row: 1, record: {} });
    const current = new RecipientIndex([
      ["a".repeat(16), { id: 1, content: "1".repeat(16), listed: 0 }],
      ["b".repeat(16), { id: 0, content: "2".repeat(16), listed: 0 }],
      ["c".repeat(16), { id: 0, content: "3".repeat(16), listed: 0 }],
      ["d".repeat(16), { id: 1, content: "4".repeat(16), listed: 0 }],
    ]);
    const declared = new Map(
      [
        rec("a".repeat(16), "9".repeat(16)), // mailed, details changed: not sent again
        rec("b".repeat(16), "8".repeat(16)), // refused, changed: sent again
        rec("c".repeat(16), "3".repeat(16)), // refused, unchanged: not sent
        rec("e".repeat(16), "5".repeat(16)), // new
      ].map((r) => [r.key, r]),
    );
    const plan = planRecipients(declared, current);
    expect(plan.send.map((r) => r.key[0])).toEqual(["b", "e"]);
    expect(plan.forgotten).toBe(1);
    expect(plan.retried).toBe(1);
  });
});

describe("proximity search", () => {
  const valid: ProximitySearchInputs = {
    integrationOrderId: 3,
    name: "Around the store",
    addresses: [{ address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", desiredCount: 2 }],
  };

  it("sends the service's names: capitalised, DesiredCount in each address, no integrationOrderId", () => {
    expect(proximityBody({ ...valid, multiUse: true, returnTitle: "Dr" })).toEqual({
      Name: "Around the store",
      MultiUse: true,
      ReturnTitle: "Dr",
      Addresses: [
        { address1: "200 Elm St", city: "Springfield", state: "IL", zip: "62701", DesiredCount: 2 },
      ],
    });
    expect(proximityProblems(valid)).toEqual([]);
  });

  it("names each broken rule's field as the program spells it", () => {
    const reasons = (inputs: Partial<ProximitySearchInputs>) =>
      proximityProblems({ ...valid, ...inputs }).map((f) => f.reason);
    expect(reasons({ returnLastName: "Owner" })).toEqual([
      "returnFirstName: returnFirstName and returnLastName are given together",
      "returnAddress1: returnAddress1 is required when any other return address field is given",
    ]);
    expect(reasons({ returnAddress1: "1 Market St", returnCity: "Springfield" })).toEqual([
      "returnState: returnState is required when returnAddress1 is given",
      "returnZip: returnZip is required when returnAddress1 is given",
    ]);
    expect(reasons({ homePriceFilter: { min: 9, max: 1 }, name: "" })).toEqual([
      "name: Too small: expected string to have >=1 characters",
      "homePriceFilter.max: min must not exceed max",
    ]);
    expect(
      reasons({ addresses: [{ address1: "1 A St", city: "B", state: "IL", zip: "62701", desiredCount: 0 }] }),
    ).toEqual(["addresses[0].desiredCount: Too small: expected number to be >0"]);
    expect(reasons({ addresses: [] })).toEqual(["addresses: Too small: expected array to have >=1 items"]);
  });
});
