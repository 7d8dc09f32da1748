/**
 * The provider's progress lines carry no URN, so the review reads the order each names: the line
 * `progress` writes and `orderOfProgress` reads back are one format.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { orderOfProgress, progress, retired } from "../../../provider/resources/progress";

afterEach(() => vi.restoreAllMocks());

/** What `write` prints on stderr. */
function printed(write: () => void): string {
  let text = "";
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  write();
  return text.trim();
}

describe("the order a progress line names", () => {
  it("reads the order of each line `progress` writes about one, from its subject only", () => {
    expect(orderOfProgress(printed(() => progress("Recipients of order 12", "planned: 2 added")))).toBe(12);
    expect(orderOfProgress(printed(() => retired(10003, "Paid", "it stays at the service")))).toBe(10003);
    // The message may quote another order; the subject says whose line it is.
    expect(orderOfProgress(printed(() => progress("Conversions", "matched to order 77")))).toBeUndefined();
    expect(orderOfProgress("Recipients of order 12: no prefix, not a progress line")).toBeUndefined();
    expect(orderOfProgress(printed(() => progress("Reorder 5 things", "x")))).toBeUndefined();
  });
});
