/**
 * plainlyValid, the loader's way past the schema for a plainly valid row, takes only rows the
 * schema takes, and gives what the schema gives; any other row is left to the schema.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { DeclaredRecipient, plainlyValid } from "../../../provider/recipients/index";

const FIELDS = ["firstName", "lastName", "toOrganization", "address1", "city", "state", "zipCode", "custom1"];

it("agrees with the schema on any fields", () => {
  const value = fc.oneof(
    fc.constantFrom("", " ", "\t", "Ada", " Ada ", "\u00a0Ada", "62701"),
    fc.string({ maxLength: 3 }),
    fc.string({ minLength: 499, maxLength: 502 }),
  );
  const fields = fc.record(Object.fromEntries(FIELDS.map((f) => [f, value])), { requiredKeys: [] });
  fc.assert(
    fc.property(fields, (given) => {
      const plain = plainlyValid({ ...(given as Record<string, string>) });
      const parsed = DeclaredRecipient.safeParse({ ...given });
      if (plain !== undefined) expect(parsed).toEqual({ success: true, data: plain });
      else if (parsed.success)
        // Left to the schema only where the schema finds a problem.
        expect.fail(`plainlyValid refused what the schema takes: ${JSON.stringify(given)}`);
    }),
    { numRuns: 1000 },
  );
});
