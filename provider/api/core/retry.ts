/**
 * The retry policy, per retry class of the endpoint table. docs/retry-policy.md states the same
 * table with the reasons; a unit test checks that the two agree.
 */
import type { RetryClass } from "../endpoints";

/** What went wrong with one attempt, as far as the retry decision is concerned. */
export type Failure =
  | { kind: "status"; status: number }
  /** `sent: false` only when the request certainly never reached the service. */
  | { kind: "network"; sent: boolean }
  | { kind: "timeout"; sent: boolean };

export interface RetryOptions {
  /** Attempts in total, the first included. Default 4. 1 disables retries. */
  maxAttempts: number;
  /** First backoff step. Default 200 ms. */
  baseDelayMs: number;
  /** Largest backoff step. Default 5 s. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the 429 is returned to the caller. Default 30 s. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
};

/** Which failures each class retries. `true` = retry (while attempts remain). */
export const RETRY_TABLE: Record<
  RetryClass,
  {
    notSent: boolean;
    networkAfterSend: boolean;
    timeoutAfterSend: boolean;
    status429: boolean;
    status5xx: boolean;
  }
> = {
  read: { notSent: true, networkAfterSend: true, timeoutAfterSend: true, status429: true, status5xx: true },
  idempotent: {
    notSent: true,
    networkAfterSend: true,
    timeoutAfterSend: true,
    status429: true,
    status5xx: true,
  },
  "retryable-500": {
    notSent: true,
    networkAfterSend: false,
    timeoutAfterSend: false,
    status429: true,
    status5xx: true,
  },
  unsafe: {
    notSent: true,
    networkAfterSend: false,
    timeoutAfterSend: false,
    status429: true,
    status5xx: false,
  },
  checkout: {
    notSent: true,
    networkAfterSend: false,
    timeoutAfterSend: false,
    status429: false,
    status5xx: false,
  },
};

export function shouldRetry(retryClass: RetryClass, failure: Failure): boolean {
  const row = RETRY_TABLE[retryClass];
  switch (failure.kind) {
    case "status":
      if (failure.status === 429) return row.status429;
      if (failure.status >= 500) return row.status5xx;
      return false;
    case "network":
      return failure.sent ? row.networkAfterSend : row.notSent;
    case "timeout":
      return failure.sent ? row.timeoutAfterSend : row.notSent;
  }
}

/**
 * Whether a failure of this class leaves the outcome unknown: the request may have taken effect and
 * the caller must check before repeating it. Checkout treats a 5xx the same way, because money is at stake.
 */
export function outcomeUnknown(retryClass: RetryClass, failure: Failure): boolean {
  if (retryClass === "read" || retryClass === "idempotent") return false;
  if (failure.kind === "status") return retryClass === "checkout" && failure.status >= 500;
  return failure.sent;
}

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so retries of many
 * clients spread out but never fire at once. `attempt` is the attempt that just failed (1-based).
 */
export function backoffDelay(
  attempt: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * `Retry-After` in milliseconds: either delay-seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
