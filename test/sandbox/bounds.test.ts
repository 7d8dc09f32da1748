/**
 * The sandbox's bounds on a body of its schema's exact shape: checked by the exact check itself, in
 * its one walk, with the same verdict as the bounds' walk (which a copy of the value, unknown to the
 * exact check, still gets); a body out of bounds is not taken as it stands, and gets the same 400
 * naming the same field.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { newOrderRecipient } from "../../provider/api/recipients";
import { AppendRecipientsRequest } from "../../provider/api/schemas";
import { BOUNDS } from "../../sandbox/assumptions";
import { ApiError } from "../../sandbox/domain/errors";
import { checkBounds } from "../../sandbox/http/bounds";
import { exactSchemaOf, parseWith } from "../../sandbox/http/zod";

/** What checkBounds says of a value: nothing, or the messages and details of its 400. */
function verdict(value: unknown): unknown {
  try {
    checkBounds(value);
    return "within bounds";
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, messages: error.messages, details: error.errorDetails };
  }
}

/**
 * The verdict on the value as parsed (the exact check with the bounds, taking it as it stands only
 * when it is within them; else zod's copy, walked) and on a copy (the walk), which must agree.
 */
function bothWays(schema: z.ZodType, value: unknown): unknown {
  const copy = structuredClone(value);
  const parsed = parseWith(schema, value);
  expect(exactSchemaOf(copy)).toBeUndefined();
  const fast = verdict(parsed);
  expect(fast).toEqual(verdict(copy));
  expect(exactSchemaOf(parsed), "taken as it stands exactly when within bounds").toBe(
    fast === "within bounds" ? schema : undefined,
  );
  expect(parsed === value).toBe(fast === "within bounds");
  return fast;
}

const longest = BOUNDS.maxStringLength;

describe("bounds of a body taken as it stands", () => {
  test("an append: a text one character too long is named, the longest allowed passes", () => {
    const recipients = Array.from({ length: 3 }, (_, i) =>
      newOrderRecipient({
        address: { address1: `${i + 1} Oak Avenue`, city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: `R${i}`, lastName: "Bench" },
        metadata: { custom1: "Gold", text: "Thanks" },
      }),
    );
    const body = (text: string) => ({
      recipients: recipients.map((r, i) => (i === 1 ? { ...r, metadata: { ...r.metadata, text } } : r)),
    });
    expect(bothWays(AppendRecipientsRequest, body("x".repeat(longest)))).toBe("within bounds");
    expect(bothWays(AppendRecipientsRequest, body("x".repeat(longest + 1)))).toEqual({
      status: 400,
      messages: [
        `recipients[1].metadata.text: at most ${longest} characters (a bound of the sandbox; the spec states none)`,
      ],
      details: [expect.objectContaining({ field: "recipients[1].metadata.text", code: "out_of_bounds" })],
    });
  });

  test("numbers by field name, in arrays by the array's name, texts and nested lists: the same verdict as the walk", () => {
    const schema = z.object({
      DesiredCount: z.number(),
      amount: z.number().nullable(),
      recipientIds: z.array(z.number()),
      counts: z.array(z.number()).max(3),
      rows: z.array(z.object({ id: z.number(), note: z.string().nullable(), seconds: z.number() })),
    });
    const number = fc.constantFrom(
      0,
      1,
      1000,
      1001,
      -1,
      600_000,
      BOUNDS.maxMagnitude,
      BOUNDS.maxMagnitude + 1,
      2 ** 53,
    );
    const text = fc.constantFrom("", "a", "x".repeat(longest), "x".repeat(longest + 1));
    const value = fc.record({
      DesiredCount: number,
      amount: fc.option(number, { nil: null }),
      recipientIds: fc.array(number, { maxLength: 3 }),
      counts: fc.array(number, { maxLength: 3 }),
      rows: fc.array(fc.record({ id: number, note: fc.option(text, { nil: null }), seconds: number }), {
        maxLength: 3,
      }),
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(value, (v) => {
        const result = bothWays(schema, v);
        seen.add(result === "within bounds" ? "ok" : "refused");
      }),
      { numRuns: 300 },
    );
    // Both verdicts came up: the property compared passes and refusals.
    expect([...seen].sort()).toEqual(["ok", "refused"]);
  });
});
