/**
 * Campaign and recipient-file fuzz: thousands of generated and mutated campaign files and the
 * recipient files they name (the valid examples and the campaign-repo template, mutated; alias
 * bombs, deep nesting, duplicate keys, huge values, byte-order marks, mixed line ends, binary
 * garbage, CSV quotes never closed, keys such as `__proto__`), each through what `directmail
 * validate` runs (loadCampaignFiles), and a share (one in CLI_EVERY, and one huge file in
 * HUGE_CLI_EVERY) through the compiled CLI itself, whose output must be exactly the loader's.
 *
 * Every input must end within BUDGET_MS (of CPU time) with either no problem or problems printed as
 * `path:line:column: message`, each at a place inside its file, and no JavaScript error text.
 * Figures (part "fuzz"): fuzzCases, fuzzCrashes (an exception escaping, or the CLI printing
 * something else), fuzzHangs (over BUDGET_MS), fuzzInternalErrors (a stack trace or a JavaScript
 * error's text in a message), fuzzMisplacedProblems (a problem at no place of its file, or not
 * printed as path:line:column: message), fuzzPeakRssMiB (the CLI's peak memory, on the inputs it
 * ran), fuzzHarnessPeakRssMiB (this process's, with vitest and the inputs it made).
 *
 * The seed is fixed (FUZZ_SEED overrides it); a failing case prints the command that replays it
 * alone and is kept under test-results/fuzz-failures/.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { formatProblems, type LoadResult, loadCampaignFiles } from "../../provider/campaign/loader";
import { atScale, recordFigures } from "./support/figures";

const ROOT = path.resolve(__dirname, "../..");
const BIN = path.join(ROOT, "bin/directmail.js");
const MAX_RSS = path.join(__dirname, "support/max-rss.cjs");

/** The fixed seed of the run; a failure prints it with the run's path. */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
/** Replays one case: the path a failure printed. */
const REPLAY = process.env.FUZZ_PATH;
const CASES = REPLAY ? 1 : atScale(1_000, 10_000);
/** One case in this many also runs through the CLI, and one huge file in HUGE_CLI_EVERY. */
const CLI_EVERY = atScale(50, 100);
const HUGE_CLI_EVERY = atScale(4, 10);
/** CLI runs at once, besides the in-process checks. */
const CLI_PARALLEL = 2;
/**
 * What any input may take, beyond the CLI's own start: CPU time, which other work on a shared
 * machine does not inflate. Waiting (a stream that never ends) is bounded by WAIT_MS of wall time,
 * far above what a loaded machine takes.
 */
const BUDGET_MS = 2_000;
const WAIT_MS = 30 * BUDGET_MS;
/** The most memory `directmail validate` may take on any input. */
const MAX_PEAK_RSS_MIB = 512;
/** The most this process may take: vitest, the inputs made, and the loader on each. */
const MAX_HARNESS_RSS_MIB = 1_536;

const work = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-fuzz-"));
const failuresDir = path.join(ROOT, "test-results/fuzz-failures");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// The inputs: files by name; the campaign file is the one named in `campaign`.

type Files = Record<string, string | Uint8Array>;
interface FuzzCase {
  kind: string;
  campaign: string;
  files: Files;
}

/** The repository's valid campaigns, with the recipient files they name. */
function validSets(): { campaign: string; files: Files }[] {
  const sets: { campaign: string; files: Files }[] = [];
  const add = (dir: string) => {
    const folder = path.join(ROOT, dir);
    const names = fs.readdirSync(folder);
    for (const name of names.filter((n) => /\.ya?ml$/.test(n))) {
      const files: Files = { [name]: fs.readFileSync(path.join(folder, name), "utf8") };
      for (const other of names.filter((n) => /\.(csv|jsonl?|ndjson)$/.test(n)))
        files[other] = fs.readFileSync(path.join(folder, other), "utf8");
      sets.push({ campaign: name, files });
    }
  };
  for (const dir of [
    "examples/campaigns",
    "examples/two-step/draft",
    "examples/two-step/paid",
    "templates/campaign-repo/campaigns",
  ])
    add(dir);
  return sets;
}
const VALID = validSets();

