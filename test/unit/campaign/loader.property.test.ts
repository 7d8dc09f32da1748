/**
 * Property tests: whatever a campaign file (or the recipients file it names) holds, the loader
 * returns campaigns or problems with real positions; it never throws.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { type LoadResult, loadCampaignFiles } from "../../../provider/campaign/loader";
import { CampaignDocument } from "../../../provider/campaign/schema";
import { tempDir } from "./fixtures";

const tmp = tempDir("directmail-loader-prop-");
afterAll(tmp.remove);

let counter = 0;
function nextFile(text: string, ext = "yaml"): string {
  counter += 1;
  return tmp.write(`case-${counter}.${ext}`, text);
}

/** Every problem names a file it belongs to and a position inside it. */
function expectWellFormed(result: LoadResult, files: Record<string, string>): void {
  for (const problem of result.problems) {
    const text = files[problem.file];
    expect(text, `problem in an unexpected file: ${problem.file}`).toBeDefined();
    // A lone CR ends a line too (readline and csv-parse count it, as editors do).
    const lineCount = (text ?? "").split(/\r\n|\r|\n/).length;
    expect(Number.isInteger(problem.line) && problem.line >= 1 && problem.line <= lineCount).toBe(true);
    expect(Number.isInteger(problem.column) && problem.column >= 1).toBe(true);
    expect(problem.message.length).toBeGreaterThan(0);
    expect(problem.message).not.toMatch(/\n\s+at /); // no stack trace
  }
}

const validDocument = () => ({
  apiVersion: "directmail/v1",
  kind: "Campaign",
  metadata: { name: "prop" },
  spec: {
    order: { templateId: 10001, useQr: true },
    recipients: {
      inline: [{ firstName: "Ada", address1: "1 Way", city: "Springfield", state: "IL", zipCode: "62701" }],
      maxDroppedPercent: 5,
    },
    checkout: { postageType: "Standard", productionSpeed: "Normal" },
    addressBook: [{ address1: "5 Oven Road", city: "Madison", state: "WI", zip: "53703" }],
  },
});

/** Paths into the valid document where a mutation lands (existing keys and new ones). */
const mutationPath = fc.constantFrom<(string | number)[]>(
  [],
  ["apiVersion"],
  ["kind"],
  ["metadata"],
  ["metadata", "name"],
  ["metadata", "extra"],
  ["spec"],
  ["spec", "order"],
  ["spec", "order", "templateId"],
  ["spec", "order", "qrUrl"],
  ["spec", "recipients"],
  ["spec", "recipients", "inline"],
  ["spec", "recipients", "inline", 0],
  ["spec", "recipients", "inline", 0, "zipCode"],
  ["spec", "recipients", "inline", 0, "custom6"],
  ["spec", "recipients", "file"],
  ["spec", "recipients", "keyColumn"],
  ["spec", "checkout"],
  ["spec", "checkout", "holdUntilDate"],
  ["spec", "addressBook", 0],
  ["spec", "addressBook", 0, "zip"],
);

type Mutation = { path: (string | number)[]; action: "set" | "delete"; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: mutationPath,
  action: fc.constantFrom("set" as const, "delete" as const),
  value: fc.jsonValue({ maxDepth: 3 }),
});

function apply(document: Record<string, unknown>, m: Mutation): unknown {
  if (m.path.length === 0) return m.action === "set" ? m.value : document;
  let parent: unknown = document;
  for (const segment of m.path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return document;
    parent = (parent as Record<string | number, unknown>)[segment];
  }
  if (typeof parent !== "object" || parent === null) return document;
  const last = m.path[m.path.length - 1] as string | number;
  if (m.action === "delete") delete (parent as Record<string | number, unknown>)[last];
  else (parent as Record<string | number, unknown>)[last] = m.value;
  return document;
}

describe("the loader never throws", () => {
  it("on random text", async () => {
    const yamlish = fc.string({
      unit: fc.constantFrom(
        ..."ab:-? \n\t#&*!|>'\"{}[],%@`~0.\\".split(""),
        "---\n",
        "...\n",
        "kind: Campaign\n",
      ),
      maxLength: 200,
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(yamlish, fc.string({ unit: "binary", maxLength: 200 })), async (text) => {
        const file = nextFile(text);
        const result = await loadCampaignFiles([file]);
        expectWellFormed(result, { [file]: text });
        expect(result.campaigns.length + result.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("on mutated campaign documents, and loads exactly the ones the schema accepts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { maxLength: 4 }), async (mutations) => {
        let document: unknown = validDocument();
        for (const m of mutations) {
          if (typeof document === "object" && document !== null && !Array.isArray(document)) {
            document = apply(document as Record<string, unknown>, m);
          }
        }
        const text = YAML.stringify(document);
        const file = nextFile(text);
        const result = await loadCampaignFiles([file]);
        expectWellFormed(result, { [file]: text });
        const schemaAccepts = CampaignDocument.safeParse(YAML.parse(text)).success;
        if (!schemaAccepts) expect(result.problems.length).toBeGreaterThan(0);
        if (result.problems.length === 0) expect(result.campaigns).toHaveLength(1);
        for (const campaign of result.campaigns)
          expect(CampaignDocument.safeParse(campaign.document).success).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("on several documents in one file, loading the valid ones with their index", async () => {
    const doc = fc.oneof(
      fc.constant(validDocument()),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant({ ...validDocument(), kind: "Order" }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 4 }), async (docs) => {
        // Distinct names, so only a document's own content decides.
        const named = docs.map((d, i) =>
          typeof d === "object" && d !== null && "metadata" in d
            ? { ...d, metadata: { name: `doc-${i}` } }
            : d,
        );
        const text = named.map((d) => YAML.stringify(d)).join("---\n");
        const file = nextFile(text);
        const result = await loadCampaignFiles([file]);
        expectWellFormed(result, { [file]: text });
        for (const campaign of result.campaigns) {
          expect(campaign.document.metadata.name).toBe(`doc-${campaign.documentIndex}`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("on random recipients files", async () => {
    // Any mix of line ends: each "\n" becomes CRLF, LF or CR.
    const csvish = fc
      .tuple(
        fc.string({
          unit: fc.constantFrom(...'ab,"\n 0;'.split(""), "firstName", "zipCode", "address1", "custom6"),
          maxLength: 200,
        }),
        fc.array(fc.constantFrom("\n", "\r\n", "\r"), { minLength: 1 }),
      )
      .map(([text, ends]) => {
        let i = 0;
        return text.replace(/\n/g, () => ends[i++ % ends.length] as string);
      });
    const jsonish = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("csv", "json", "jsonl"),
        fc.oneof(csvish, jsonish, fc.string({ maxLength: 100 })),
        async (ext, content) => {
          const recipients = nextFile(content, ext);
          const text = YAML.stringify({
            ...validDocument(),
            spec: { order: { templateId: 1 }, recipients: { file: path.basename(recipients) } },
          });
          const file = nextFile(text);
          const result = await loadCampaignFiles([file]);
          expectWellFormed(result, { [file]: text, [recipients]: fs.readFileSync(recipients, "utf8") });
        },
      ),
      { numRuns: 300 },
    );
  });
});
