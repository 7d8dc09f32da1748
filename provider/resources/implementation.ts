/**
 * The provider implementations, loaded by the thin serialized provider (thin-provider.ts) inside
 * the dynamic provider's process, each time from the installed package.
 */
import type * as pulumi from "@pulumi/pulumi";
import { DirectMailClient, type RequestEvent } from "../api/client";
import { DirectMailError } from "../api/errors";
import { type ProviderSettings, resolveSettings } from "../settings";
import { packageVersion } from "../version";
import { addressBookEntryImplementation } from "./address-book-entry";
import { checkoutImplementation } from "./checkout";
import { exitWithEngine } from "./engine-watch";
import { orderImplementation } from "./order";
import { orderRecipientsImplementation } from "./order-recipients";
import { providerInfoImplementation } from "./provider-info";
import { UserError } from "./user-error";

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
      throw new UserError(
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

/**
 * What the engine is sent when a hook fails. The engine shows its message under the resource, and
 * that is the one place it should appear: @pulumi/pulumi's dynamic-provider host also prints every
 * error of check, diff, read and delete on stderr as `${e}: ${e.stack}`, which the engine passes
 * through to the user (the message twice more, and a stack trace full of machine paths). So the
 * error handed to the host prints as one fixed line, which `console.error` drops.
 */
class ReportedError extends Error {
  constructor(message: string) {
    super(message);
    this.stack = "";
  }

  override toString(): string {
    return HOST_TEXT;
  }
}

const HOST_TEXT = "[directmail] failed; the error is shown under the resource";
/** What the host prints for a ReportedError. */
const HOST_LINE = `${HOST_TEXT}: `;

let hostLineDropped = false;

function dropHostLine(): void {
  if (hostLineDropped) return;
  hostLineDropped = true;
  const print = console.error;
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && args[0] === HOST_LINE) return;
    print(...args);
  };
}

/** A refusal (UserError) or a service error: the message alone. Anything else is a bug: with its stack. */
function reported(error: unknown, kind: string, hook: string): ReportedError {
  dropHostLine();
  if (error instanceof UserError || error instanceof DirectMailError) return new ReportedError(error.message);
  const detail = error instanceof Error ? (error.stack ?? `${error}`) : String(error);
  return new ReportedError(
    `pulumi-directmail ${packageVersion()} failed unexpectedly in ${kind}.${hook}. This is a bug; please ` +
      `report it with the text below.\n${detail}`,
  );
}

export function providerFor(kind: string): Required<pulumi.dynamic.ResourceProvider> {
  const found = implementations[kind];
  const impl = (): ResourceImplementation => {
    if (found) return found;
    throw new UserError(
      `This version of pulumi-directmail has no resource kind "${kind}". ` +
        "Install the package version that created this resource, or remove it with `pulumi state delete`.",
    );
  };
  // Every hook reports its failure through `reported`.
  const guarded =
    <A extends unknown[], R>(hook: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (error) {
        throw reported(error, kind, hook);
      }
    };
  return {
    configure: guarded("configure", async (req: pulumi.dynamic.ConfigureRequest) => {
      configured = resolveSettings(req.config);
    }),
    check: guarded("check", async (olds: any, news: any) => {
      const i = impl();
      return i.check ? i.check(olds, news) : { inputs: news };
    }),
    diff: guarded("diff", async (id: string, olds: any, news: any) => {
      const i = impl();
      return i.diff
        ? i.diff(id, olds, news)
        : { changes: JSON.stringify(declared(olds)) !== JSON.stringify(declared(news)) };
    }),
    create: guarded("create", async (inputs: any) => impl().create(inputs)),
    read: guarded("read", async (id: string, props: any) => {
      const i = impl();
      return i.read ? i.read(id, props) : { id, props };
    }),
    update: guarded("update", async (id: string, olds: any, news: any) => {
      const i = impl();
      if (!i.update) throw new UserError(`${kind} ${id} cannot be updated in place`);
      return i.update(id, olds, news);
    }),
    delete: guarded("delete", async (id: string, props: any) => {
      const i = impl();
      if (i.delete) await i.delete(id, props);
    }),
  };
}