const HEADER = ["customerId", "firstName", "lastName", "address1", "city", "state", "zipCode", "custom1"];
const FIELDS = [
  "firstName",
  "lastName",
  "toOrganization",
  "address1",
  "address2",
  "city",
  "state",
  "zipCode",
  "zip",
  "custom1",
  "custom6",
  "image1",
];
/** Keys that are special to JavaScript objects. */
const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "isPrototypeOf",
];
/** Text special to YAML, CSV or JSON, spliced into files. */
const TOKENS = [
  ...PROTO_KEYS.map((k) => `${k}: 1\n`),
  "&a ",
  "*a",
  "<<: *a\n",
  "---\n",
  "...\n",
  "[",
  "]",
  "{",
  "}",
  '"',
  "'",
  ": ",
  "- ",
  "? ",
  "\t",
  "|\n",
  ">-\n",
  "!!binary ",
  "!tag ",
  "!!str ",
  "!!map ",
  "%YAML 1.2\n",
  "%TAG ! tag:x,2000:\n",
  "#",
  "\uFEFF",
  "\r",
  "\r\n",
  "\u0000",
  "\u0085",
  "\u2028",
  "\uFFFD",
  "\uD800",
  "1e999",
  "0x1F",
  ".inf",
  "~",
  "2026-13-45",
  "62701-",
  '"unclosed',
  ',"',
  '""',
  "\\",
  "😀",
];

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A campaign document's lines 1-7, then recipients from a file. */
const fileCampaign = (file: string, extra = "") =>
  [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    "  name: fuzz",
    "spec:",
    "  order:",
    "    templateId: 10001",
    "  recipients:",
    `    file: ${JSON.stringify(file)}`,
    extra,
  ].join("\n");

const csvCell = (value: string, newline: string) =>
  /[",\r\n]/.test(value) || value.trim() !== value
    ? `"${value.replaceAll('"', '""').replaceAll("\n", newline)}"`
    : value;

const cellText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("Ada", "1 Way", "Springfield", "IL", "62701", "C-1", "") },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS, 'say "hi"', "a,b", "two\nlines", "two\r\nlines") },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 400, max: 200_000 }).map((n) => "x".repeat(n)),
  },
);

/** A CSV recipients file: a header (with odd columns now and then), rows, quoting, line ends. */
const csvFile = fc
  .record({
    extraColumns: fc.array(
      fc.oneof(fc.constantFrom(...PROTO_KEYS, "", "nope"), fc.string({ maxLength: 8 })),
      {
        maxLength: 3,
      },
    ),
    rows: fc.array(fc.array(cellText, { minLength: 0, maxLength: 10 }), { maxLength: 30 }),
    validRows: fc.nat({ max: 50 }),
    newline: fc.constantFrom("\n", "\r\n", "\r", "mixed"),
    bom: fc.boolean(),
    blankLines: fc.boolean(),
    unclosedAt: fc.option(fc.nat({ max: 60 }), { nil: undefined }),
  })
  .map(({ extraColumns, rows, validRows, newline, bom, blankLines, unclosedAt }) => {
    const ends = newline === "mixed" ? ["\r\n", "\n", "\r"] : [newline];
    const header = [...HEADER, ...extraColumns];
    const lines = [
      header.map((h) => csvCell(h, "\n")).join(","),
      ...range(validRows).map((i) => `C-${i},Ada${i},Lovelace,${i} Main St,Springfield,IL,62701,x`),
      ...rows.map((cells, i) => cells.map((c) => csvCell(c, ends[i % ends.length] as string)).join(",")),
    ];
    if (unclosedAt !== undefined) {
      const at = Math.min(unclosedAt, lines.length - 1);
      lines[at] = `${lines[at]},"never closed`;
    }
    const text = lines.map(
      (line, i) => `${line}${ends[i % ends.length]}${blankLines && i % 4 === 1 ? "\n" : ""}`,
    );
    return `${bom ? "\uFEFF" : ""}${text.join("")}`;
  });

const recipientObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELDS, ...PROTO_KEYS, "customerId"), fc.string({ maxLength: 10 })),
  fc.oneof({ weight: 4, arbitrary: cellText }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }),
  { maxKeys: 10 },
);

