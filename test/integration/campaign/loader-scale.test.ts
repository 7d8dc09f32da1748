/**
 * The campaign loader and the review's comparison at scale, in bounded memory: they keep each
 * recipient's key, content digest and row, never the row itself. Each runs the compiled code (dist/)
 * in a child process under a small heap limit, which a loader holding an object per recipient runs
 * out of. Not a timed test: the times are the benchmark's (`big`).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "../../..");
const dist = (file: string) => JSON.stringify(path.join(repoRoot, "dist", file));
const ROWS = 100_000;
let dir: string;

/** A CSV of ROWS customers; `changed` gives every 100th another last name, `added` more rows after. */
function writeCsv(file: string, changed = false, added = 0): void {
  const lines = ["customerId,firstName,lastName,address1,city,state,zipCode"];
  for (let n = 0; n < ROWS + added; n++) {
    const last = changed && n % 100 === 99 && n < ROWS ? "Byron" : "Lovelace";
    // Every 500th an address the service drops (no ZIP code it knows): the loader tells of each.
    const zip = n % 500 === 250 ? "00000" : "62701";
    lines.push(`C${n},Ada${n},${last},${n + 1} Main St,Springfield,IL,${zip}`);
  }
  fs.writeFileSync(path.join(dir, file), `${lines.join("\n")}\n`);
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-loader-scale-"));
  writeCsv("people.csv");
  writeCsv("changed.csv", true, 100);
  fs.writeFileSync(
    path.join(dir, "campaign.yaml"),
    [
      "apiVersion: directmail/v1",
      "kind: Campaign",
      "metadata:",
      "  name: big",
      "spec:",
      "  order:",
      "    templateId: 1",
      "  recipients:",
      "    file: people.csv",
      "    keyColumn: customerId",
      "",
    ].join("\n"),
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `script` in node with its old generation limited to `mib`; what it printed, parsed. */
async function underHeapLimit(script: string, mib: number): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`--max-old-space-size=${mib}`, "-e", script],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  return JSON.parse(stdout);
}

it(`loads a campaign of ${ROWS.toLocaleString("en-US")} recipients under a 40 MiB heap, every warning told`, async () => {
  const script = [
    `const { loadCampaignFiles } = require(${dist("provider/campaign/loader.js")});`,
    'loadCampaignFiles(["campaign.yaml"]).then((r) => console.log(JSON.stringify({',
    "  campaigns: r.campaigns.length, problems: r.problems.length, warnings: r.warnings.length,",
    "  predicted: r.campaigns[0].predictedDrops })));",
  ].join("\n");
  expect(await underHeapLimit(script, 40)).toEqual({
    campaigns: 1,
    problems: 0,
    // The 100 listed and one that counts the rest.
    warnings: 101,
    predicted: expect.objectContaining({ declared: ROWS, dropped: ROWS / 500 }),
  });
}, 120_000);

it("compares two lists of that size under a 40 MiB heap", async () => {
  const script = [
    `const { compareRecipients } = require(${dist("cli/review/recipients.js")});`,
    "const side = (file) => ({ source: { file }, shownAs: file, keyColumn: 'customerId', identityField: undefined });",
    "compareRecipients(side('people.csv'), side('changed.csv'), { showPersonalData: false }).then((r) =>",
    "  console.log(JSON.stringify({ added: r.added, changed: r.changed, removed: r.removed, first: r.changedList[0] })));",
  ].join("\n");
  expect(await underHeapLimit(script, 40)).toEqual({
    added: 100,
    changed: ROWS / 100,
    removed: 0,
    first: { key: "C99", row: 101, fields: ["lastName"] },
  });
}, 120_000);

it("picks rows across a text larger than its heap: a picked record does not keep the text around it", async () => {
  // 700,000 lines (about 42 MB) in pieces of 64 KiB, every 350th line picked: records kept as
  // slices of the pieces they were cut from kept every piece alive, more than the 24 MiB heap.
  const script = [
    `const { recordsAtLines } = require(${dist("provider/recipients/index.js")});`,
    `const { memoryBudget } = require(${dist("provider/memory-budget.js")});`,
    "const LINES = 700000;",
    "async function* pieces() {",
    "  let piece = '';",
    "  for (let n = 0; n < LINES; n++) {",
    "    piece += 'C' + n + ',Ada' + n + ',Lovelace,' + (n + 1) + ' Main St,Springfield,IL,62701\\n';",
    "    if (piece.length >= 65536) { yield piece; piece = ''; }",
    "  }",
    "  yield piece;",
    "}",
    "const only = new Set();",
    "for (let line = 2; line <= LINES; line += 350) only.add(line);",
    "recordsAtLines(pieces(), only, memoryBudget()).then((r) => console.log(JSON.stringify({",
    "  records: r.lines.size, last: r.text.split('\\n').at(-1), lastLine: Math.max(...r.lines.values()) })));",
  ].join("\n");
  expect(await underHeapLimit(script, 24)).toEqual({
    records: 2001, // the first line (the header's place) and 2,000 picked
    last: "C699651,Ada699651,Lovelace,699652 Main St,Springfield,IL,62701",
    lastLine: 699652,
  });
}, 120_000);
