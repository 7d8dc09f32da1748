/**
 * `customTimeouts` on a hook: the engine sends each create, update and delete its timeout (seconds,
 * 0 for none). Both doors run the hook through `bounded`: the provider plugin (plugin/server.ts) with
 * the request's timeout and its Cancel, the dynamic provider (registry.ts) with the timeout the
 * host's patch hands over (runtime/host-requests.ts).
 */
import { withDeadline } from "../api/core/deadline";
import { UserError } from "./user-error";

/**
 * Runs a hook under the engine's timeout for it and `cancelled`: once either fires, the hook sends
 * no further request (api/core/deadline.ts) and the operation fails with what that means. A request
 * already sent may have taken effect; the hooks read the service before they send again, so the
 * next `pulumi up` finds it rather than sending it twice.
 */
export function bounded<T>(
  kind: string,
  operation: string,
  timeoutSeconds: number,
  work: () => Promise<T>,
  cancelled?: AbortSignal,
): Promise<T> {
  const signals = cancelled ? [cancelled] : [];
  if (timeoutSeconds > 0) signals.push(AbortSignal.timeout(timeoutSeconds * 1000));
  if (signals.length === 0) return work();
  const signal = AbortSignal.any(signals);
  return new Promise<T>((resolve, reject) => {
    const stop = () =>
      reject(
        new UserError(
          cancelled?.aborted
            ? `${kind} ${operation} was cancelled; no further request was sent.`
            : `${kind} ${operation} did not finish within its customTimeouts.${operation} of ${timeoutSeconds} s; ` +
                "no further request was sent. A request already sent may still take effect at the service: " +
                "the next `pulumi up` reads the service before it sends again (docs/resources.md).",
        ),
      );
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    withDeadline(signal, work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", stop));
  });
}
