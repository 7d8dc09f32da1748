/**
 * The transport's undici as two of its own modules rather than its index: the index also loads its
 * other dispatchers, fetch, WebSocket, caches and mocks, about 50 ms of CPU more in each process
 * that sends a request (the program's online check, the provider's key check).
 *
 * The two files are undici's layout, not its public entry: package.json pins undici's exact
 * version, and test/unit/runtime/library-shapes.test.ts fails when the layout or the shapes
 * reached here change. An undici laid out otherwise is loaded whole (transport.ts).
 */
import type { Dispatcher } from "undici";
import { loadUndiciWith, type UndiciParts } from "../api/core/transport";

/** The modules reached inside undici, by their paths in the package. */
export const UNDICI_MODULES = {
  request: "undici/lib/api/api-request",
  Agent: "undici/lib/dispatcher/agent",
} as const;

/** undici's `request` and `Agent` from their own modules, or undefined where they are not there. */
export function undiciFromItsModules(load: (id: string) => unknown = require): UndiciParts | undefined {
  try {
    const request = load(UNDICI_MODULES.request);
    const Agent = load(UNDICI_MODULES.Agent);
    if (typeof request !== "function" || typeof Agent !== "function") return undefined;
    return {
      Agent: Agent as typeof import("undici").Agent,
      request: (dispatcher, options) =>
        (
          request as (this: Dispatcher, o: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
        ).call(dispatcher, options),
    };
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "MODULE_NOT_FOUND") throw error;
    return undefined;
  }
}

/** Has the transport load undici from its two modules. */
export function installUndiciLoader(): void {
  loadUndiciWith(undiciFromItsModules);
}
