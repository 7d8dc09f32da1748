/**
 * The monthly budget (`directmail:monthlyBudget`): what the account may be charged in a calendar
 * month (UTC, by the service's clock) across every campaign. One rule and one wording for the plan,
 * the checkout just before its send, and the review. A leaf beside money.ts.
 */
import { aboveMaxTotal, sumCents, usd } from "./money";

/** The figures the budget is held against, each in US dollars. */
export interface BudgetFigures {
  /**
   * What the account is committed to this month: what the service charged, and the checkouts sent
   * and not yet settled (their price is charged at settlement, and nothing can stop it).
   */
  spent: number;
  /** The part of `spent` not yet settled; said only when there is some. */
  unsettled?: number | undefined;
  /** The checkouts still to be sent: those this change plans, or the one about to be sent. */
  planned: number;
  budget: number;
}

/** Whether spending `planned` on top of `spent` goes above the budget; exactly at it is within. */
export function aboveBudget(figures: BudgetFigures): boolean {
  return aboveMaxTotal(sumCents([figures.spent, figures.planned]), figures.budget);
}

/** What the budget leaves once the planned checkouts are charged; negative above it. */
export function budgetLeft(figures: BudgetFigures): number {
  return sumCents([figures.budget, -figures.spent, -figures.planned]);
}

/** The month as people read it: `2026-11 (UTC)`. */
export function monthName(since: Date): string {
  return `${since.toISOString().slice(0, 7)} (UTC)`;
}

/** The figures in words, the same in a plan, a refusal and the review. */
export function describeBudget(
  figures: BudgetFigures,
  since: Date,
  planned = "planned by this change",
): string {
  const unsettled = figures.unsettled ? `, ${usd(figures.unsettled)} of it not yet settled` : "";
  return (
    `spent this month ${usd(figures.spent)} (${monthName(since)}${unsettled}), ${planned} ${usd(figures.planned)}, ` +
    `budget ${usd(figures.budget)}, left ${usd(budgetLeft(figures))}`
  );
}
