import { describe, expect, it } from "vitest";
import { chargesOf } from "../../provider/api/charges";
import { aboveMaxTotal, roundCents, sumCents, usd } from "../../provider/money";

describe("money", () => {
  it("is written one way: thousands separated, two decimals, the currency", () => {
    expect([usd(1234.5), usd(0), usd(12475), usd(0.005)]).toEqual([
      "1,234.50 USD",
      "0.00 USD",
      "12,475.00 USD",
      "0.01 USD",
    ]);
  });

  it("is rounded to the cent once, so sums of prices do not drift", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumCents([0.1, 0.2])).toBe(0.3);
    expect(roundCents(2.5 * 3 + 0.004)).toBe(7.5);
  });

  it("is above maxTotal only past the cent maxTotal names, and never without one", () => {
    expect(aboveMaxTotal(10.000000001, 10)).toBe(false);
    expect(aboveMaxTotal(10.01, 10)).toBe(true);
    expect(aboveMaxTotal(10, 10)).toBe(false);
    expect(aboveMaxTotal(1e9, undefined)).toBe(false);
  });

  it("charged is the ledger's debits, credited its credits; an entry the service could not process charged nothing", () => {
    const t = (amount: number, isCredit: boolean) => ({ amount, isCredit }) as never;
    expect(
      chargesOf({ status: "Success", transactions: [t(5, false), t(0.1, false), t(0.2, true)] }),
    ).toEqual({
      charged: 5.1,
      credited: 0.2,
      spent: 4.9,
    });
    expect(chargesOf({ status: "NotFound", transactions: [t(5, false)] })).toEqual({
      charged: 0,
      credited: 0,
      spent: 0,
    });
    expect(chargesOf(undefined).charged).toBe(0);
  });
});