/** A JSON array or JSON Lines recipients file, or something that is neither. */
const jsonFile = (lines: boolean) =>
  fc
    .record({
      items: fc.array(fc.oneof({ weight: 5, arbitrary: recipientObject }, fc.jsonValue({ maxDepth: 4 })), {
        maxLength: 20,
      }),
      indent: fc.constantFrom(0, 2),
      crlf: fc.boolean(),
      bom: fc.boolean(),
      cut: fc.option(fc.nat(), { nil: undefined }),
    })
    .map(({ items, indent, crlf, bom, cut }) => {
      // JSON.stringify writes `__proto__` as an own key, as a file would have it.
      let text = lines
        ? items.map((item) => `${JSON.stringify(item)}\n`).join("")
        : JSON.stringify(items, null, indent);
      if (crlf) text = text.replaceAll("\n", "\r\n");
      if (cut !== undefined && text.length > 0) text = text.slice(0, cut % text.length);
      return `${bom ? "\uFEFF" : ""}${text}`;
    });

/** Bytes that are probably not text. */
const garbage = fc.uint8Array({ minLength: 1, maxLength: 4_096 });

/** A mutation of a text, at random places. */
type Mutation =
  | { op: "insert"; at: number; text: string }
  | { op: "delete"; at: number; length: number }
  | { op: "repeat"; at: number; length: number; times: number }
  | { op: "swapLines"; a: number; b: number }
  | { op: "lineEnds"; to: string }
  | { op: "bytes"; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      at: fc.nat(),
      text: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...TOKENS) },
        { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat(), length: fc.nat({ max: 40 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("repeat" as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 80 }),
      times: fc.integer({ min: 2, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("swapLines" as const), a: fc.nat(), b: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("lineEnds" as const),
      to: fc.constantFrom("\r\n", "\r", "mixed"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("bytes" as const),
      at: fc.nat(),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
    }),
  },
);

function mutate(input: string | Uint8Array, mutations: Mutation[]): string | Uint8Array {
  let data = input;
  for (const m of mutations) {
    if (m.op === "bytes") {
      const bytes = typeof data === "string" ? Buffer.from(data) : data;
      const at = bytes.length === 0 ? 0 : m.at % bytes.length;
      data = Buffer.concat([bytes.subarray(0, at), m.bytes, bytes.subarray(at)]);
      continue;
    }
    let text = typeof data === "string" ? data : Buffer.from(data).toString("latin1");
    const at = "at" in m ? m.at % (text.length + 1) : 0;
    if (m.op === "insert") text = text.slice(0, at) + m.text + text.slice(at);
    else if (m.op === "delete") text = text.slice(0, at) + text.slice(at + m.length);
    else if (m.op === "repeat")
      text = text.slice(0, at) + text.slice(at, at + m.length).repeat(m.times) + text.slice(at);
    else if (m.op === "swapLines") {
      const lines = text.split("\n");
      const a = m.a % lines.length;
      const b = m.b % lines.length;
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      text = lines.join("\n");
    } else {
      let i = 0;
      const ends = ["\r\n", "\n", "\r"];
      text = text.replace(/\r\n|\n/g, () => (m.to === "mixed" ? (ends[i++ % 3] as string) : m.to));
    }
    data = typeof data === "string" ? text : Buffer.from(text, "latin1");
  }
  return data;
}

/** A valid example, its campaign file or a recipients file mutated. */
const mutatedExample: fc.Arbitrary<FuzzCase> = fc
  .record({
    set: fc.constantFrom(...VALID),
    target: fc.nat(),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 6 }),
  })
  .map(({ set, target, mutations }) => {
    const names = Object.keys(set.files);
    const name = names[target % names.length] as string;
    return {
      kind: `mutated ${name}`,
      campaign: set.campaign,
      files: { ...set.files, [name]: mutate(set.files[name] as string, mutations) },
    };
  });

