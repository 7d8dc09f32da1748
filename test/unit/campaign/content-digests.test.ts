/**
 * A read without content digests (`directmail validate`: LoadOptions.contentDigests false) finds
 * what a read with them finds: the same problems in the same order, the same duplicates, the same
 * recipients handed on; a row whose key an earlier row has is judged against that row read again.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadCampaignFiles, recipientListOf } from "../../../provider/campaign/loader";
import { type RecipientSourceOptions, recipientList } from "../../../provider/recipients/index";
import { fileCampaign, tempDir } from "./fixtures";

const folder = tempDir("directmail-content-digests-");
afterAll(() => folder.remove());

const HEADER = "customerId,firstName,lastName,address1,city,state,zipCode\n";
/** A row of customer `key` with details `variant`; a bad row has no address. */
const row = (key: string, variant: number, bad = false) =>
  `${key},Ada${variant},Lovelace,${bad ? "" : `${variant + 1} Main St`},Springfield,IL,62701\n`;

/** What a survey found, with and without content digests, and the rows each handed on. */
async function bothWays(file: string, options: RecipientSourceOptions) {
  const read = async (contentDigests: boolean) => {
    const handed: number[] = [];
    const found = await recipientList({ file }, { ...options, contentDigests }).survey(({ row }) => {
      handed.push(row);
      return 0;
    });
    const { set, ...rest } = found;
    return { ...rest, handed, keys: [...set.values()].map(({ key, row }) => ({ key, row })) };
  };
  return { withDigests: await read(true), without: await read(false) };
}

describe("a read without content digests", () => {
  it("tells duplicates from rows that reuse a key with other details, as a read with them does", async () => {
    const file = folder.write(
      "repeated.csv",
      HEADER +
        row("C1", 1) +
        row("C2", 2) +
        row("C1", 1) + // a duplicate of row 2
        row("C3", 3, true) + // a problem of its own
        row("C2", 9) + // row 3's key, other details: a problem
        row("C1", 1) + // a duplicate again
        row("C4", 4),
    );
    const { withDigests, without } = await bothWays(file, {
      identityField: "custom6",
      keyColumn: "customerId",
      maxProblems: 20,
    });
    expect(without).toEqual(withDigests);
    expect(without.duplicateRows).toBe(2);
    expect(without.problems.map((p) => p.row)).toEqual([5, 6]);
    expect(without.problems[1]?.message).toBe('customerId "C2" is used by row 3 too, with different details');
  });

  it("keeps the same first problems when a repeated key's problem and others pass maxProblems", async () => {
    const file = folder.write(
      "many.csv",
      HEADER + row("K", 1) + row("K", 2) + [5, 6, 7, 8].map((n) => row(`B${n}`, n, true)).join(""),
    );
    const { withDigests, without } = await bothWays(file, {
      identityField: "custom6",
      keyColumn: "customerId",
      maxProblems: 3,
    });
    expect(without).toEqual(withDigests);
    // A batch's rows are judged against earlier rows after its other problems are found.
    expect(without.problems.map((p) => p.row)).toEqual([4, 5, 6]);
    expect(without.problemCount).toBe(5);
  });

  it("gives no digest: its content digests are its keys, so the set's would not show a change", async () => {
    const file = folder.write("no-digest.csv", HEADER + row("C1", 1) + row("C2", 2));
    const options = { identityField: "custom6" as const, keyColumn: "customerId" };
    const without = await recipientList({ file }, { ...options, contentDigests: false }).survey();
    expect(without.set.size).toBe(2);
    expect(() => without.digest).toThrow("a list surveyed without content digests has no digest");
    const withDigests = await recipientList({ file }, options).survey();
    expect(withDigests.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds the same for any list of repeated keys, details and bad rows", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.nat(5), variant: fc.nat(2), bad: fc.boolean() }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        async (rows, maxProblems) => {
          const file = folder.write(
            `property-${n++}.csv`,
            HEADER + rows.map((r) => row(`C${r.key}`, r.variant, r.bad && r.variant === 0)).join(""),
          );
          const { withDigests, without } = await bothWays(file, {
            identityField: "custom6",
            keyColumn: "customerId",
            maxProblems,
          });
          expect(without).toEqual(withDigests);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("through the loader: the same problems and warnings, and a list without a set", async () => {
    folder.write(
      "loader/people.csv",
      HEADER + row("C1", 1) + row("C2", 2) + row("C1", 1) + row("C2", 5) + row("C3", 3),
    );
    const campaign = folder.write("loader/c.yaml", fileCampaign("c", "people.csv", "customerId"));
    const withDigests = await loadCampaignFiles([campaign]);
    const without = await loadCampaignFiles([campaign], { contentDigests: false });
    expect(without).toEqual(withDigests);
    expect(without.problems.map((p) => [p.line, p.message])).toEqual([
      [5, 'customerId: customerId "C2" is used by row 3 too, with different details'],
    ]);

    folder.write("loader/valid.csv", HEADER + row("C1", 1) + row("C1", 1) + row("C2", 2));
    const valid = folder.write("loader/v.yaml", fileCampaign("v", "valid.csv", "customerId"));
    const [digested] = (await loadCampaignFiles([valid])).campaigns;
    const [undigested] = (await loadCampaignFiles([valid], { contentDigests: false })).campaigns;
    const list = digested && recipientListOf(digested);
    const bare = undigested && recipientListOf(undigested);
    expect(list?.set?.size).toBe(2);
    expect(bare?.set).toBeUndefined();
    expect(bare?.duplicateRows).toBe(1);
    expect(bare?.fields).toEqual(list?.fields);
  });
});
