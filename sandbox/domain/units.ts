/** Money and time in the forms the sandbox stores and answers. */

export const DAY_MS = 24 * 3600 * 1000;

/** Dollars, rounded to cents. */
export const money = (n: number) => Math.round(n * 100) / 100;

/** A date-time as UTC ISO text (the form stored and compared); offsets and local times are converted. */
export const utc = (value: string | null | undefined) =>
  value == null ? null : new Date(Date.parse(value)).toISOString();

/** An ISO instant `ms` milliseconds after another. */
export const addMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/**
 * The rows a listing page skips. Any page number the spec allows is answered (past the end: an
 * empty page); beyond the largest safe integer the count stops there, which SQLite can bind.
 */
export const pageOffset = (pageNumber: number, pageSize: number) =>
  Math.min((pageNumber - 1) * pageSize, Number.MAX_SAFE_INTEGER);