/** The examples' documents with one value replaced, or a key added, anywhere in them. */
const changedValue: fc.Arbitrary<FuzzCase> = fc
  .record({
    set: fc.constantFrom(...VALID),
    at: fc.nat(),
    key: fc.option(fc.oneof(fc.constantFrom(...PROTO_KEYS, "<<", "", "spec"), fc.string({ maxLength: 8 })), {
      nil: undefined,
    }),
    value: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom(...PROTO_KEYS, null, -1, 0, 1e308, "x".repeat(1_000), "csv.csv", "../x.csv", "a.jsonl"),
      fc.integer({ min: 1_000, max: 2_000_000 }).map((n) => "v".repeat(n)),
    ),
    flow: fc.boolean(),
  })
  .map(({ set, at, key, value, flow }) => {
    const text = set.files[set.campaign] as string;
    const document = YAML.parse(text.split(/^---$/m)[0] as string);
    // Every place in the document: a random one gets the value (or a new key with it).
    const places: [Record<string, unknown> | unknown[], string | number][] = [];
    const walk = (node: unknown) => {
      if (node === null || typeof node !== "object") return;
      const parent = node as Record<string, unknown>;
      for (const slot of Object.keys(parent)) {
        places.push([parent, Array.isArray(node) ? Number(slot) : slot]);
        walk(parent[slot]);
      }
    };
    walk(document);
    const [parent, slot] = places[at % places.length] as [Record<string, unknown>, string];
    if (key === undefined || Array.isArray(parent)) parent[slot] = value;
    else Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
    const written = YAML.stringify(document, {
      lineWidth: 0,
      ...(flow ? { collectionStyle: "flow" as const } : {}),
    });
    return {
      kind: "changed value",
      campaign: set.campaign,
      files: { ...set.files, [set.campaign]: written },
    };
  });

/** A campaign naming a generated recipients file (CSV, JSON, JSON Lines), with odd options. */
const recipientsFile: fc.Arbitrary<FuzzCase> = fc
  .record({
    format: fc.constantFrom("csv", "json", "jsonl", "ndjson"),
    csv: csvFile,
    json: jsonFile(false),
    jsonl: jsonFile(true),
    keyColumn: fc.option(
      fc.constantFrom("customerId", "custom1", "lastName", ...PROTO_KEYS, "missing", " "),
      {
        nil: undefined,
      },
    ),
    identityField: fc.option(fc.constantFrom("custom1", "custom6", "custom9", "__proto__"), {
      nil: undefined,
    }),
    garbage: fc.option(garbage, { freq: 10, nil: undefined }),
  })
  .map(({ format, csv, json, jsonl, keyColumn, identityField, garbage }) => {
    const name = `people.${format}`;
    const extra = [
      keyColumn === undefined ? "" : `    keyColumn: ${JSON.stringify(keyColumn)}`,
      identityField === undefined ? "" : `    identityField: ${identityField}`,
    ]
      .filter(Boolean)
      .join("\n");
    const content = garbage ?? (format === "csv" ? csv : format === "json" ? json : jsonl);
    return {
      kind: `recipients ${format}${garbage ? " garbage" : ""}`,
      campaign: "campaign.yaml",
      files: { "campaign.yaml": fileCampaign(name, extra), [name]: content },
    };
  });

/** Billion laughs: each level repeats the one before `width` times, under some key. */
const aliasBomb: fc.Arbitrary<FuzzCase> = fc
  .record({
    levels: fc.integer({ min: 2, max: 14 }),
    width: fc.integer({ min: 2, max: 12 }),
    under: fc.constantFrom("top", "inline", "description", "whole"),
  })
  .map(({ levels, width, under }) => {
    const lines = [
      `l0: &l0 [${range(width)
        .map(() => '"lol"')
        .join(", ")}]`,
    ];
    for (const i of range(levels - 1))
      lines.push(
        `l${i + 1}: &l${i + 1} [${range(width)
          .map(() => `*l${i}`)
          .join(", ")}]`,
      );
    const bomb = lines.join("\n");
    const last = `*l${levels - 1}`;
    const base = fileCampaign("people.csv").trimEnd();
    const text =
      under === "whole"
        ? `${bomb}\n${last}\n`
        : under === "top"
          ? `${base}\nx:\n${bomb.replace(/^/gm, "  ")}\ny: ${last}\n`
          : under === "description"
            ? base.replace(
                "  name: fuzz",
                `  name: fuzz\n  x:\n${bomb.replace(/^/gm, "    ")}\n  description: ${last}`,
              )
            : `${fileCampaign("people.csv").split("  recipients:")[0]}  x:\n${bomb.replace(/^/gm, "    ")}\n  recipients:\n    inline: ${last}\n`;
    return {
      kind: `alias bomb ${under}`,
      campaign: "campaign.yaml",
      files: {
        "campaign.yaml": text,
        "people.csv": "firstName,address1,city,state,zipCode\nAda,1 Way,X,IL,62701\n",
      },
    };
  });

