/**
 * A deadline for every request a piece of work makes, without passing a signal through each call:
 * the provider plugin runs a hook under the engine's `customTimeouts` with `withDeadline`, and the
 * transport (transport.ts) joins that signal to each call's own. Once it fires, no request of that
 * work is sent any more, and one in flight is abandoned (the service may still have acted on it).
 */
import { AsyncLocalStorage } from "node:async_hooks";

const deadlines = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` with `signal` as the deadline of every request it makes. */
export function withDeadline<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return deadlines.run(signal, work);
}

/** The deadline of the work this runs in, if any. */
export function currentDeadline(): AbortSignal | undefined {
  return deadlines.getStore();
}

/** The call's own signal joined with the deadline of the work it runs in, if any. */
export function withinDeadline(signal: AbortSignal | undefined): AbortSignal | undefined {
  const deadline = currentDeadline();
  if (!deadline) return signal;
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}
