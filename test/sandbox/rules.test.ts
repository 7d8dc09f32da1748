/** The deterministic rules of docs/sandbox.md, one table each: addresses, images, fault paths. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { standardizeLine, standardizeUnitLine } from "../../provider/api/schemas/address-standard";
import {
  doNotMailKey,
  duplicateKey,
  fullAddressOf,
  stableHash,
  validateAddress,
} from "../../sandbox/domain/address";
import { checkImage } from "../../sandbox/domain/images";
import { FaultTable } from "../../sandbox/http/faults";

const base = { address1: "1 Main St", city: "Springfield", state: "IL", zipCode: "62701" };

describe("address standardization (docs/sandbox.md, Addresses)", () => {
  test.each([
    ["123 north main street", "123 N MAIN ST"],
    ["  45   Elm   Avenue. ", "45 ELM AVE"],
    ["9 Sunset Boulevard", "9 SUNSET BLVD"],
    ["700 South-West Parkway", "700 SOUTH-WEST PKWY"],
    // CIRCLE is a word of the street name here; only the suffix (DRIVE) is abbreviated.
    ["12 Northeast Circle Drive", "12 NE CIRCLE DR"],
    ["1 Park Place, Suite 200", "1 PARK PL STE 200"],
    ["5 Oak Rd # 4", "5 OAK RD #4"],
    ["PO Box 77", "PO BOX 77"],
  ])("%j -> %j", (input, expected) => {
    expect(standardizeLine(input)).toBe(expected);
  });

  test.each([
    // The suffix is the last word of the street; a suffix word inside the name stays.
    ["58 Gull Point Road", "58 GULL POINT RD"],
    ["7 Avenue Road", "7 AVENUE RD"],
    ["3 Lane Court Drive", "3 LANE COURT DR"],
    ["14 Center Street", "14 CENTER ST"],
    ["20 Harbor Point", "20 HARBOR PT"],
    // A street of one word keeps it: there is no name before it to be a suffix of.
    ["1 Parkway", "1 PARKWAY"],
    // Pre-directional: right after the house number, when a word of the name follows.
    ["12 North Main Street", "12 N MAIN ST"],
    ["12 North Main", "12 N MAIN"],
    ["9 North Road", "9 NORTH RD"],
    // Post-directional: after the suffix, last.
    ["100 Main Street North", "100 MAIN ST N"],
    ["100 Main St Southwest", "100 MAIN ST SW"],
    ["12 North Street East", "12 NORTH ST E"],
    ["100 North Main Street South", "100 N MAIN ST S"],
    ["4 Main North", "4 MAIN NORTH"],
    ["6 Sunset North Road", "6 SUNSET NORTH RD"],
    // Unit designators only where a unit stands: the designator followed by its number.
    ["5 Suite Street Apartment 4", "5 SUITE ST APT 4"],
    ["8 Building Lane Floor 3", "8 BUILDING LN FL 3"],
    ["1 Main Street Suite B", "1 MAIN ST STE B"],
    ["1 Main Street Apartment #4", "1 MAIN ST APT #4"],
    ["2 Park Road # 7", "2 PARK RD #7"],
    ["3 Oak Avenue Room 12 Building C", "3 OAK AVE RM 12 BLDG C"],
    ["6 Oak Road Suite", "6 OAK ROAD SUITE"],
    // After the house number, a street starting with a number is a street like any other.
    ["5 1st Street", "5 1ST ST"],
    ["5 North 1st Street East", "5 N 1ST ST E"],
  ])("positional rules: %j -> %j", (input, expected) => {
    expect(standardizeLine(input)).toBe(expected);
  });

  test.each([
    ["Suite 200", "STE 200"],
    ["apartment 4b", "APT 4B"],
    ["Floor 3, Room 301", "FL 3 RM 301"],
    ["apt # 4", "APT #4"],
    ["rear house", "REAR HOUSE"],
    ["North Wing", "NORTH WING"],
    ["Suite", "SUITE"],
  ])("address2 is a unit line: %j -> %j", (input, expected) => {
    expect(standardizeUnitLine(input)).toBe(expected);
    expect(validateAddress({ ...base, address2: input }).standard?.address2).toBe(expected);
  });

  test("a standardized line stands as it is: standardizing it again changes nothing", () => {
    for (const line of [
      "58 Gull Point Road",
      "9 North Road",
      "12 Northeast Circle Drive",
      "100 North Main Street South",
      "5 Suite Street Apartment 4",
      "2 Park Road # 7",
      "PO Box 77",
    ]) {
      const once = standardizeLine(line);
      expect(standardizeLine(once)).toBe(once);
    }
  });

  test("the street after a house number is standardized the same whatever the number, first or again", () => {
    // The standard form of the words after a house number is remembered: the same street after
    // another number, the same line again, and the street in lowercase (cleaned to the same words
    // before it is looked up) all give the words of the first answer.
    const word = fc.constantFrom(
      "North",
      "n",
      "Main",
      "Street",
      "st",
      "Avenue",
      "Road",
      "Circle",
      "Point",
      "Suite",
      "Apartment",
      "#4",
      "# 7",
      "4B",
      "1st",
      "12",
      "B",
      "Oak",
      "East",
      "Towers",
      "Parkway",
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 6 }),
        fc.nat(9999),
        fc.nat(9999),
        (words, a, b) => {
          const street = words.join(" ");
          const first = standardizeLine(`${a} ${street}`);
          const tail = first.slice(String(a).length + 1);
          expect(first.startsWith(`${a} `)).toBe(true);
          expect(standardizeLine(`${b} ${street}`)).toBe(`${b} ${tail}`);
          expect(standardizeLine(`${a} ${street}`)).toBe(first);
          expect(standardizeLine(`${b} ${street.toLowerCase()}`)).toBe(`${b} ${tail}`);
        },
      ),
    );
    // A house number's letters or range leave zip2 its digits.
    expect(validateAddress({ ...base, address1: "12B Main St" }).standard?.zip2).toBe("12");
    expect(validateAddress({ ...base, address1: "7-9 Main St" }).standard?.zip2).toBe("07");
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
    expect(b.standard && fullAddressOf(b.standard)).toBe(
      `1234 MAIN ST, SPRINGFIELD, IL 62701-${b.standard?.zip4}`,
    );
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

  test("the derived digits: FNV-1a of the text (zip4: of `address1|ZIP5`, modulo 10,000)", () => {
    // FNV-1a as the rules state it, on unsigned 32-bit values.
    const fnv = (text: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
      return h;
    };
    // Any UTF-16 code units, as charCodeAt reads them.
    const codeUnits = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
      .map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(codeUnits, fc.string({ maxLength: 10 }), (a, b) => {
        expect(stableHash(a)).toBe(fnv(a));
        expect(stableHash(b, stableHash(a))).toBe(fnv(a + b));
      }),
    );
    const { standard } = validateAddress({ ...base, address1: "42 Elm Street" });
    expect(standard?.zip4).toBe(String(fnv("42 ELM ST|62701") % 10_000).padStart(4, "0"));
  });

  test("duplicate names compare trimmed, uppercased, with each run of whitespace one space", () => {
    const name = fc
      .array(
        fc.constantFrom(
          "a",
          "B",
          "é",
          "ß",
          " ",
          "  ",
          "\t",
          "\n",
          "\u00a0",
          "\u2003",
          "\u3000",
          "\ufeff",
          "-",
          "'",
        ),
        {
          maxLength: 8,
        },
      )
      .map((parts) => parts.join(""));
    const address = { address1: "1 MAIN ST", city: "SPRINGFIELD", state: "IL", zipCode: "62701" };
    fc.assert(
      fc.property(name, name, (first, last) => {
        const rule = (v: string) => v.trim().toUpperCase().replace(/\s+/g, " ");
        expect(duplicateKey({ firstName: first, lastName: last, toOrganization: null }, address)).toBe(
          `${rule(first)}|${rule(last)}||1 MAIN ST||SPRINGFIELD|IL|62701`,
        );
      }),
      { numRuns: 500 },
    );
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
