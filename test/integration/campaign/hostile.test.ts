/**
 * The campaign loader on hostile files (those of scripts/hostile-files.ts, and a few more): one
 * clear problem, or the problems a user can act on, at exact positions, in time that grows
 * linearly with the input. The sizes are those at which a quadratic cost showed: with yaml's
 * duplicate-key check, a scan per unknown key and a second parse of JSON files, 20,000 keys took
 * 8 to 13 s, 20,000 aliases 23 s, 100,000 keys 77 s; 100,000 keys now take 1 to 3 s. The time
 * bound is generous (the machine is shared); scripts/bench/validate.ts measures the growth.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CampaignProblem,
  formatProblems,
  type LoadResult,
  loadCampaignFiles,
  MAX_NESTING,
  MAX_PRINTED_PROBLEMS,
} from "../../../provider/campaign/loader";
import { flowNestingBeyond } from "../../../provider/campaign/yaml-document";
import { LineTracker } from "../../../provider/text";
import { CSV_HEADER, campaignHead, type HostileFiles, hostile } from "../../../scripts/hostile-files";
import { tempDir } from "../../unit/campaign/fixtures";

const tmp = tempDir("directmail-hostile-");
afterAll(tmp.remove);

/** Loading a hostile file must take less than this much CPU time (a busy machine stretches the wall clock, not this). */
const BUDGET_MS = 20_000;
/** Per test: writing the files and checking the result take time too. */
const TIMEOUT_MS = 120_000;

let counter = 0;

