/**
 * The provider implementations, loaded by the thin serialized provider (thin-provider.ts) inside
 * the dynamic provider's process, each time from the installed package.
 */
import type * as pulumi from "@pulumi/pulumi";
import { DirectMailClient, type RequestEvent } from "../api/client";
import { type ProviderSettings, resolveSettings } from "../settings";
import { addressBookEntryImplementation } from "./address-book-entry";
import { checkoutImplementation } from "./checkout";
import { exitWithEngine } from "./engine-watch";
import { orderImplementation } from "./order";
import { orderRecipientsImplementation } from "./order-recipients";
import { providerInfoImplementation } from "./provider-info";

/** What one kind of resource implements; the rest falls back to the defaults below. */
export interface ResourceImplementation {
  check?(olds: any, news: any): Promise<pulumi.dynamic.CheckResult>;
  diff?(id: string, olds: any, news: any): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: any): Promise<pulumi.dynamic.CreateResult>;
  read?(id: string, props: any): Promise<pulumi.dynamic.ReadResult>;
  update?(id: string, olds: any, news: any): Promise<pulumi.dynamic.UpdateResult>;
  delete?(id: string, props: any): Promise<void>;
}

/** The context every implementation runs with: settings from `configure`, or the environment. */
export interface ProviderContext {
  settings(): ProviderSettings;
  /** The API client for the settings; fails with guidance when no API key is configured. */
  client(): DirectMailClient;
}

// Loaded by the first hook, inside the dynamic-provider process: that process must not outlive an
// engine that was killed.
exitWithEngine();

let configured: ProviderSettings | undefined;
let cachedClient: { baseUrl: string; apiKey: string; client: DirectMailClient } | undefined;
const requestListeners = new Set<(event: RequestEvent) => void>();

/**
 * Calls `listener` for every HTTP attempt the providers make (operation, status, duration; never a
 * header or the key), until the returned function is called. For tests and benchmarks that count
 * requests.
 */
export function observeRequests(listener: (event: RequestEvent) => void): () => void {
  requestListeners.add(listener);
  return () => requestListeners.delete(listener);
}

export const context: ProviderContext = {
  settings: () => configured ?? resolveSettings(undefined),
  client: () => {
    const { baseUrl, apiKey } = context.settings();
    if (!apiKey) {
      throw new Error(
        `no API key for ${baseUrl}: set one with \`pulumi config set --secret directmail:apiKey <key>\` ` +
          "(or the DIRECTMAIL_API_KEY environment variable).",
      );
    }
    if (cachedClient?.baseUrl !== baseUrl || cachedClient.apiKey !== apiKey) {
      const onEvent = (event: RequestEvent) => {
        for (const listener of requestListeners) listener(event);
      };
      cachedClient = { baseUrl, apiKey, client: new DirectMailClient({ baseUrl, apiKey, onEvent }) };
    }
    return cachedClient.client;
  },
};

const implementations: Record<string, ResourceImplementation> = {
  ProviderInfo: providerInfoImplementation(context),
  Order: orderImplementation(context),
  OrderRecipients: orderRecipientsImplementation(context),
  Checkout: checkoutImplementation(context),
  AddressBookEntry: addressBookEntryImplementation(context),
};

/** Inputs as the user declared them, without the engine's bookkeeping property. */
function declared(inputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = inputs;
  return rest;
}

export function providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> {
  const impl = implementations[kind];
  if (!impl) {
    throw new Error(
      `This version of pulumi-directmail has no resource kind "${kind}". ` +
        "Install the package version that created this resource, or remove it with `pulumi state delete`.",
    );
  }
  return {
    configure: async (req) => {
      configured = resolveSettings(req.config);
    },
    check: async (olds, news) => (impl.check ? impl.check(olds, news) : { inputs: news }),
    diff: async (id, olds, news) =>
      impl.diff
        ? impl.diff(id, olds, news)
        : { changes: JSON.stringify(declared(olds)) !== JSON.stringify(declared(news)) },
    create: async (inputs) => impl.create(inputs),
    read: async (id, props) => (impl.read ? impl.read(id, props) : { id, props }),
    update: async (id, olds, news) => {
      if (!impl.update) throw new Error(`${kind} ${id} cannot be updated in place`);
      return impl.update(id, olds, news);
    },
    delete: async (id, props) => {
      if (impl.delete) await impl.delete(id, props);
    },
  };
}
