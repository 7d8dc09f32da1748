/** The deterministic rules of docs/sandbox.md, one table each: addresses, images, fault paths. */
import { describe, expect, test } from "vitest";
import { standardizeLine } from "../../provider/api/schemas/address-standard";
import { doNotMailKey, validateAddress } from "../../sandbox/domain/address";
import { checkImage } from "../../sandbox/domain/images";
import { FaultTable } from "../../sandbox/http/faults";

const base = { address1: "1 Main St", city: "Springfield", state: "IL", zipCode: "62701" };

describe("address standardization (docs/sandbox.md, Addresses)", () => {
  test.each([
    ["123 north main street", "123 N MAIN ST"],
    ["  45   Elm   Avenue. ", "45 ELM AVE"],
    ["9 Sunset Boulevard", "9 SUNSET BLVD"],
    ["700 South-West Parkway", "700 SOUTH-WEST PKWY"],
    ["12 Northeast Circle Drive", "12 NE CIR DR"],
    ["1 Park Place, Suite 200", "1 PARK PL STE 200"],
    ["5 Oak Rd # 4", "5 OAK RD #4"],
    ["PO Box 77", "PO BOX 77"],
  ])("%j -> %j", (input, expected) => {
    expect(standardizeLine(input)).toBe(expected);
  });

  test("state names become codes, ZIP+4 is split, zip4 and zip2 are derived deterministically", () => {
    const a = validateAddress({ ...base, state: "illinois", zipCode: "62701-0042" });
    expect(a.standard).toMatchObject({
      state: "IL",
      zipCode: "62701",
      zip4: "0042",
      zip2: "01",
      country: "US",
    });
    const b = validateAddress({ ...base, address1: "1234 Main St" });
    const again = validateAddress({ ...base, address1: "1234 main street" });
    expect(b.standard?.zip4).toMatch(/^\d{4}$/);
    expect(again.standard?.zip4).toBe(b.standard?.zip4);
    expect(b.standard?.zip2).toBe("34");
    expect(b.standard?.fullAddress).toBe(`1234 MAIN ST, SPRINGFIELD, IL 62701-${b.standard?.zip4}`);
  });

  test.each([
    [{ address1: "" }, "address1"],
    [{ city: null }, "city"],
    [{ state: "Atlantis" }, "state"],
    [{ zipCode: "6270" }, "zipCode"],
    [{ zipCode: "00000" }, "zipCode"],
    [{ address1: "Main Street" }, "address1"],
    [{ address1: "1 Undeliverable Rd" }, "address1"],
    [{ country: "Canada" }, "country"],
  ])("N (dropped): %j names %s", (patch, field) => {
    const r = validateAddress({ ...base, ...patch });
    expect(r.dpv).toBe("N");
    expect(r.standard).toBeNull();
    expect(r.problems.map((p) => p.field)).toContain(field);
  });

  test.each([
    [{}, "Y"],
    [{ address2: "Apt 5" }, "Y"],
    [{ address2: "#5" }, "Y"],
    [{ address2: "Unit B" }, "Y"],
    [{ address2: "rear house" }, "S"],
    [{ address1: "8 River Towers" }, "D"],
    [{ address1: "8 Willow Apartments" }, "D"],
    [{ address1: "8 Willow Apartments", address2: "Apt 2" }, "Y"],
    [{ country: "USA" }, "Y"],
    [{ country: "United States" }, "Y"],
  ])("%j gives DPV %s", (patch, dpv) => {
    expect(validateAddress({ ...base, ...patch }).dpv).toBe(dpv);
  });

  test("do-not-mail compares standardized address1, city, state, ZIP5 (not the unit)", () => {
    const a = validateAddress({
      ...base,
      address1: "1 main street",
      address2: "Apt 3",
      city: "springfield",
      zipCode: "62701-1111",
    }).standard;
    const b = validateAddress(base).standard;
    expect(a && doNotMailKey(a)).toBe(b && doNotMailKey(b));
  });
});

describe("variable images (docs/sandbox.md, Variable images)", () => {
  test.each([
    ["https://cdn.example.com/a-1200x800.jpg", "accepted"],
    ["https://cdn.example.com/a.png", "accepted"],
    ["https://cdn.example.com/a.webp?w=900&h=600", "accepted"],
    ["https://cdn.example.com/a-800x1200.gif", "accepted"],
    ["", "missing"],
    ["   ", "missing"],
    ["ftp://cdn.example.com/a.jpg", "unsupportedOrBroken"],
    ["cdn.example.com/a.jpg", "unsupportedOrBroken"],
    ["https://cdn.example.com/a.svg", "unsupportedOrBroken"],
    ["https://cdn.example.com/a", "unsupportedOrBroken"],
    ["https://img.invalid/a.jpg", "doesNotExist"],
    ["https://cdn.example.com/missing/a.jpg", "doesNotExist"],
    ["https://cdn.example.com/a-599x900.jpg", "lowDpi"],
    ["https://cdn.example.com/a-1000x1000.jpg", "aspectRatioMismatch"],
    ["https://cdn.example.com/a.jpg?w=1600&h=900", "aspectRatioMismatch"],
  ])("%j is %s", (url, outcome) => {
    expect(checkImage("image1", url).outcome).toBe(outcome);
  });
});

describe("fault path matching", () => {
  test.each([
    ["/v1/order/*/checkout", "/v1/order/12/checkout", true],
    ["/v1/order/*/checkout", "/v1/order/12/13/checkout", false],
    ["/v1/order/{id}/checkout", "/v1/order/12/checkout", true],
    ["/v1/**", "/v1/order/12/proof/4", true],
    ["/v1/order", "/v1/order/12", false],
    ["/v1/order/*/recipients:append", "/v1/order/3/recipients:append", true],
    ["/v1/integration-orders/*-by-proximity", "/v1/integration-orders/5-by-proximity", true],
  ])("%s matches %s: %s", (pattern, path, expected) => {
    const table = new FaultTable();
    table.add({ path: pattern, kind: "reset" });
    expect(table.take("GET", path) !== undefined).toBe(expected);
  });
});
