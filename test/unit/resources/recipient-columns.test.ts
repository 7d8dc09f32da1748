/**
 * The columns of a recipient list as a spreadsheet export has them: the key column named as the
 * headers are ("Customer ID" is customerId), a key column absent from the file said once, extra
 * columns left out only when `ignoreColumns` lists them, and unknown columns said once with what to
 * write.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  columnKey,
  describeProblems,
  fileSignature,
  keyValuesByRow,
  type RecipientSourceOptions,
  recipientList,
} from "../../../provider/recipients/index";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-columns-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const full = path.join(dir, name);
  fs.writeFileSync(full, text);
  return full;
};

const EXPORT = [
  "Customer ID,First Name,Last Name,Address,City,State,Zip,Phone",
  "C-1,Ada,Lovelace,12 Analytical St,London,KY,40741,555-0100",
  "C-2,Grace,Hopper,1 Compiler Way,Arlington,VA,22202,555-0101",
  "",
].join("\n");

const keyed: RecipientSourceOptions = { identityField: "custom6", keyColumn: "customerId" };

/** The recipients of a load by row, and its problems as lines. */
async function read(csv: string, options: RecipientSourceOptions) {
  const loaded = await recipientList({ file: csv }, options).load();
  const rows = [...loaded.byKey.values()].sort((a, b) => a.row - b.row);
  return { loaded, rows, problems: describeProblems("export.csv", loaded) };
}

describe("the key column, named as the headers are", () => {
  it('keyColumn: customerId is the column "Customer ID" (case, spaces, _ and - ignored)', async () => {
    const csv = file("export.csv", EXPORT);
    const { rows, problems } = await read(csv, { ...keyed, ignoreColumns: ["Phone"] });
    expect(problems).toEqual([]);
    expect(rows.map((r) => r.key)).toEqual([columnKey("C-1"), columnKey("C-2")]);
    for (const name of ["customer_id", "CUSTOMER-ID", " Customer ID "]) {
      const again = await read(csv, { ...keyed, keyColumn: name, ignoreColumns: ["Phone"] });
      expect(again.rows.map((r) => r.key)).toEqual([columnKey("C-1"), columnKey("C-2")]);
    }
  });

  it("a key column absent from the file is one problem naming the columns found, not one a row", async () => {
    const lines = ["Customer,First Name,Address,City,State,Zip"];
    for (let i = 0; i < 100; i++) lines.push(`C-${i},Ada,12 Analytical St,London,KY,40741`);
    const csv = file("absent.csv", `${lines.join("\n")}\n`);
    const { loaded, problems } = await read(csv, keyed);
    expect(problems).toEqual([
      'export.csv row 1: the key column "customerId" is not in the header, whose columns are "Customer", ' +
        '"First Name", "Address", "City", "State", "Zip"; set keyColumn to the column that identifies each ' +
        "recipient (case, spaces, _ and - do not matter)",
      'export.csv row 1: unknown column "Customer": not a recipient field; rename it if it is misspelled, or ' +
        'leave it out with ignoreColumns: ["Customer"] (an option of the recipients, beside file)',
    ]);
    expect(loaded.problemCount).toBe(2);
  });

  it("two columns that are both the key column are one problem: which one identifies is not guessed", async () => {
    const csv = file(
      "twice.csv",
      "customerId,Customer ID,firstName,address1,city,state,zipCode\nC-1,C-2,Ada,1 A St,X,NY,10001\n",
    );
    expect((await read(csv, keyed)).problems).toEqual([
      'export.csv row 1: the columns "customerId", "Customer ID" are all the key column "customerId" (case, ' +
        "spaces, _ and - do not matter); keep one of them",
    ]);
  });

  it("a JSON key and the key values read again for a plan are found the same way", async () => {
    const json = file(
      "export.json",
      JSON.stringify([
        {
          "Customer ID": "C-1",
          firstName: "Ada",
          address1: "1 A St",
          city: "X",
          state: "NY",
          zipCode: "10001",
        },
      ]),
    );
    const loaded = await recipientList({ file: json }, keyed).load();
    expect(describeProblems("export.json", loaded)).toEqual([]);
    expect([...loaded.byKey.keys()]).toEqual([columnKey("C-1")]);
    expect(await keyValuesByRow({ file: json }, "customerId")).toEqual(new Map([[1, "C-1"]]));
    const csv = file("export.csv", EXPORT);
    expect(await keyValuesByRow({ file: csv }, "customerId")).toEqual(
      new Map([
        [2, "C-1"],
        [3, "C-2"],
      ]),
    );
  });
});