/** Sections and lists nested deep, in flow or block style, anywhere in the document. */
const deepNesting: fc.Arbitrary<FuzzCase> = fc
  .record({
    depth: fc.integer({ min: 10, max: 20_000 }),
    style: fc.constantFrom("flow list", "flow map", "block list", "block map", "mixed flow"),
    where: fc.constantFrom("inline", "top", "name"),
  })
  .map(({ depth, style, where }) => {
    const n = style.startsWith("block") ? Math.min(depth, 1_500) : depth;
    const deep =
      style === "flow list"
        ? `${"[".repeat(n)}${"]".repeat(n)}`
        : style === "flow map"
          ? `${"{a: ".repeat(n)}1${"}".repeat(n)}`
          : style === "mixed flow"
            ? `${"[{a: ".repeat(n)}1${"}]".repeat(n)}`
            : style === "block list"
              ? `\n      ${"- ".repeat(n)}x`
              : range(n)
                  .map((i) => `\n${" ".repeat(6 + i)}a:`)
                  .join("");
    const text =
      where === "inline"
        ? `${fileCampaign("x.csv").split("    file:")[0]}    inline: ${deep}\n`
        : where === "top"
          ? `${fileCampaign("people.csv")}\nx: ${deep.replace(/\n {6}/g, "\n")}\n`
          : fileCampaign("people.csv").replace("name: fuzz", `name: ${deep.replace(/\n {6}/g, "\n    ")}`);
    return {
      kind: `deep ${style} at ${where}`,
      campaign: "campaign.yaml",
      files: {
        "campaign.yaml": text,
        "people.csv": "firstName,address1,city,state,zipCode\nAda,1 Way,X,IL,62701\n",
      },
    };
  });

/** Keys written twice (or many times), at the top, under spec, in a recipient. */
const duplicateKeys: fc.Arbitrary<FuzzCase> = fc
  .record({ set: fc.constantFrom(...VALID), line: fc.nat(), times: fc.integer({ min: 2, max: 2_000 }) })
  .map(({ set, line, times }) => {
    const lines = (set.files[set.campaign] as string).split("\n");
    const keyLines = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*[\w-]+:/.test(l));
    const [text, at] = keyLines[line % keyLines.length] as readonly [string, number];
    lines.splice(at, 1, ...Array(times).fill(text));
    return {
      kind: "duplicate keys",
      campaign: set.campaign,
      files: { ...set.files, [set.campaign]: lines.join("\n") },
    };
  });

/** Huge files: long lines, many documents, many recipients, a value of megabytes. */
const hugeFile: fc.Arbitrary<FuzzCase> = fc
  .record({
    shape: fc.constantFrom(
      "long line",
      "many documents",
      "many inline",
      "long key",
      "long csv cell",
      "many rows",
    ),
    // Up to 2 MB in one value, 500 documents, 5,000 inline recipients, 20,000 CSV rows.
    size: fc.integer({ min: 100, max: 5_000 }),
  })
  .map(({ shape, size }) => {
    const csv = "firstName,address1,city,state,zipCode\nAda,1 Way,X,IL,62701\n";
    let files: Files;
    if (shape === "long line")
      files = {
        "campaign.yaml": fileCampaign("people.csv").replace("name: fuzz", `name: ${"n".repeat(size * 400)}`),
        "people.csv": csv,
      };
    else if (shape === "long key")
      files = {
        "campaign.yaml": `${fileCampaign("people.csv")}\n? ${"k".repeat(size * 400)}\n: 1\n`,
        "people.csv": csv,
      };
    else if (shape === "many documents")
      files = {
        "campaign.yaml": range(Math.ceil(size / 10))
          .map((i) => fileCampaign("people.csv").replace("name: fuzz", `name: fuzz-${i % 7}`))
          .join("\n---\n"),
        "people.csv": csv,
      };
    else if (shape === "many inline")
      files = {
        "campaign.yaml": `${fileCampaign("x").split("    file:")[0]}    inline:\n${range(size)
          .map(
            (i) =>
              `      - {firstName: A${i}, address1: "${i} Way", city: X, state: IL, zipCode: "${i % 3 ? "62701" : ""}"}\n`,
          )
          .join("")}`,
      };
    else if (shape === "long csv cell")
      files = {
        "campaign.yaml": fileCampaign("people.csv"),
        "people.csv": `${csv}"${"c".repeat(size * 400)}",1 Way,X,IL,62701\n`,
      };
    else
      files = {
        "campaign.yaml": fileCampaign("people.csv"),
        "people.csv": `${csv}${range(size * 4)
          .map((i) => `A${i},${i} Way,X,IL,${i % 5 ? "62701" : "6270"}\n`)
          .join("")}`,
      };
    return { kind: `huge ${shape}`, campaign: "campaign.yaml", files };
  });

