/**
 * What Pulumi's dynamic-provider host reads from the engine's request but does not pass to a
 * dynamic provider's hooks: the stored inputs before a diff, and the `customTimeouts` of a create,
 * update or delete. The runtime's patch of the host (runtime/host-requests.ts) attaches them to
 * the very values the host hands the hook, under a symbol, so each hook reads its own request's,
 * however many run at once; registry.ts reads them. And the other way, a diff's names by
 * property (resources/named-diff.ts), which the host does not forward: the hook's answer hands
 * them over as the host reads it, and the patch writes them into the host's answer.
 */

/** The parts of the engine's request a hook is not given by the host. */
export interface HostRequest {
  /** A diff's stored inputs before (the engine's form). */
  oldInputs?: Record<string, unknown>;
  /** A create's, update's or delete's timeout in seconds (0: none). */
  timeoutSeconds?: number;
}

const HOST_REQUEST = Symbol.for("pulumi-directmail.hostRequest");

/** Attaches `request` to the values the host hands a hook; not enumerable, so never sent or stored. */
export function attachHostRequest<V extends object>(values: V, request: HostRequest): V {
  Object.defineProperty(values, HOST_REQUEST, { value: request, enumerable: false, configurable: true });
  return values;
}

/** The request attached to the values a hook was given, if the host's patch is installed. */
export function hostRequestOf(values: unknown): HostRequest | undefined {
  return values && typeof values === "object"
    ? (values as { [HOST_REQUEST]?: HostRequest })[HOST_REQUEST]
    : undefined;
}

/** A property's kind of change, by the names of the engine's `PropertyDiff.Kind`. */
export type PropertyChange =
  | "ADD"
  | "DELETE"
  | "UPDATE"
  | "ADD_REPLACE"
  | "DELETE_REPLACE"
  | "UPDATE_REPLACE";

/** A diff's names by property, as the host's answer carries them. */
export interface DiffNames {
  changes: boolean;
  detailed: Record<string, PropertyChange>;
}

/**
 * The names handed over by the answer the host is reading. The host reads a hook's `changes` and
 * sets its answer's from it in one synchronous stretch (no `await` between), so what is handed
 * over is taken by that answer before any other diff runs; a microtask drops anything not taken.
 */
let handedOver: DiffNames | undefined;

/** A diff's answer for the host: reading its `changes` hands its names to the host's answer. */
export function answerWithNames<R extends object>(result: R, names: DiffNames): R & { changes: boolean } {
  return Object.defineProperty({ ...result }, "changes", {
    enumerable: true,
    get() {
      handedOver = names;
      queueMicrotask(() => {
        if (handedOver === names) handedOver = undefined;
      });
      return names.changes;
    },
  }) as R & { changes: boolean };
}

/** The names handed over by the answer just read, taken once. */
export function takeDiffNames(): DiffNames | undefined {
  const names = handedOver;
  handedOver = undefined;
  return names;
}
