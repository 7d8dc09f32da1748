/**
 * What every resource implementation shares: the shape of an implementation and the context it
 * runs with (settings from `configure`, the API client). A leaf: it imports no resource, so each
 * resource's provider hooks import it and the registry (registry.ts) imports them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { DirectMailClient, type RequestEvent } from "../api/client";
import { NetworkError } from "../api/errors";
import { DEFAULT_SANDBOX_URL, isLocalSandbox, type ProviderSettings, resolveSettings } from "../settings";
import { UserError } from "./user-error";

/** What one kind of resource implements; the rest falls back to the registry's defaults. */
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

let configured: ProviderSettings | undefined;
let cachedClient: { baseUrl: string; apiKey: string; client: DirectMailClient } | undefined;
const requestListeners = new Set<(event: RequestEvent) => void>();

/** Records the settings of the engine's `configure` call for every later hook of this process. */
export function configure(settings: ProviderSettings): void {
  configured = settings;
}

/**
 * Calls `listener` for every HTTP attempt the providers make (operation, status, duration; never a
 * header or the key), until the returned function is called. For tests and benchmarks that count
 * requests.
 */
export function observeRequests(listener: (event: RequestEvent) => void): () => void {
  requestListeners.add(listener);
  return () => requestListeners.delete(listener);
}

/**
 * Base URLs that refused the connection in this process. One provider process serves one engine
 * run, so the first resource that meets an unreachable service reports it in full (with the way to
 * fix it) and every later one fails at once with a short line, rather than waiting out its own
 * retries and repeating the same paragraph.
 */
const unreachable = new Set<string>();

/**
 * The error a hook reports for `error`: a connection that never reached the service is said once
 * for the run, with what to do; anything else is unchanged.
 */
export function unreachableService(error: unknown): unknown {
  if (!(error instanceof NetworkError) || error.sent) return error;
  const { baseUrl, baseUrlSource } = context.settings();
  if (unreachable.has(baseUrl)) return new UserError(notAttempted(baseUrl));
  unreachable.add(baseUrl);
  const where =
    baseUrlSource === "config"
      ? "directmail:baseUrl"
      : baseUrlSource === "environment"
        ? "DIRECTMAIL_BASE_URL"
        : "the default base URL";
  const fix = isLocalSandbox(baseUrl)
    ? `start the local sandbox with \`${sandboxCommand(baseUrl)}\``
    : `check ${where} and this machine's network`;
  return new UserError(
    `${error.message}. Nothing answers at ${baseUrl} (${where}): ${fix}, then run the command again.`,
  );
}

/** The command that starts the sandbox at a local base URL (the sandbox's default port is 4010). */
function sandboxCommand(baseUrl: string): string {
  const port = new URL(baseUrl).port || "80";
  return port === new URL(DEFAULT_SANDBOX_URL).port
    ? "npx directmail sandbox"
    : `npx directmail sandbox --port ${port}`;
}

const notAttempted = (baseUrl: string) =>
  `Not sent: ${baseUrl} did not answer earlier in this run (see the first error about it).`;

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
    if (unreachable.has(baseUrl)) throw new UserError(notAttempted(baseUrl));
    if (cachedClient?.baseUrl !== baseUrl || cachedClient.apiKey !== apiKey) {
      const onEvent = (event: RequestEvent) => {
        for (const listener of requestListeners) listener(event);
      };
      cachedClient = { baseUrl, apiKey, client: new DirectMailClient({ baseUrl, apiKey, onEvent }) };
    }
    return cachedClient.client;
  },
};