/** Writes the files into a folder of their own; returns the path of each. */
function write(files: HostileFiles | Record<string, string | Uint8Array>): (name: string) => string {
  counter += 1;
  const dir = path.join(tmp.dir, `case-${counter}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return (name) => path.join(dir, name);
}

/** Loads the case's campaign.yaml, within the time budget. */
async function load(files: HostileFiles | Record<string, string | Uint8Array>) {
  const file = write(files);
  const started = process.cpuUsage();
  const result = await loadCampaignFiles([file("campaign.yaml")]);
  const { user, system } = process.cpuUsage(started);
  expect((user + system) / 1000).toBeLessThan(BUDGET_MS);
  return { ...result, file };
}

/** The problems of one file as `line:column: message`. */
function at(result: LoadResult, file: string): string[] {
  return result.problems.filter((p) => p.file === file).map((p) => `${p.line}:${p.column}: ${p.message}`);
}

const TOP_KEYS = "allowed keys: apiVersion, kind, metadata, spec";
const SPEC_KEYS = "allowed keys: order, recipients, checkout, addressBook, conversions, retain";
const TOO_DEEP = `YAML: sections and lists are nested more than ${MAX_NESTING} levels deep here; a campaign needs a few levels (see docs/campaign-format.md)`;

describe("many keys, in linear time", () => {
  it(
    "reports 200,000 unknown keys at the top (more than a call takes arguments), each at its line, and prints the first 100 and a count",
    async () => {
      const result = await load(hostile.topKeys(200_000));
      const problems = at(result, result.file("campaign.yaml"));
      expect(problems).toHaveLength(200_000);
      expect(problems[0]).toBe(`15:1: unknown key "k0"; ${TOP_KEYS}`);
      expect(problems.at(-1)).toBe(`200014:1: unknown key "k199999"; ${TOP_KEYS}`);
      const printed = formatProblems(result.problems).split("\n");
      expect(printed).toHaveLength(MAX_PRINTED_PROBLEMS + 1);
      expect(printed[MAX_PRINTED_PROBLEMS - 1]).toMatch(/campaign\.yaml:114:1: unknown key "k99"; /);
      expect(printed[MAX_PRINTED_PROBLEMS]).toMatch(
        /campaign\.yaml:115:1: 199900 more problems in this file from here on, not listed \(100 are listed per file\); fix the ones above and check again$/,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "reports 100,000 unknown keys under spec",
    async () => {
      const result = await load(hostile.specKeys(100_000));
      const problems = at(result, result.file("campaign.yaml"));
      expect(problems).toHaveLength(100_000);
      expect(problems[0]).toBe(`15:3: spec: unknown key "k0"; ${SPEC_KEYS}`);
      expect(problems.at(-1)).toBe(`100014:3: spec: unknown key "k99999"; ${SPEC_KEYS}`);
    },
    TIMEOUT_MS,
  );

  it(
    "reports a key written 100,000 times in a section at each repetition",
    async () => {
      const result = await load(hostile.duplicateKeys(100_000));
      const problems = at(result, result.file("campaign.yaml"));
      const duplicate = "YAML: this key appears twice in the same section; keep one";
      expect(problems).toHaveLength(99_999);
      expect(problems[0]).toBe(`16:3: ${duplicate}`);
      expect(problems.at(-1)).toBe(`100014:3: ${duplicate}`);
    },
    TIMEOUT_MS,
  );

  it(
    "reports a JSON recipient's 100,000 unknown keys at each key, the first 100 and a count",
    async () => {
      const result = await load(hostile.jsonKeys(100_000));
      const json = at(result, result.file("people.json"));
      expect(json).toHaveLength(100);
      expect(json.slice(0, 2)).toEqual(['2:92: k0: unknown field "k0"', '2:103: k1: unknown field "k1"']);
      expect(at(result, result.file("campaign.yaml"))).toEqual([
        '9:11: spec.recipients.file: "people.json" has 99900 more problems besides the 100 listed',
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    "reports a CSV header's 100,000 unknown columns at the header, in one problem that names the first ten",
    async () => {
      const result = await load(hostile.csvColumns(100_000));
      const csv = at(result, result.file("people.csv"));
      expect(csv).toHaveLength(1);
      expect(csv[0]).toMatch(
        /^1:1: unknown columns "c0", "c1", .*, "c9" and 99990 more: not recipient fields; /,
      );
      expect(csv[0]).toContain(
        'ignoreColumns: ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", …]',
      );
      expect(at(result, result.file("campaign.yaml"))).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    "reports 10,000 bad CSV rows: the first 100 at their lines and a count",
    async () => {
      const result = await load(hostile.csvRows(10_000));
      const csv = at(result, result.file("people.csv"));
      expect(csv).toHaveLength(100);
      expect([csv[0], csv[99]]).toEqual([
        "2:1: zipCode: zipCode is required",
        "101:1: zipCode: zipCode is required",
      ]);
      expect(at(result, result.file("campaign.yaml"))).toEqual([
        '9:11: spec.recipients.file: "people.csv" has 9900 more problems besides the 100 listed',
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    "resolves 100,000 aliases",
    async () => {
      const result = await load(hostile.aliases(100_000));
      expect(at(result, result.file("campaign.yaml"))).toEqual([`15:1: unknown key "x"; ${TOP_KEYS}`]);
    },
    TIMEOUT_MS,
  );

  it(
    "reads a recipients file named by 2,000 campaigns once",
    async () => {
      const result = await load(hostile.sharedRecipients(2_000));
      expect(result.problems).toEqual([]);
      expect(result.campaigns).toHaveLength(2_000);
    },
    TIMEOUT_MS,
  );
});

describe("nesting", () => {
  it(
    `is one problem where it passes ${MAX_NESTING} levels, in flow and block lists 100,000 deep`,
    async () => {
      // Levels 1-3 are the document, spec and recipients; inline's first "[" is level 4, at column
      // 13, so level 65 is the 62nd "[", at column 74.
      const flow = await load(hostile.deepFlow(100_000));
      expect(at(flow, flow.file("campaign.yaml"))).toEqual([`9:74: ${TOO_DEEP}`]);
      // "- " at column 7 is level 4.
      const block = await load(hostile.deepBlock(100_000));
      expect(at(block, block.file("campaign.yaml"))).toEqual([`10:129: ${TOO_DEEP}`]);
    },
    TIMEOUT_MS,
  );

  it(
    "is the same one problem, found without parsing the whole file, for 5,000,000 nested lists (10 MB)",
    async () => {
      // The parser's tree of this file took more than 4 GB and 45 s before it ran out of memory.
      const flow = await load(hostile.deepFlow(5_000_000));
      expect(at(flow, flow.file("campaign.yaml"))).toEqual([`9:74: ${TOO_DEEP}`]);
    },
    TIMEOUT_MS,
  );

  it("counts flow lists outside quotes and comments only", () => {
    const open = "[".repeat(10);
    expect(flowNestingBeyond(`a: "${open}"\nb: '${open}'\n# ${open}\nc: don't ${open}`, 5)).toBe(
      `a: "${open}"\nb: '${open}'\n# ${open}\nc: don't `.length + 5,
    );
    expect(flowNestingBeyond(`a: "${open}"\nb: 'it''s ${open}'\n# ${open}\n`, 5)).toBeUndefined();
    expect(flowNestingBeyond(`a: [[[[[[]]]]]]`, 5)).toBe(8);
  });

  it(`allows ${MAX_NESTING} levels`, async () => {
    const levels = MAX_NESTING - 3;
    const result = await load({
      "campaign.yaml": `${campaignHead("deep")}  recipients:\n    inline: ${"[".repeat(levels)}${"]".repeat(levels)}\n`,
    });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      "9:14: spec.recipients.inline[0]: must be a section of key: value lines; found a list",
    ]);
  });

  it("counts the levels an alias brings in, and reports it at the alias", async () => {
    const levels = MAX_NESTING - 1;
    // `a` is levels 2 to 64: fine. Under `b` (level 2) the alias adds 63 levels: 65.
    const result = await load({
      "campaign.yaml": `a: &a ${"[".repeat(levels)}${"]".repeat(levels)}\nb: [*a]\n`,
    });
    expect(at(result, result.file("campaign.yaml"))).toEqual([`2:5: ${TOO_DEEP}`]);
  });

  it("in mappings nested in a flow list, is reported too", async () => {
    // yaml reads `[a: …]` as a list holding a mapping: two levels for one bracket.
    const result = await load({ "campaign.yaml": `x: ${"[a: ".repeat(40)}1${"]".repeat(40)}\n` });
    const [problem] = at(result, result.file("campaign.yaml"));
    expect(problem).toBe(`1:${4 + 4 * 31 + 1}: ${TOO_DEEP}`);
  });
});

