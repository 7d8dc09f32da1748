/**
 * Data functions: what a TypeScript program (or any Node.js code) reads from the service without
 * declaring a resource. Each takes optional `{ baseUrl, apiKey }`; without them it reads the stack's
 * `directmail:baseUrl` and `directmail:apiKey` when it runs inside a Pulumi program, then
 * DIRECTMAIL_BASE_URL and DIRECTMAIL_API_KEY, then the local sandbox, like the resources.
 *
 * ```ts
 * const templates = await getTemplates();
 * const postcard = templates.find((t) => t.name === "Spring postcard");
 * export const delivered = getOrderAnalyticsOutput([order.orderId]).apply((a) => a[0]?.delivered);
 * ```
 */
import * as pulumi from "@pulumi/pulumi";
import { DirectMailClient } from "../api/client";
import type { OrderAnalyticsEntry } from "../api/schemas/analytics";
import type { OrderSummary } from "../api/schemas/order";
import type { Font, Template } from "../api/schemas/templates";
import { checkBaseUrl, type ProviderSettings, resolveSettings } from "../settings";
import { serviceFacts } from "./facts";
import { asProgramError, checkProgramSettingKeys, runningStack } from "./program-settings";

export { clearServiceFacts, type ServiceFacts, serviceFacts } from "./facts";

/** Where a data function sends its request; each field falls back as the resources' settings do. */
export interface ServiceOptions {
  /** The service's base URL; default `directmail:baseUrl`, then DIRECTMAIL_BASE_URL, then the local sandbox. */
  baseUrl?: string;
  /** The API key; default the secret `directmail:apiKey`, then DIRECTMAIL_API_KEY. */
  apiKey?: string;
}

/**
 * A key of the running stack's configuration; undefined outside a Pulumi program, and where the
 * SDK has no configuration to read: its `getConfig` throws when the stack sets no key at all.
 */
function stackConfig(key: string): string | undefined {
  try {
    return pulumi.runtime.getConfig(key);
  } catch {
    return undefined;
  }
}

/**
 * The settings a data function uses: the options given, else the stack's configuration when it
 * runs inside a Pulumi program, else the environment. The program is where a stack's settings are
 * first read (a CampaignFolder checks its campaigns against the account): a setting that cannot be
 * used fails it here as a RunError, its message alone, which the SDK prints once without a trace.
 */
export function lookupSettings(options: ServiceOptions = {}): ProviderSettings {
  checkProgramSettingKeys();
  try {
    const stack = resolveSettings({ get: stackConfig }, process.env, { stack: runningStack() });
    return {
      ...stack,
      ...(options.baseUrl !== undefined
        ? {
            baseUrl: checkBaseUrl(options.baseUrl.trim(), {
              name: "the option baseUrl",
              fix: (value) => `pass { baseUrl: "${value}" }`,
            }),
            baseUrlSource: "config" as const,
          }
        : {}),
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    };
  } catch (error) {
    throw asProgramError(error);
  }
}

/** Runs `call` with a client for `options`, closed afterwards. */
async function withClient<T>(
  options: ServiceOptions | undefined,
  call: (client: DirectMailClient, apiKey: string) => Promise<T>,
): Promise<T> {
  const { baseUrl, apiKey } = lookupSettings(options);
  if (!apiKey) {
    throw new Error(
      `no API key for ${baseUrl}: pass { apiKey }, set the secret directmail:apiKey ` +
        "(pulumi config set --secret directmail:apiKey <key>), or set DIRECTMAIL_API_KEY",
    );
  }
  const client = new DirectMailClient({ baseUrl, apiKey });
  try {
    return await call(client, apiKey);
  } finally {
    await client.close();
  }
}

/** The account's active templates (entry 23); read once per process and account. */
export function getTemplates(options?: ServiceOptions): Promise<Template[]> {
  return withClient(options, (client, apiKey) => serviceFacts(client, apiKey).templates());
}

/** The handwriting fonts (entry 24): the service's styles (`type: "Global"`) and the account's uploads; read once per process and account. */
export function getFonts(options?: ServiceOptions): Promise<Font[]> {
  return withClient(options, (client, apiKey) => serviceFacts(client, apiKey).fonts());
}

/** One order (entry 3, filtered by id): status, product, postage, paid date, delivery progress; undefined when it does not exist. */
export function getOrder(orderId: number, options?: ServiceOptions): Promise<OrderSummary | undefined> {
  return withClient(options, (client) => client.getOrder(orderId));
}

/**
 * QR scans and delivery progress of orders (entry 12), one entry per id in the given order, in one
 * request. An order that cannot be read has an error `status` (`NotFound`) in its own entry.
 */
export async function getOrderAnalytics(
  orderIds: readonly number[],
  options?: ServiceOptions,
): Promise<OrderAnalyticsEntry[]> {
  if (orderIds.length === 0) return [];
  return withClient(options, async (client) => (await client.getAnalytics(orderIds)).orders);
}

/** {@link getTemplates} as a `pulumi.Output`. */
export function getTemplatesOutput(options?: ServiceOptions): pulumi.Output<Template[]> {
  return pulumi.output(getTemplates(options));
}

/** {@link getFonts} as a `pulumi.Output`. */
export function getFontsOutput(options?: ServiceOptions): pulumi.Output<Font[]> {
  return pulumi.output(getFonts(options));
}

/** {@link getOrder} of an order id that may be an Output (an `Order`'s `orderId`). */
export function getOrderOutput(
  orderId: pulumi.Input<number>,
  options?: ServiceOptions,
): pulumi.Output<OrderSummary | undefined> {
  return pulumi.output(orderId).apply((id) => getOrder(id, options));
}

/** {@link getOrderAnalytics} of order ids that may be Outputs. */
export function getOrderAnalyticsOutput(
  orderIds: pulumi.Input<pulumi.Input<number>[]>,
  options?: ServiceOptions,
): pulumi.Output<OrderAnalyticsEntry[]> {
  return pulumi.output(orderIds).apply((ids) => getOrderAnalytics(ids, options));
}
