/**
 * What every resource implementation shares: the shape of an implementation and the context it
 * runs with (settings from `configure`, the API client). A leaf: it imports no resource, so each
 * resource's provider hooks import it and the registry (registry.ts) imports them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { DirectMailClient, type RequestEvent } from "../api/client";
import { AbortedError, ForbiddenError, NetworkError, UnauthenticatedError } from "../api/errors";
import {
  type ConfigReader,
  isLocalSandbox,
  type ProviderSettings,
  resolveSettings,
  SettingsError,
  sandboxStartCommand,
} from "../settings";
import { engineStackName } from "./stack-name";
import { UserError } from "./user-error";

/**
 * Values as the engine sends and stores them: a property bag nothing has checked. The registry
 * (registry.ts) is where they become a kind's inputs and outputs, once; the hooks see only those.
 */
export type EngineValues = Record<string, unknown>;

/**
 * What `check` answers: the checked inputs, or the failures, with the declaration sent back as it
 * came. In a preview, a value not known yet is the engine's marker (check.ts, `isUnknown`) in either.
 */
export type CheckResult<Inputs> =
  | { readonly inputs: Inputs; readonly failures?: never }
  | { readonly inputs: EngineValues; readonly failures: pulumi.dynamic.CheckFailure[] };

/** What `create` answers: the resource's id and its state (its inputs and outputs). */
export interface CreateResult<Outputs> {
  readonly id: string;
  readonly outs: Outputs;
}

/** What `update` answers: the resource's new state. */
export interface UpdateResult<Outputs> {
  readonly outs: Outputs;
}

/**
 * What `read` answers: the resource's id and its state as read, or, for a resource that no longer
 * exists at the service, neither (the engine then removes it from the stack).
 */
export type ReadResult<Outputs> =
  | { readonly id: string; readonly props: Outputs }
  | { readonly id?: never; readonly props?: never };

/**
 * What one kind of resource implements, on its own inputs (what `check` made of the declaration)
 * and outputs (its state: the inputs and what the service reported); the rest falls back to the
 * registry's defaults. None of them sees the engine's `__provider` property.
 */
export interface ResourceImplementation<Inputs, Outputs> {
  /**
   * `olds`: the inputs checked before, or undefined for a resource still to be created; `news`:
   * the declaration, unchecked.
   */
  check?(olds: Inputs | undefined, news: EngineValues): Promise<CheckResult<Inputs>>;
  diff?(id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: Inputs): Promise<CreateResult<Outputs>>;
  read?(id: string, props: Outputs): Promise<ReadResult<Outputs>>;
  update?(id: string, olds: Outputs, news: Inputs): Promise<UpdateResult<Outputs>>;
  delete?(id: string, props: Outputs): Promise<void>;
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
  misconfigured = undefined;
}

/**
 * A setting of the stack that cannot be used (SettingsError), met at `configure`. The host keeps a
 * provider whose `configure` failed and runs its hooks unconfigured, which would then send to the
 * environment's address: every later hook fails too, in one short line, so the message is shown
 * once.
 */
let misconfigured: { message: string; said: boolean } | undefined;

/** `configure` from the engine's configuration: its settings, each key checked (settings.ts). */
export async function configureFrom(config: ConfigReader): Promise<void> {
  try {
    configure(resolveSettings(config));
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    // Again with the stack's name, for the exact command that fixes it.
    let message = error.message;
    try {
      resolveSettings(config, process.env, { stack: await engineStackName() });
    } catch (named) {
      if (named instanceof SettingsError) message = named.message;
    }
    misconfigured = { message, said: false };
    settingsFailed(misconfigured);
  }
}

function settingsFailed(failure: { message: string; said: boolean }): never {
  if (failure.said)
    throw new UserError(
      "Stopped: a directmail setting of this stack is not valid (see the first error about it).",
    );
  failure.said = true;
  throw new UserError(failure.message);
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
  const { baseUrl } = context.settings();
  if (unreachable.has(baseUrl)) return new UserError(notAttempted(baseUrl));
  unreachable.add(baseUrl);
  return new UserError(silentService(error.message, context.settings()));
}