describe("aliases", () => {
  it("reports an alias bomb at the alias that repeats one value too many", async () => {
    const tens = (alias: string) => `[${Array(10).fill(alias).join(", ")}]`;
    const result = await load({
      "campaign.yaml": [
        `a: &a ${tens("x")}`,
        `b: &b ${tens("*a")}`, // 10 × 11 values
        `c: &c ${tens("*b")}`, // 10 × 111
        `d: &d ${tens("*c")}`, // 10 × 1,111: the 8th passes 10,000 in all
        `e: ${tens("*d")}`,
        "",
      ].join("\n"),
    });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      "4:36: YAML: the aliases (*name) of this document repeat more than 10000 values in all; write the values out",
    ]);
  });

  it("reports an alias inside the value it names", async () => {
    const result = await load({ "campaign.yaml": "a: &a [1, *a]\n" });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      "1:11: YAML: the alias *a is inside the value it names, which would repeat forever",
    ]);
  });

  it("reports a key that is a list", async () => {
    const result = await load({ "campaign.yaml": "? [a]\n: 1\n" });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      "1:3: YAML: a key must be a word or text, not a section or list",
    ]);
  });
});

describe("keys that are names on Object.prototype", () => {
  const names = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

  it("are unknown keys of a campaign document, at their lines", async () => {
    const result = await load({
      "campaign.yaml": `${campaignHead("proto").replace(
        "metadata:\n",
        "constructor: x\n__proto__: y\nmetadata:\n  hasOwnProperty: 1\n",
      )}  toString: 1\n  recipients:\n    inline: []\n`,
    });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      `3:1: unknown key "constructor"; ${TOP_KEYS}`,
      `4:1: unknown key "__proto__"; ${TOP_KEYS}`,
      '6:3: metadata: unknown key "hasOwnProperty"; allowed keys: name, description',
      `11:3: spec: unknown key "toString"; ${SPEC_KEYS}`,
    ]);
  });

  it("are unknown fields of an inline recipient, at their keys", async () => {
    const result = await load({
      "campaign.yaml": `${campaignHead("proto")}  recipients:\n    inline:\n      - firstName: Ada\n${names
        .map((name) => `        ${name}: x\n`)
        .join(
          "",
        )}        address1: 1 Way\n        city: Springfield\n        state: IL\n        zipCode: "62701"\n`,
    });
    expect(at(result, result.file("campaign.yaml"))).toEqual(
      names.map((name, i) => `${11 + i}:9: spec.recipients.inline[0].${name}: unknown field "${name}"`),
    );
  });

  it("are unknown columns of a CSV header, at the header", async () => {
    const result = await load({
      "campaign.yaml": `${campaignHead("proto")}  recipients:\n    file: people.csv\n`,
      "people.csv": `${CSV_HEADER},${names.join(",")}\nAda,1 Way,Springfield,IL,62701${",x".repeat(names.length)}\n`,
    });
    expect(at(result, result.file("people.csv"))).toEqual([
      `1:1: unknown columns ${names.map((name) => `"${name}"`).join(", ")}: not recipient fields; rename any that ` +
        `is misspelled, or leave them out with ignoreColumns: [${names.map((name) => `"${name}"`).join(", ")}] ` +
        "(an option of the recipients, beside file)",
    ]);
  });

  it("are unknown fields of a JSON recipient, at their keys", async () => {
    const fields =
      '{"firstName": "Ada", "address1": "1 Way", "city": "Springfield", "state": "IL", "zipCode": "62701"';
    const result = await load({
      "campaign.yaml": `${campaignHead("proto")}  recipients:\n    file: people.json\n`,
      "people.json": `[\n  ${fields},\n${names.map((name) => `    "${name}": "x"`).join(",\n")}}\n]\n`,
    });
    expect(at(result, result.file("people.json"))).toEqual(
      names.map((name, i) => `${3 + i}:5: ${name}: unknown field "${name}"`),
    );
  });

  it("work as a key column", async () => {
    const result = await load({
      "campaign.yaml": `${campaignHead("proto")}  recipients:\n    file: people.csv\n    keyColumn: __proto__\n`,
      "people.csv": `__proto__,${CSV_HEADER}\nc1,Ada,1 Way,Springfield,IL,62701\nc2,Grace,2 Way,Springfield,IL,62701\n`,
    });
    expect(result.problems).toEqual([]);
    expect(result.campaigns).toHaveLength(1);
  });
});

