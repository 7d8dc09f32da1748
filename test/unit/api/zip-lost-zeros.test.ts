/**
 * A ZIP code a spreadsheet stored as a number loses its leading zeros (02134 becomes 2134): the
 * address rule that the sandbox drops it by and `directmail validate` predicts with says so, and
 * what to do, in one place; the value stays out of the reason once redacted.
 */
import { describe, expect, it } from "vitest";
import { addressNotValidReason, checkAddress } from "../../../provider/api/address-rules";
import { redactReason } from "../../../provider/api/reasons";
import { predictedDropReason } from "../../../provider/recipients/index";

const address = { address1: "1 Main St", city: "Boston", state: "MA" };
const zipProblems = (zipCode: string) => checkAddress({ ...address, zipCode }).problems;

describe("a ZIP code that lost its leading zeros", () => {
  it.each([
    ["2134", "'2134' is a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero"],
    ["501", "'501' is a ZIP code of 3 digits: a spreadsheet may have dropped its leading zeros"],
    ["2134-1234", "'2134-1234' is a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero"],
    [" 2134 ", "' 2134 ' is a ZIP code of 4 digits: a spreadsheet may have dropped its leading zero"],
  ])("%j: says how many digits it has and what to do", (zip, start) => {
    expect(zipProblems(zip)).toEqual([
      { field: "zipCode", message: `${start} (format the column as text and write all 5 digits)` },
    ]);
  });

  it.each(["21", "213456", "2134A", "21345-12"])("%j is not a ZIP, as before", (zip) => {
    expect(zipProblems(zip)).toEqual([{ field: "zipCode", message: `'${zip}' is not a ZIP or ZIP+4 code` }]);
  });

  it("is kept out of the reason once redacted, as the provider shows the service's reasons", () => {
    const reason = addressNotValidReason(zipProblems("2134"));
    expect(redactReason(reason)).toBe(
      "ADDRESS_NOT_VALID: address.zipCode: a ZIP code of 4 digits: a spreadsheet may have dropped its leading " +
        "zero (format the column as text and write all 5 digits)",
    );
    expect(predictedDropReason({ ...address, firstName: "Ada", zipCode: "2134" })).toBe(redactReason(reason));
  });

  it("02134 and 02134-0001 are ZIP codes", () => {
    expect(zipProblems("02134")).toEqual([]);
    expect(zipProblems("02134-0001")).toEqual([]);
  });
});