/** What a service that does not answer means, and what to do: start the sandbox, or check the URL. */
function silentService(failure: string, { baseUrl, baseUrlSource }: ProviderSettings): string {
  const where =
    baseUrlSource === "config"
      ? "directmail:baseUrl"
      : baseUrlSource === "environment"
        ? "DIRECTMAIL_BASE_URL"
        : "the default base URL";
  const fix = isLocalSandbox(baseUrl)
    ? `start the local sandbox with \`${sandboxStartCommand(baseUrl)}\``
    : `check ${where} and this machine's network`;
  return `${failure.replace(/\.$/, "")}. Nothing answers at ${baseUrl} (${where}): ${fix}, then run the command again.`;
}

/** A key the service refused: the setting it came from, and the command that sets the right one. */
function refusedKey(failure: string, settings: ProviderSettings, stack: string | undefined): string {
  const stackOption = stack === undefined ? "" : ` --stack ${stack}`;
  const setKey = `\`pulumi config set --secret directmail:apiKey <key>${stackOption}\``;
  const fix =
    settings.apiKeySource === "environment"
      ? `the key came from DIRECTMAIL_API_KEY: set the right key there, or in the stack with ${setKey}`
      : `the key came from directmail:apiKey of ${stack === undefined ? "this stack" : `stack "${stack}"`}: ` +
        `set the right one with ${setKey}`;
  return `${failure.replace(/\.$/, "")}. The service at ${settings.baseUrl} refused the API key; ${fix}, then run the command again.`;
}

/** How long the check of the key may take before the service counts as silent. */
const SERVICE_CHECK_MS = 10_000;

let verification:
  | { baseUrl: string; apiKey: string; failure: Promise<string | undefined>; said: boolean }
  | undefined;

/**
 * Asks the service who owns the key (`GET /v1/me`), once per process and key, so that a refused
 * key or a silent service fails the preview, before any plan is shown. Resolves to the full
 * message, or undefined when the key works, there is none, or the service answered otherwise.
 */
export function checkService(): Promise<string | undefined> {
  const settings = context.settings();
  const { baseUrl, apiKey } = settings;
  if (!apiKey) return Promise.resolve(undefined);
  if (verification?.baseUrl !== baseUrl || verification.apiKey !== apiKey) {
    const failure = Promise.resolve()
      .then(() =>
        context
          .client()
          .me({ signal: AbortSignal.timeout(SERVICE_CHECK_MS), timeoutMs: SERVICE_CHECK_MS / 2 }),
      )
      .then(
        () => undefined,
        async (error: unknown) => {
          if (error instanceof UnauthenticatedError || error instanceof ForbiddenError)
            return refusedKey(error.message, settings, await engineStackName());
          if (error instanceof NetworkError || error instanceof AbortedError) {
            unreachable.add(baseUrl);
            const said =
              error instanceof AbortedError
                ? `GET /v1/me: no answer within ${SERVICE_CHECK_MS / 1000} s`
                : error.message;
            return silentService(said, settings);
          }
          // Any other answer (a 5xx, a 429): the service is there, and each hook meets it itself.
          return undefined;
        },
      );
    verification = { baseUrl, apiKey, failure, said: false };
  }
  return verification.failure;
}

/** Fails a hook when the check of the service failed: in full once, in one short line after that. */
export async function serviceChecked(): Promise<void> {
  const failure = await checkService();
  if (failure === undefined || verification === undefined) return;
  if (verification.said)
    throw new UserError(
      `Not sent: the check of ${verification.baseUrl} failed earlier in this run (see the first error about it).`,
    );
  verification.said = true;
  throw new UserError(failure);
}

const notAttempted = (baseUrl: string) =>
  `Not sent: ${baseUrl} did not answer earlier in this run (see the first error about it).`;

export const context: ProviderContext = {
  settings: () => {
    if (misconfigured) settingsFailed(misconfigured);
    return configured ?? resolveSettings(undefined);
  },
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
