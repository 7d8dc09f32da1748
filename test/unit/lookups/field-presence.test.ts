/**
 * FieldPresence, which the loader fills as it reads a list once, tells of each field what a pass
 * over every row would: how many recipients lack it, and the first rows that do.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { FieldPresence, MAX_ROWS_NAMED } from "../../../provider/lookups/order-check";

const FIELDS = ["firstName", "custom1", "custom2", "email"];

it("counts, for any list, each field's missing recipients and its first missing rows", () => {
  const value = fc.constantFrom(undefined, "", "  ", "x", " y ");
  const row = fc.record(Object.fromEntries(FIELDS.map((f) => [f, value])), { requiredKeys: [] });
  fc.assert(
    fc.property(fc.array(row, { maxLength: 30 }), (rows) => {
      const presence = new FieldPresence();
      for (const [i, fields] of rows.entries())
        presence.add(i * 2 + 1, fields as Record<string, string | undefined>);
      for (const field of [...FIELDS, "never"]) {
        const missing = rows
          .map((fields, i) => ({
            row: i * 2 + 1,
            value: (fields as Record<string, string | undefined>)[field],
          }))
          .filter(({ value }) => (value ?? "").trim() === "")
          .map(({ row }) => row);
        expect(presence.missing(field)).toEqual({
          count: missing.length,
          rows: missing.slice(0, MAX_ROWS_NAMED),
        });
      }
      expect(presence.total).toBe(rows.length);
    }),
    { numRuns: 300 },
  );
});