/** Binary garbage as the campaign file, or after a valid start. */
const binaryCampaign: fc.Arbitrary<FuzzCase> = fc
  .record({ bytes: garbage, afterValid: fc.boolean() })
  .map(({ bytes, afterValid }) => ({
    kind: "binary campaign",
    campaign: "campaign.yml",
    files: {
      "campaign.yml": afterValid ? Buffer.concat([Buffer.from(fileCampaign("people.csv")), bytes]) : bytes,
    },
  }));

const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 30, arbitrary: mutatedExample },
  { weight: 15, arbitrary: changedValue },
  { weight: 25, arbitrary: recipientsFile },
  { weight: 6, arbitrary: aliasBomb },
  { weight: 6, arbitrary: deepNesting },
  { weight: 6, arbitrary: duplicateKeys },
  { weight: 5, arbitrary: hugeFile },
  { weight: 4, arbitrary: binaryCampaign },
);

// ---------------------------------------------------------------------------------------------
// The checks

/** A JavaScript error's text, or a stack trace, in what a user reads. */
const INTERNAL =
  /\b(TypeError|RangeError|ReferenceError|SyntaxError|InternalError)\b|Cannot read propert|Cannot convert|is not a function|is not iterable|is not defined|Maximum call stack|\bundefined\b|\bNaN\b|\[object \w+\]|^\s+at .*(\(|:\d+:\d+)/m;

/** The lines of a file as loadCampaignFiles counts them (CR LF, CR and LF end a line). */
function linesOf(data: string | Uint8Array | undefined): string[] {
  if (data === undefined) return [""];
  const text = typeof data === "string" ? data.replace(/^\uFEFF/, "") : new TextDecoder().decode(data);
  return text.split(/\r\n|\r|\n/);
}

interface Outcome {
  crash?: string;
  hang?: string;
  internal?: string;
  misplaced?: string;
}

/** What one load gave: the problems placed inside their files, messages a user can read. */
function checkResult(c: FuzzCase, dir: string, result: LoadResult): Outcome {
  const outcome: Outcome = {};
  for (const problem of result.problems) {
    const name = path.relative(dir, problem.file);
    const where = `${name}:${problem.line}:${problem.column}`;
    const lines = linesOf(c.files[name]);
    const line = lines[problem.line - 1];
    if (
      !Number.isInteger(problem.line) ||
      !Number.isInteger(problem.column) ||
      problem.column < 1 ||
      line === undefined ||
      problem.column > line.length + 1
    )
      outcome.misplaced ??= `${where} is not a place in the file (${lines.length} lines): ${problem.message}`;
    if (INTERNAL.test(problem.message) && !userTextExplains(c, problem.message))
      outcome.internal ??= `${where}: ${problem.message}`;
  }
  const printed = formatProblems(result.problems, dir);
  for (const line of printed === "" ? [] : printed.split("\n"))
    if (!/^[^\n]+:\d+:\d+: ./.test(line))
      outcome.misplaced ??= `printed line is not path:line:column: message: ${line}`;
  return outcome;
}

/** A message may quote the input: an "undefined" the files themselves hold is not the program's. */
function userTextExplains(c: FuzzCase, message: string): boolean {
  const match = INTERNAL.exec(message)?.[0] ?? "";
  return Object.values(c.files).some((data) =>
    (typeof data === "string" ? data : Buffer.from(data).toString("latin1")).includes(match.trim()),
  );
}

function writeCase(dir: string, c: FuzzCase): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, data] of Object.entries(c.files)) fs.writeFileSync(path.join(dir, name), data);
}

/** The CLI on one case: its exit code, output and time, and its peak memory (KiB). */
function runCli(
  dir: string,
  file: string,
): Promise<{
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  cpuMs: number;
  rssKiB: number;
}> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--require", MAX_RSS, BIN, "validate", file], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let usage = "";
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (b: Buffer) => {
      usage += b.toString();
    });
    // Far past the budget: a hang is counted, not waited for.
    const timer = setTimeout(() => child.kill("SIGKILL"), 2 * WAIT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        ms: performance.now() - started,
        cpuMs: Number(usage.split(" ")[1]) || 0,
        rssKiB: Number(usage.split(" ")[0]) || 0,
      });
    });
  });
}

