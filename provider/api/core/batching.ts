/** Splitting large inputs into requests the service accepts, with a report per request. */

/** Splits `items` into consecutive chunks of at most `size`, keeping their order. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** What happened to one batch: sent and answered, failed, or not sent because an earlier batch failed. */
export type BatchOutcome<R> =
  | { index: number; start: number; count: number; status: "ok"; result: R }
  | { index: number; start: number; count: number; status: "failed"; error: unknown }
  | { index: number; start: number; count: number; status: "skipped" };

export interface BatchReport<R> {
  /** True when every batch succeeded. */
  ok: boolean;
  /** One entry per batch, in input order; `start` is the index of the batch's first item in the input. */
  batches: BatchOutcome<R>[];
}

export interface BatchOptions<R> {
  /** At most this many items per request (and never more than the service's limit). */
  batchSize?: number;
  /**
   * Keep sending later batches after one fails. Default false: the batches after a failure are
   * reported as `skipped`, so a caller can resume from the first batch that did not succeed.
   */
  continueOnError?: boolean;
  /** Called after each batch, e.g. for progress output. */
  onBatch?: (outcome: BatchOutcome<R>) => void;
  signal?: AbortSignal;
}

/** Sends the batches one after another (in order), never in parallel, and reports each. */
export async function runBatches<T, R>(
  items: readonly T[],
  limit: number,
  send: (batch: T[], signal: AbortSignal | undefined) => Promise<R>,
  options: BatchOptions<R> = {},
): Promise<BatchReport<R>> {
  const size = Math.min(options.batchSize ?? limit, limit);
  const batches = chunk(items, size);
  const outcomes: BatchOutcome<R>[] = [];
  let failed = false;
  for (const [index, batch] of batches.entries()) {
    const base = { index, start: index * size, count: batch.length };
    let outcome: BatchOutcome<R>;
    if (failed && !options.continueOnError) {
      outcome = { ...base, status: "skipped" };
    } else {
      try {
        outcome = { ...base, status: "ok", result: await send(batch, options.signal) };
      } catch (error) {
        failed = true;
        outcome = { ...base, status: "failed", error };
      }
    }
    outcomes.push(outcome);
    options.onBatch?.(outcome);
  }
  return { ok: !failed, batches: outcomes };
}

export interface StreamBatchOptions<T, R> {
  /** At most this many requests outstanding at once (default 2). */
  inFlight?: number;
  /** Called after each batch that succeeded, with the number of items sent successfully so far. */
  onBatch?: (result: R, batch: T[], sent: number) => void;
}

/**
 * Sends items read from `items` in batches of at most `size`, with at most `inFlight` requests
 * outstanding: the items are read only as fast as batches go out (one batch ahead of them), so a
 * list of any length is never held whole, and the next batch is built while the service works on
 * the last. The first failure (of a request, or of reading the items) stops reading and is thrown
 * once the requests already sent are answered. `onBatch` sees the batches in order.
 */
export async function sendBatches<T, R>(
  items: AsyncIterable<T> | Iterable<T>,
  size: number,
  send: (batch: T[]) => Promise<R>,
  options: StreamBatchOptions<T, R> = {},
): Promise<void> {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const inFlight = Math.max(1, options.inFlight ?? 2);
  const pending = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let sent = 0;
  // Each batch is reported after the ones before it, in the order they were read.
  let reported: Promise<unknown> = Promise.resolve();
  const launch = (batch: T[]) => {
    const request: Promise<void> = Promise.all([send(batch), reported])
      .then(
        ([result]) => {
          sent += batch.length;
          options.onBatch?.(result, batch, sent);
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => pending.delete(request));
    reported = request;
    pending.add(request);
  };
  // The next batch is read while the last ones are out; it waits for room before it is sent.
  const launchWhenRoom = async (batch: T[]) => {
    while (pending.size >= inFlight) await Promise.race(pending);
    if (!failure) launch(batch);
  };
  try {
    let batch: T[] = [];
    for await (const item of items) {
      if (failure) break;
      batch.push(item);
      if (batch.length < size) continue;
      await launchWhenRoom(batch);
      batch = [];
    }
    if (!failure && batch.length > 0) await launchWhenRoom(batch);
  } finally {
    await Promise.all(pending);
  }
  if (failure) throw failure.error;
}