describe("lines and bytes", () => {
  it(
    "shows a 10 MB key short, and accepts a 10 MB description",
    async () => {
      const result = await load(hostile.longLine(100_000));
      expect(at(result, result.file("campaign.yaml"))).toEqual([
        `16:3: unknown key "${"k".repeat(60)}…"; ${TOP_KEYS}`,
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    "reports a 10 MB CSV cell and JSON Lines value as too long",
    async () => {
      const result = await load(hostile.longCells(100_000));
      expect(at(result, result.file("people.csv"))).toEqual([
        "2:1: firstName: must be at most 500 characters long",
      ]);
      expect(at(result, result.file("people.jsonl"))).toEqual([
        "1:1: firstName: must be at most 500 characters long",
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    "reports a NUL character after 20,000 good CSV rows, once, where it is",
    async () => {
      const result = await load(hostile.binaryAfterText(20_000));
      expect(
        result.problems.map((p) => `${path.basename(p.file)}:${p.line}:${p.column}: ${p.message}`),
      ).toEqual([
        "people.csv:20002:10: not text: a control character (\\u0000) here; remove it, or save the file as UTF-8 text",
      ]);
    },
    TIMEOUT_MS,
  );

  it("reports a binary campaign or recipients file once, at its first byte that is not text", async () => {
    const notUtf8 =
      "not UTF-8 text: a byte here is not UTF-8 (is it a binary or a spreadsheet file?); save the file as UTF-8 text";
    // A spreadsheet (a zip file) named .csv, and bytes that are not UTF-8 in a campaign file.
    const zip = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]);
    const csv = await load({
      "campaign.yaml": `${campaignHead("zip")}  recipients:\n    file: people.csv\n`,
      "people.csv": zip,
    });
    expect(at(csv, csv.file("people.csv"))).toEqual([
      "1:3: not text: a control character (\\u0003) here; remove it, or save the file as UTF-8 text",
    ]);
    const yaml = await load({
      "campaign.yaml": Buffer.concat([
        Buffer.from(`${campaignHead("latin1")}# caf`),
        Buffer.from([0xe9, 0x0a]),
      ]),
    });
    expect(at(yaml, yaml.file("campaign.yaml"))).toEqual([`8:6: ${notUtf8}`]);
    const json = await load({
      "campaign.yaml": `${campaignHead("json")}  recipients:\n    file: people.json\n`,
      "people.json": Buffer.from([0x5b, 0x0a, 0xff, 0x5d]),
    });
    expect(at(json, json.file("people.json"))).toEqual([`2:1: ${notUtf8}`]);
  });

  it(
    "reads CRLF, LF and CR line ends mixed in one file, counting lines as editors do",
    async () => {
      const result = await load(hostile.mixedLineEnds(20_000));
      expect(at(result, result.file("campaign.yaml"))).toEqual([]);
      expect(at(result, result.file("people.csv"))).toEqual(["20002:1: zipCode: zipCode is required"]);
    },
    TIMEOUT_MS,
  );

  it("reads CR line ends in a campaign file, and a byte-order mark, without shifting positions", async () => {
    const text = `\uFEFF${campaignHead("cr").replace("templateId: 10001", "templateId: 0")}  recipients:\n    inline: []\n`;
    const result = await load({ "campaign.yaml": text.replace(/\n/g, "\r") });
    expect(at(result, result.file("campaign.yaml"))).toEqual([
      "7:17: spec.order.templateId: must be greater than 0; found 0",
    ]);
    const first = await load({ "campaign.yaml": text.replace("directmail/v1", "directmail/v2") });
    expect(at(first, first.file("campaign.yaml"))[0]).toBe(
      '1:13: apiVersion: must be directmail/v1; found "directmail/v2"',
    );
  });

  it("reads recipients files with a byte-order mark, without shifting positions", async () => {
    const incomplete = { firstName: "Ada", address1: "1 Way", city: "Springfield", state: "IL" };
    const result = await load({
      "campaign.yaml": ["csv", "json", "jsonl"]
        .map((ext) => `${campaignHead(`bom-${ext}`)}  recipients:\n    file: people.${ext}\n`)
        .join("---\n"),
      "people.csv": `\uFEFF${CSV_HEADER}\nAda,1 Way,Springfield,IL,\n`,
      "people.json": `\uFEFF[${JSON.stringify(incomplete)}]\n`,
      "people.jsonl": `\uFEFF${JSON.stringify(incomplete)}\n`,
    });
    expect(
      result.problems.map((p) => `${path.basename(p.file)}:${p.line}:${p.column}: ${p.message}`),
    ).toEqual([
      "people.csv:2:1: zipCode: zipCode is required",
      "people.json:1:2: zipCode: zipCode is required",
      "people.jsonl:1:1: zipCode: zipCode is required",
    ]);
  });
});

describe("LineTracker", () => {
  it("counts CRLF, LF and CR as one line end each, also when a CRLF is split between two pieces read", () => {
    const at = new LineTracker();
    at.advance("a\r\nb\nc\r");
    expect(at.positionOf("\nxy", 2)).toEqual({ line: 4, column: 2 });
    at.advance("\nxy");
    expect([at.line, at.column]).toEqual([4, 3]);
    expect(at.positionOf("z\rw", 2)).toEqual({ line: 5, column: 1 });
  });
});

describe("formatProblems", () => {
  it(`prints ${MAX_PRINTED_PROBLEMS} problems per file, then how many more there are from where`, () => {
    const problem = (file: string, line: number): CampaignProblem => ({
      file,
      line,
      column: 2,
      message: `p${line}`,
    });
    const a = path.join(process.cwd(), "a.yaml");
    const b = path.join(process.cwd(), "b.csv");
    const problems = [
      ...Array.from({ length: MAX_PRINTED_PROBLEMS + 2 }, (_, i) => problem(a, i + 1)),
      problem(b, 1),
    ];
    const lines = formatProblems(problems).split("\n");
    expect(lines).toHaveLength(MAX_PRINTED_PROBLEMS + 2);
    expect(lines.slice(MAX_PRINTED_PROBLEMS - 1)).toEqual([
      `a.yaml:${MAX_PRINTED_PROBLEMS}:2: p${MAX_PRINTED_PROBLEMS}`,
      `a.yaml:${MAX_PRINTED_PROBLEMS + 1}:2: 2 more problems in this file from here on, not listed (100 are listed per file); fix the ones above and check again`,
      "b.csv:1:2: p1",
    ]);
  });
});
