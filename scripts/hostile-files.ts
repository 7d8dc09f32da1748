/**
 * Hostile campaign and recipients files of a chosen size, for the tests of the campaign loader
 * (test/integration/campaign/hostile.test.ts) and for scripts/bench/validate.ts: each one once made the
 * loader's time grow with the square of its size, crash, or report nonsense.
 *
 * Each case is a set of files (name → text) whose campaign file is `campaign.yaml`.
 */

export type HostileFiles = Record<string, string>;

/** Lines 1-7 of every campaign here; `recipients:` follows on line 8 (under `spec`). */
export function campaignHead(name: string): string {
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    "    templateId: 10001",
    "",
  ].join("\n");
}

/** Lines 8-9: recipients from a file. */
const fromFile = (file: string) => `  recipients:\n    file: ${file}\n`;

/** Lines 8-14: one inline recipient. */
const oneInline = [
  "  recipients:",
  "    inline:",
  "      - firstName: Ada",
  "        address1: 1 Way",
  "        city: Springfield",
  "        state: IL",
  '        zipCode: "62701"',
  "",
].join("\n");

export const CSV_HEADER = "firstName,address1,city,state,zipCode";
export const csvRow = (i: number) => `Ada${i},${i} Way,Springfield,IL,62701`;
const recipientFields = {
  firstName: "Ada",
  address1: "1 Way",
  city: "Springfield",
  state: "IL",
  zipCode: "62701",
};

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export const hostile = {
  /** `n` unknown keys at the top of the document, from line 15 on. */
  topKeys: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("top-keys")}${oneInline}${range(n)
      .map((i) => `k${i}: 1\n`)
      .join("")}`,
  }),

  /** `n` unknown keys under `spec`, from line 15 on. */
  specKeys: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("spec-keys")}${oneInline}${range(n)
      .map((i) => `  k${i}: 1\n`)
      .join("")}`,
  }),

  /** The key `dup` written `n` times under `spec`, from line 15 on. */
  duplicateKeys: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("dup-keys")}${oneInline}${"  dup: 1\n".repeat(n)}`,
  }),

  /** A JSON recipient with `n` unknown keys besides its fields, all on line 2. */
  jsonKeys: (n: number): HostileFiles => {
    const extra = range(n).map((i) => `"k${i}": "x"`);
    return {
      "campaign.yaml": `${campaignHead("json-keys")}${fromFile("people.json")}`,
      "people.json": `[\n${JSON.stringify(recipientFields).slice(0, -1)}, ${extra.join(", ")}}\n]\n`,
    };
  },

  /** Flow lists nested `n` deep on line 9, after `    inline: ` (12 characters). */
  deepFlow: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("deep-flow")}  recipients:\n    inline: ${"[".repeat(n)}${"]".repeat(n)}\n`,
  }),

  /** Block lists nested `n` deep on line 10 (`- - - x`), from column 7. */
  deepBlock: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("deep-block")}  recipients:\n    inline:\n      ${"- ".repeat(n)}x\n`,
  }),

  /**
   * `n` anchors, each with an alias, in a list under an unknown key `x` on line 15 (yaml's own
   * resolution scanned the document for each alias).
   */
  aliases: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("aliases")}${oneInline}x: [${range(n)
      .map((i) => `&a${i} ${i}, *a${i}`)
      .join(", ")}]\n`,
  }),

  /** A CSV header with `n` unknown columns after the known ones, and one row. */
  csvColumns: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("csv-columns")}${fromFile("people.csv")}`,
    "people.csv": `${CSV_HEADER},${range(n)
      .map((i) => `c${i}`)
      .join(",")}\n${csvRow(0)}${",x".repeat(n)}\n`,
  }),

  /** `n` CSV rows without a ZIP code (rows 2 to n + 1). */
  csvRows: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("csv-rows")}${fromFile("people.csv")}`,
    "people.csv": `${CSV_HEADER}\n${range(n)
      .map((i) => `${csvRow(i).slice(0, -"62701".length)}\n`)
      .join("")}`,
  }),

  /**
   * A description of 100·`n` characters (line 4), and an unknown key of 100·`n` characters on
   * line 16 (written `? key`: YAML allows at most 1024 characters in a plain key).
   */
  longLine: (n: number): HostileFiles => {
    const head = campaignHead("long-line").replace(
      "metadata:\n",
      `metadata:\n  description: ${"d".repeat(100 * n)}\n`,
    );
    return { "campaign.yaml": `${head}${oneInline}? ${"k".repeat(100 * n)}\n: 1\n` };
  },

  /** A CSV cell (line 2) and a JSON Lines line (line 1) of 100·`n` characters. */
  longCells: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("long-csv")}${fromFile("people.csv")}---\n${campaignHead("long-jsonl")}${fromFile("people.jsonl")}`,
    "people.csv": `${CSV_HEADER}\n${"x".repeat(100 * n)},1 Way,Springfield,IL,62701\n`,
    "people.jsonl": `${JSON.stringify({ ...recipientFields, firstName: "x".repeat(100 * n) })}\n`,
  }),

  /** `n` valid CSV rows, then one with a NUL character in its second cell (line n + 2, column 10). */
  binaryAfterText: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("binary")}${fromFile("people.csv")}`,
    "people.csv": `${CSV_HEADER}\n${range(n)
      .map((i) => `${csvRow(i)}\n`)
      .join("")}Ada,1 Way\u0000,Springfield,IL,62701\n`,
  }),

  /**
   * `n` CSV rows with CRLF, LF and CR line ends in turn, and a campaign file with all three; the
   * last row (line n + 2) has no ZIP code.
   */
  mixedLineEnds: (n: number): HostileFiles => {
    const ends = ["\r\n", "\n", "\r"];
    const lines = [CSV_HEADER, ...range(n).map(csvRow), "Grace,1 Way,Springfield,IL,"];
    return {
      "campaign.yaml": `${campaignHead("mixed")}${fromFile("people.csv")}`
        .split("\n")
        .map((line, i) => `${line}${ends[i % 3]}`)
        .join(""),
      "people.csv": lines.map((line, i) => `${line}${ends[i % 3]}`).join(""),
    };
  },

  /** `n` campaigns in one file, all naming the same recipients file of `n` rows: valid. */
  sharedRecipients: (n: number): HostileFiles => ({
    "campaign.yaml": range(n)
      .map((i) => `${campaignHead(`c${i}`)}${fromFile("people.csv")}`)
      .join("---\n"),
    "people.csv": `${CSV_HEADER}\n${range(n)
      .map((i) => `${csvRow(i)}\n`)
      .join("")}`,
  }),

  /** The floor: a valid campaign with `n` CSV recipients, as a user's largest lists are. */
  floor: (n: number): HostileFiles => ({
    "campaign.yaml": `${campaignHead("floor")}${fromFile("people.csv")}`,
    "people.csv": `${CSV_HEADER}\n${range(n)
      .map((i) => `${csvRow(i)}\n`)
      .join("")}`,
  }),
} satisfies Record<string, (n: number) => HostileFiles>;

export type HostileCase = keyof typeof hostile;