/** The CLI must print what the loader found, exactly, and nothing else. */
function checkCli(
  expected: LoadResult,
  dir: string,
  cli: Awaited<ReturnType<typeof runCli>>,
  startMs: number,
): Outcome {
  const outcome: Outcome = {};
  if (cli.cpuMs > startMs + BUDGET_MS || cli.ms > WAIT_MS)
    outcome.hang = `the CLI took ${Math.round(cli.cpuMs)} ms of CPU time, ${Math.round(cli.ms)} ms in all`;
  if (/^\s+at /m.test(cli.stderr) || /^directmail: /m.test(cli.stderr))
    outcome.internal = `the CLI printed an error: ${cli.stderr.slice(0, 500)}`;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const problems = expected.problems.length;
  // The rows the service will drop are warnings, printed before the problems, and counted in the summary.
  const warned = expected.warnings.length > 0 ? `${formatProblems(expected.warnings, dir)}\n` : "";
  const drops = expected.campaigns.reduce((n, c) => n + (c.predictedDrops?.dropped ?? 0), 0);
  const dropped =
    drops > 0 ? `; the service will drop ${plural(drops, "recipient")} (the warnings above)` : "";
  const want =
    problems === 0
      ? {
          code: 0,
          stdout: `checked 1 campaign file: 1 valid (${plural(expected.campaigns.length, "campaign")})${dropped}\n`,
          stderr: warned,
        }
      : {
          code: 1,
          stdout: "",
          stderr: `${warned}${formatProblems(expected.problems, dir)}\nchecked 1 campaign file: 0 valid, 1 with problems (${plural(problems, "problem")})${dropped}\n`,
        };
  if (cli.code !== want.code || cli.stdout !== want.stdout || cli.stderr !== want.stderr)
    outcome.crash ??= `the CLI (exit ${cli.code}) printed ${JSON.stringify((cli.stdout + cli.stderr).slice(0, 500))}, not ${JSON.stringify((want.stdout + want.stderr).slice(0, 500))}`;
  return outcome;
}

// ---------------------------------------------------------------------------------------------

