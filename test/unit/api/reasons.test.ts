/**
 * The service's drop reasons, redacted and summed: a reason quotes the value it rejected (a ZIP
 * code, a name typed into the state column), and no quoted value may reach the state, the outputs
 * or the review.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reasonCode, redactReason, sumReasons } from "../../../provider/api/reasons";
import { newOrderRecipient } from "../../../provider/api/recipients";

/** The sandbox's words for the ZIP code `5974O` and the name `Ada` in the state column. */
const ZIP = "ADDRESS_NOT_VALID: address.zipCode: '5974O' is not a ZIP or ZIP+4 code";
const BOTH = `${ZIP}; address.state: 'Ada' is not a US state or territory`;
const sent = newOrderRecipient({ address: { zipCode: "5974O", state: "Ada" } });

describe("a drop reason, redacted", () => {
  it("names the field and keeps the service's words, without the value it quoted", () => {
    expect(redactReason(ZIP)).toBe("ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code");
    expect(redactReason(BOTH, sent)).toBe(
      "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code; address.state: not a US state or territory",
    );
    expect(
      redactReason("ADDRESS_NOT_VALID: address.address2: 'Flat 9' is not a recognised unit designator"),
    ).toBe("ADDRESS_NOT_VALID: address.address2: not a recognised unit designator");
    // A value quoted inside the message: its field stands in for it.
    expect(redactReason("ADDRESS_NOT_VALID: address.city: the city 'Springfeld' is unknown")).toBe(
      "ADDRESS_NOT_VALID: address.city: the city city is unknown",
    );
    expect(redactReason("'Ada Lovelace' was refused")).toBe("refused");
  });

  it("keeps only the code and the fields when where a value ends is not certain", () => {
    // Two quoted values and no recipient to check them against: either could hold the other.
    expect(redactReason(BOTH)).toBe("ADDRESS_NOT_VALID: address.zipCode; address.state");
    // The recipient sent has other values: the reason is not read as two values.
    expect(redactReason(BOTH, newOrderRecipient({ address: { zipCode: "5974O" } }))).toBe(
      "ADDRESS_NOT_VALID: address.zipCode; address.state",
    );
    // A value holding a quote.
    expect(redactReason("ADDRESS_NOT_VALID: address.state: 'O'Brien' is not a US state or territory")).toBe(
      "ADDRESS_NOT_VALID: address.state",
    );
    // Without a code or a field: nothing is left to show.
    expect(redactReason("\"Ada\" and 'Lovelace' were refused")).toBe("dropped");
  });

  it("keeps a reason that quotes nothing as the service wrote it, its apostrophes included", () => {
    const duplicate = "DUPLICATE: same name and address as an earlier recipient of this batch";
    expect(redactReason(duplicate)).toBe(duplicate);
    const doNotMail = "DO_NOT_MAIL: the address is on the account's do-not-mail list";
    expect(redactReason(doNotMail)).toBe(doNotMail);
    expect(redactReason("ADDRESS_NOT_VALID: address.city: 'Ada's Place' can't be found")).toBe(
      "ADDRESS_NOT_VALID: address.city: city can't be found",
    );
    expect(redactReason("DO_NOT_MAIL")).toBe("DO_NOT_MAIL");
    expect(redactReason("  ")).toBe("dropped");
  });

  /** A value the service quotes: any text (quotes, `; `, field names included) around a marker. */
  const value = fc
    .tuple(
      fc.string({ unit: fc.constantFrom(..."'\"`‘’“”;: .aeis", "address.city: ", "; ", " is ") }),
      fc.string(),
    )
    .map(([a, b]) => `${a}5974O${b}`);
  const field = fc.constantFrom("address.zipCode", "address.state", "address.city", "personal.lastName");
  const message = fc.constantFrom("not a ZIP or ZIP+4 code", "not a US state or territory", "too long");
  const quote = fc.constantFrom("'", '"', "‘");
  const problems = fc.uniqueArray(fc.record({ field, value, message, quote }), {
    minLength: 1,
    maxLength: 3,
    selector: (p) => p.field,
  });
  const reasonOf = (list: { field: string; value: string; message: string; quote: string }[]) =>
    `ADDRESS_NOT_VALID: ${list.map((p) => `${p.field}: ${p.quote}${p.value}${p.quote} is ${p.message}`).join("; ")}`;
  const recipientOf = (list: { field: string; value: string }[]) => {
    const groups: Record<string, Record<string, string>> = { address: {}, personal: {} };
    for (const p of list) {
      const [group = "", key = ""] = p.field.split(".");
      (groups[group] as Record<string, string>)[key] = p.value;
    }
    return newOrderRecipient(groups);
  };

  it("never lets a quoted value through, with or without the recipient sent", () => {
    fc.assert(
      fc.property(problems, (list) => {
        const reason = reasonOf(list);
        for (const out of [redactReason(reason), redactReason(reason, recipientOf(list))]) {
          expect(out).not.toContain("5974O");
          for (const p of list) expect(out).not.toContain(p.value);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("reads in full when the values hold no quote: each field with the service's words", () => {
    const plain = fc.stringMatching(/^[A-Za-z0-9 ;:.,#-]{1,20}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ field, value: plain, message, quote }), {
          minLength: 1,
          maxLength: 3,
          selector: (p) => p.field,
        }),
        (list) => {
          const readable = `ADDRESS_NOT_VALID: ${list.map((p) => `${p.field}: ${p.message}`).join("; ")}`;
          expect(redactReason(reasonOf(list), recipientOf(list))).toBe(readable);
          if (list.length === 1 && !list[0]?.value.includes("; "))
            expect(redactReason(reasonOf(list))).toBe(readable);
        },
      ),
    );
  });

  it("keeps any reason without a quote readable, and changes nothing when redacted again", () => {
    const unquoted = fc.string({ unit: fc.constantFrom(..."ABCDE_: abcde;.,12") });
    fc.assert(
      fc.property(unquoted, (reason) => {
        expect(redactReason(reason)).toBe(reason.trim() || "dropped");
      }),
    );
    fc.assert(
      fc.property(fc.string(), (reason) => {
        expect(redactReason(redactReason(reason))).toBe(redactReason(reason));
      }),
    );
  });
});

describe("drop reasons, summed", () => {
  it("adds up reasons that differ only in the value they quoted", () => {
    const other = "ADDRESS_NOT_VALID: address.zipCode: '1234' is not a ZIP or ZIP+4 code";
    expect(
      sumReasons([
        { reason: ZIP, count: 1 },
        { reason: other, count: 2 },
        { reason: "DO_NOT_MAIL: on the list", count: 1 },
      ]),
    ).toEqual([
      { reason: "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code", count: 3 },
      { reason: "DO_NOT_MAIL: on the list", count: 1 },
    ]);
  });

  it("by code: ADDRESS_NOT_VALID 2, not ADDRESS_NOT_VALID 1, ADDRESS_NOT_VALID 1", () => {
    const reasons = [
      { reason: "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code", count: 1 },
      { reason: "DO_NOT_MAIL: on the list", count: 1 },
      { reason: "ADDRESS_NOT_VALID: address.state: not a US state or territory", count: 1 },
    ];
    expect(sumReasons(reasons, reasonCode)).toEqual([
      { reason: "ADDRESS_NOT_VALID", count: 2 },
      { reason: "DO_NOT_MAIL", count: 1 },
    ]);
  });

  it("a reason's code; a reason without one, redacted", () => {
    expect(reasonCode(ZIP)).toBe("ADDRESS_NOT_VALID");
    expect(reasonCode("DO_NOT_MAIL")).toBe("DO_NOT_MAIL");
    expect(reasonCode("'Ada' is not a US state or territory")).toBe("not a US state or territory");
  });
});
