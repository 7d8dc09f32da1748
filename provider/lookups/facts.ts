/**
 * What the online checks and the data functions read from the service, cached per process: the
 * account's templates and fonts change rarely, and one plan (or one `directmail validate --online`)
 * checks many campaigns, so each account's listing is asked for once per process.
 */
import { createHash } from "node:crypto";
import type { DirectMailClient } from "../api/client";
import { NotFoundError } from "../api/errors";
import type { OrderSummary } from "../api/schemas/order";
import type { Font, Template } from "../api/schemas/templates";

/** The service's answers the online checks use; each call may be cached. */
export interface ServiceFacts {
  templates(): Promise<Template[]>;
  fonts(): Promise<Font[]>;
  /** An order of the account (not a template); undefined when there is none with this id. */
  order(orderId: number): Promise<OrderSummary | undefined>;
}

/** Cached listings per account (base URL and key). A failed call is not kept: the next one asks again. */
const cache = new Map<string, { templates?: Promise<Template[]>; fonts?: Promise<Font[]> }>();

function remembered<T>(
  entry: { templates?: Promise<Template[]>; fonts?: Promise<Font[]> },
  key: "templates" | "fonts",
  call: () => Promise<T>,
): Promise<T> {
  const known = entry[key] as Promise<T> | undefined;
  if (known) return known;
  const promise = call();
  (entry as Record<string, Promise<unknown>>)[key] = promise;
  promise.catch(() => {
    if (entry[key] === (promise as unknown)) delete entry[key];
  });
  return promise;
}

/**
 * The facts of the account `client` reaches with `apiKey`, its listings shared by every caller of
 * this process with the same base URL and key (kept by a digest of the key, never the key itself).
 */
export function serviceFacts(client: DirectMailClient, apiKey: string): ServiceFacts {
  const account = `${client.baseUrl} ${createHash("sha256").update(apiKey).digest("hex")}`;
  let entry = cache.get(account);
  if (!entry) {
    entry = {};
    cache.set(account, entry);
  }
  const listings = entry;
  return {
    templates: () => remembered(listings, "templates", () => client.listTemplates()),
    fonts: () => remembered(listings, "fonts", () => client.listFonts()),
    order: async (orderId) => {
      try {
        return await client.getOrder(orderId);
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
  };
}

/** Forgets every cached listing (tests, and a long-lived process that wants fresh answers). */
export function clearServiceFacts(): void {
  cache.clear();
}