describe("campaign and recipient-file fuzz", () => {
  let cliStartMs = 0;

  beforeAll(async () => {
    expect(
      fs.existsSync(path.join(ROOT, "dist/cli/commands/validate.js")),
      "run `npx tsc -p tsconfig.json` first",
    ).toBe(true);
    // The CLI's own start, on a valid example: the budget is on top of it.
    const example = path.join(ROOT, "examples/campaigns");
    const runs = [await runCli(example, "spring-sale.yaml"), await runCli(example, "spring-sale.yaml")];
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    cliStartMs = Math.max(...runs.map((r) => r.cpuMs));
  });

  it(
    `${CASES} generated and mutated inputs end in time with problems at their places (seed ${SEED})`,
    async () => {
      const counts = {
        fuzzCases: 0,
        fuzzCrashes: 0,
        fuzzHangs: 0,
        fuzzInternalErrors: 0,
        fuzzMisplacedProblems: 0,
      };
      const failures: string[] = [];
      /** Cases and CPU time by kind of input. */
      const kinds = new Map<string, { cases: number; ms: number }>();
      let childRssKiB = 0;
      let cliRuns = 0;
      let slowestMs = 0;
      let slowest = "";
      /** The case that raised this process's peak memory last, and by how much (KiB). */
      let peakCase = "";
      const inFlight = new Set<Promise<void>>();
      let run = -1;

      const report = (index: number, c: FuzzCase, dir: string, outcome: Outcome) => {
        if (outcome.crash) counts.fuzzCrashes += 1;
        if (outcome.hang) counts.fuzzHangs += 1;
        if (outcome.internal) counts.fuzzInternalErrors += 1;
        if (outcome.misplaced) counts.fuzzMisplacedProblems += 1;
        const what = outcome.crash ?? outcome.hang ?? outcome.internal ?? outcome.misplaced;
        if (what === undefined) return;
        const kept = path.join(failuresDir, `seed-${SEED}-path-${index}`);
        fs.rmSync(kept, { recursive: true, force: true });
        fs.cpSync(dir, kept, { recursive: true });
        failures.push(
          `${c.kind}: ${what}\n  replay: FUZZ_SEED=${SEED} FUZZ_PATH=${index} npx vitest run test/reliability/fuzz.test.ts` +
            `\n  files: ${path.relative(ROOT, kept)}`,
        );
      };

      const property = fc.asyncProperty(fuzzCase, async (c) => {
        run += 1;
        const index = REPLAY ? Number(REPLAY) : run;
        counts.fuzzCases += 1;
        const viaCli = index % CLI_EVERY === 0 || (c.kind.startsWith("huge") && index % HUGE_CLI_EVERY === 0);
        const dir = path.join(work, viaCli ? `cli-${index}` : "case");
        writeCase(dir, c);
        const rssBefore = process.resourceUsage().maxRSS;
        const started = performance.now();
        const cpu = process.cpuUsage();
        let result: LoadResult;
        try {
          result = await loadCampaignFiles([path.join(dir, c.campaign)], { relativeTo: dir });
        } catch (error) {
          report(index, c, dir, {
            crash: `loadCampaignFiles threw: ${(error as Error)?.stack ?? String(error)}`,
          });
          return;
        }
        const wallMs = performance.now() - started;
        const { user, system } = process.cpuUsage(cpu);
        const ms = (user + system) / 1000;
        const rssAfter = process.resourceUsage().maxRSS;
        if (rssAfter - rssBefore > 10_240)
          peakCase = `${c.kind} (path ${index}) to ${Math.round(rssAfter / 1024)} MiB`;
        const kind = kinds.get(c.kind.split(" ")[0] as string) ?? { cases: 0, ms: 0 };
        kinds.set(c.kind.split(" ")[0] as string, { cases: kind.cases + 1, ms: kind.ms + ms });
        if (ms > slowestMs) [slowestMs, slowest] = [ms, `${c.kind} (path ${index})`];
        const outcome = checkResult(c, dir, result);
        if (ms > BUDGET_MS || wallMs > WAIT_MS)
          outcome.hang = `loadCampaignFiles took ${Math.round(ms)} ms of CPU time, ${Math.round(wallMs)} ms in all`;
        if (!viaCli) return report(index, c, dir, outcome);

        while (inFlight.size >= CLI_PARALLEL) await Promise.race(inFlight);
        const done = runCli(dir, c.campaign).then((cli) => {
          childRssKiB = Math.max(childRssKiB, cli.rssKiB);
          cliRuns += 1;
          report(index, c, dir, { ...checkCli(result, dir, cli, cliStartMs), ...outcome });
          fs.rmSync(dir, { recursive: true, force: true });
          inFlight.delete(done);
        });
        inFlight.add(done);
      });
      await fc.assert(property, {
        seed: SEED,
        // With a path, fast-check starts at that run: one run replays it.
        numRuns: CASES,
        ...(REPLAY ? { path: REPLAY } : {}),
      });
      await Promise.all(inFlight);

      const peakRssMiB = Math.round(childRssKiB / 1024);
      const harnessRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
      recordFigures("fuzz", {
        ...counts,
        fuzzCliRuns: cliRuns,
        fuzzPeakRssMiB: peakRssMiB,
        fuzzHarnessPeakRssMiB: harnessRssMiB,
        fuzzSlowestMs: Math.round(slowestMs),
      });
      console.log(
        `fuzz: seed ${SEED}, ${counts.fuzzCases} cases (${[...kinds].map(([k, { cases, ms }]) => `${k} ${cases} in ${Math.round(ms)} ms`).join(", ")}); ` +
          `slowest ${Math.round(slowestMs)} ms of CPU time: ${slowest}; ${cliRuns} through the CLI, its peak RSS ${peakRssMiB} MiB; ` +
          `this process's ${harnessRssMiB} MiB (last raised by ${peakCase || "none"})`,
      );
      expect(failures.slice(0, 20), `${failures.length} failing cases`).toEqual([]);
      expect(counts.fuzzCases).toBe(CASES);
      expect(counts).toMatchObject({
        fuzzCrashes: 0,
        fuzzHangs: 0,
        fuzzInternalErrors: 0,
        fuzzMisplacedProblems: 0,
      });
      expect(peakRssMiB).toBeLessThanOrEqual(MAX_PEAK_RSS_MIB);
      expect(harnessRssMiB).toBeLessThanOrEqual(MAX_HARNESS_RSS_MIB);
    },
    atScale(300_000, 1_800_000),
  );
});