describe("columns left out with ignoreColumns", () => {
  it("an extra column is a problem that says what to write; listed in ignoreColumns, it is left out", async () => {
    const csv = file("export.csv", EXPORT);
    expect((await read(csv, keyed)).problems).toEqual([
      'export.csv row 1: unknown column "Phone": not a recipient field; rename it if it is misspelled, or leave ' +
        'it out with ignoreColumns: ["Phone"] (an option of the recipients, beside file)',
    ]);
    const { rows, problems } = await read(csv, { ...keyed, ignoreColumns: ["phone"] });
    expect(problems).toEqual([]);
    expect(rows.map((r) => r.recipient)).toEqual([
      {
        firstName: "Ada",
        lastName: "Lovelace",
        address1: "12 Analytical St",
        city: "London",
        state: "KY",
        zipCode: "40741",
      },
      {
        firstName: "Grace",
        lastName: "Hopper",
        address1: "1 Compiler Way",
        city: "Arlington",
        state: "VA",
        zipCode: "22202",
      },
    ]);
    // The same recipients as the file without that column: the same keys and contents.
    const without = file("without.csv", EXPORT.replace(/,Phone|,555-010\d/g, ""));
    const plain = await read(without, keyed);
    expect(plain.rows.map(({ key, content }) => ({ key, content }))).toEqual(
      rows.map(({ key, content }) => ({ key, content })),
    );
  });

  it("a recipient field listed is not sent, in a CSV column or a JSON key", async () => {
    const csv = file(
      "email.csv",
      "firstName,address1,city,state,zipCode,Email\nAda,1 A St,X,NY,10001,ada@example.com\n",
    );
    const { rows } = await read(csv, { identityField: "custom6", ignoreColumns: ["email"] });
    expect(rows[0]?.recipient).not.toHaveProperty("email");
    const json = file(
      "email.json",
      JSON.stringify([
        { firstName: "Ada", address1: "1 A St", city: "X", state: "NY", zipCode: "10001", Phone: "1" },
      ]),
    );
    const loaded = await recipientList(
      { file: json },
      { identityField: "custom6", ignoreColumns: ["PHONE"] },
    ).load();
    expect(loaded.problemCount).toBe(0);
    expect([...loaded.byKey.values()][0]?.recipient).toEqual({
      firstName: "Ada",
      address1: "1 A St",
      city: "X",
      state: "NY",
      zipCode: "10001",
    });
  });

  it("unknown columns are one problem: each named, a likely misspelling with its field, the option to write", async () => {
    const csv = file(
      "many.csv",
      "firstName,adress2,address1,city,state,zipCode,Phone,Notes\nAda,Apt 1,1 A St,X,NY,10001,555,vip\n",
    );
    expect((await read(csv, { identityField: "custom6" })).problems).toEqual([
      'export.csv row 1: unknown columns "adress2" (address2?), "Phone", "Notes": not recipient fields; rename any ' +
        'that is misspelled, or leave them out with ignoreColumns: ["adress2", "Phone", "Notes"] (an option of ' +
        "the recipients, beside file)",
    ]);
  });

  it("a header of 100,000 unknown columns is one problem of bounded length, in linear time", async () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `column${i}`);
    const csv = file(
      "wide.csv",
      `firstName,address1,city,state,zipCode,${names.join(",")}\nAda,1 A St,X,NY,10001${",x".repeat(names.length)}\n`,
    );
    const started = performance.now();
    const { problems } = await read(csv, { identityField: "custom6" });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('"column9" and 99990 more: not recipient fields');
    expect(problems[0]).toContain('ignoreColumns: ["column0", "column1", "column2"');
    expect(problems[0]?.length).toBeLessThan(800);
  });

  it("a reading with other columns left out is another reading: its signature differs", async () => {
    const csv = file("export.csv", EXPORT);
    expect(await fileSignature(csv, keyed, undefined)).not.toBe(
      await fileSignature(csv, { ...keyed, ignoreColumns: ["Phone"] }, undefined),
    );
  });
});
