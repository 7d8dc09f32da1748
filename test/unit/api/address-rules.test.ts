/**
 * The service's offline address rules (provider/api/address-rules.ts): the sandbox drops exactly
 * the addresses they reject (plus its simulated carrier verdict), the prediction names the field
 * and never the value, and hostile values take time linear in their length.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAddress } from "../../../provider/api/address-rules";
import { predictedDropReason } from "../../../provider/recipients/index";
import { validateAddress } from "../../../sandbox/domain/address";

const base = { address1: "1 Main St", city: "Springfield", state: "IL", zipCode: "62701" };
const text = fc.oneof(
  fc.string(),
  fc.constantFrom("", " ", "12 Elm St", "PO Box 7", "P.O. Box", "Main Street", "IL", "Illinois", "ZZ"),
  fc.constantFrom("62701", "62701-1234", "627011234", "00000", "6270", "62701-12"),
  fc.constantFrom("US", "USA", "Canada", "united states"),
);
const address = fc.record({
  address1: text,
  address2: fc.option(text),
  city: text,
  state: text,
  zipCode: text,
  country: fc.option(text),
});

describe("the offline address rules", () => {
  it("agree with the sandbox: an address is dropped exactly when they find a problem, or the carrier's word is in it", () => {
    fc.assert(
      fc.property(address, (a) => {
        const offline = checkAddress(a);
        const service = validateAddress(a);
        const carrier = offline.parts !== undefined && /\bUNDELIVERABLE\b/.test(offline.parts.address1);
        expect(service.dpv === "N").toBe(offline.problems.length > 0 || carrier);
        // The service reports the same problems first, in the same order.
        expect(service.problems.slice(0, offline.problems.length)).toEqual(offline.problems);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    [
      { address1: "Main Street" },
      "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number",
    ],
    [{ address1: "PO Box" }, "ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number"],
    [{ zipCode: "6270O" }, "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code"],
    [{ zipCode: "00000" }, "ADDRESS_NOT_VALID: address.zipCode: ZIP code 00000 does not exist"],
    [{ state: "Atlantis" }, "ADDRESS_NOT_VALID: address.state: not a US state or territory"],
    [{ country: "Canada" }, "ADDRESS_NOT_VALID: address.country: only US addresses are mailed"],
    [
      { state: "Atlantis", zipCode: "1" },
      "ADDRESS_NOT_VALID: address.state: not a US state or territory; address.zipCode: not a ZIP or ZIP+4 code",
    ],
  ])("%j is predicted dropped: %s", (patch, reason) => {
    expect(predictedDropReason({ ...base, firstName: "Ada", ...patch })).toBe(reason);
  });

  it.each([
    [{}],
    [{ address1: "PO Box 77" }],
    [{ address1: "12B-14 Elm St" }],
    [{ state: "illinois", zipCode: "62701-0042" }],
    [{ address2: "rear house" }],
    [{ country: "USA" }],
  ])("%j is kept", (patch) => {
    expect(predictedDropReason({ ...base, firstName: "Ada", ...patch })).toBeUndefined();
  });

  it("never shows the value it rejected, whatever it holds", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 3 }), (value) => {
        const reason = predictedDropReason({
          ...base,
          firstName: "Ada",
          state: `Q${value}`,
          zipCode: `J${value}`,
        });
        expect(reason).toBeDefined();
        expect(reason).not.toContain(`Q${value}`);
        expect(reason).not.toContain(`J${value}`);
      }),
    );
  });

  it("takes time linear in a value's length (no backtracking)", () => {
    const timed = (n: number) => {
      const hostile = {
        address1: `${"1".repeat(n)}${" ".repeat(n)}`,
        city: "x",
        state: " ".repeat(n),
        zipCode: `${"1".repeat(n)}-`,
        country: ".".repeat(n),
      };
      const started = performance.now();
      checkAddress(hostile);
      checkAddress({ ...hostile, address1: `PO BOX ${"1".repeat(n)}x`, country: "US" });
      return performance.now() - started;
    };
    timed(1000);
    expect(timed(1_000_000)).toBeLessThan(1000);
  });
});
