/**
 * Money as every part shows and compares it: the service's amounts are US dollars given as bare
 * numbers, rounded here to the cent once, written one way (`1,234.50 USD`) and held against
 * `maxTotal` by one rule. A leaf: the provider, the review, `status` and the report import it.
 */

/**
 * The currency of the service's amounts. The interface gives amounts as bare numbers; the service
 * is a United States one (USPS postage, ZIP codes), so they are US dollars.
 */
export const CURRENCY = "USD";

/** An amount to the cent: sums of prices in floating point drift (0.1 + 0.2), cents do not. */
export function roundCents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** The sum of amounts, to the cent. */
export function sumCents(amounts: readonly number[]): number {
  return roundCents(amounts.reduce((total, amount) => total + amount, 0));
}

/** An amount as people read it: `1,234.50 USD`. */
export function usd(amount: number): string {
  return `${amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${CURRENCY}`;
}

/**
 * Whether `price` breaks the guard `maxTotal` (none: never). Both are compared to the cent, so a
 * price the service gives as 10.000000001 is within maxTotal 10, as the user reads both.
 */
export function aboveMaxTotal(price: number, maxTotal: number | undefined): boolean {
  return maxTotal !== undefined && roundCents(price) > roundCents(maxTotal);
}
