import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatIssues, formatPath, plainWords } from "../../../provider/api/schemas/issues";

const Schema = z.strictObject({
  templateId: z.int(),
  speed: z.enum(["Normal", "Fast"]),
  name: z.string().min(1).optional(),
  tags: z.array(z.string()).optional(),
  orderId: z.int("orderId must be a whole number: the id of an order").optional(),
});

const messages = (value: unknown) => {
  const result = Schema.safeParse(value, { error: plainWords });
  return formatIssues(result.error?.issues ?? []);
};

describe("zod issues as messages", () => {
  it("names a field by its path as a program writes it, showing hostile names short and escaped", () => {
    expect(formatPath(["recipients", 3, "address", "zipCode"])).toBe("recipients[3].address.zipCode");
    expect(formatPath([0, "city"], "body")).toBe("body[0].city");
    expect(formatPath(["a\u0000b"])).toBe("a\\u0000b");
    expect(formatPath(["k".repeat(1000)])).toBe(`${"k".repeat(60)}…`);
  });

  it("words an issue its schema leaves to zod in plain words, with the value found", () => {
    expect(messages({ templateId: "ten", speed: "Slow", name: "", tags: "x" })).toEqual([
      'templateId: must be a whole number; found "ten"',
      'speed: must be one of Normal, Fast; found "Slow"',
      "name: must not be empty",
      'tags: must be a list; found "x"',
    ]);
  });

  it("keeps a schema's own words", () => {
    expect(messages({ templateId: 1, speed: "Fast", orderId: "7" })).toEqual([
      "orderId: orderId must be a whole number: the id of an order",
    ]);
  });

  it("names the allowed keys beside an unknown one, and the one probably meant", () => {
    expect(messages({ templateID: 1, speed: "Fast" })).toEqual([
      "templateId: must be a whole number; found nothing (an empty value)",
      'unknown key "templateID" (did you mean "templateId"?); allowed keys: templateId, speed, name, tags, orderId',
    ]);
  });
});
