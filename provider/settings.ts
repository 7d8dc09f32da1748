/**
 * Where the provider sends its requests and with which key.
 *
 * Stack configuration (`directmail:baseUrl`, secret `directmail:apiKey`) wins; the environment
 * variables DIRECTMAIL_BASE_URL and DIRECTMAIL_API_KEY are the fallback. With no base URL at all
 * the target is the local sandbox: production spends money, so it must be chosen explicitly.
 */
export const DEFAULT_SANDBOX_URL = "http://127.0.0.1:4010";

export interface ProviderSettings {
  baseUrl: string;
  /** Undefined when neither the stack nor the environment gives a key. Never logged. */
  apiKey: string | undefined;
  /** Where the base URL came from, for messages that tell the user what to change. */
  baseUrlSource: "config" | "environment" | "default";
  /** Where the API key came from (undefined without a key), for the same messages. */
  apiKeySource?: "config" | "environment" | undefined;
  /**
   * The stack's `directmail:monthlyBudget`, in US dollars: what the account may be charged in a
   * calendar month (UTC) across every campaign. Undefined: no budget. Stack configuration only, so
   * that a campaign file, which a pull request can change, never raises it.
   */
  monthlyBudget?: number | undefined;
}

/** The subset of the dynamic provider's `ConfigureRequest.config` that is read here. */
export interface ConfigReader {
  get(key: string): string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

export function resolveSettings(
  config: ConfigReader | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProviderSettings {
  const fromConfig = nonEmpty(config?.get("directmail:apiKey"));
  const apiKey = fromConfig ?? nonEmpty(env.DIRECTMAIL_API_KEY);
  return {
    ...resolveBaseUrl(config?.get("directmail:baseUrl"), env),
    apiKey,
    apiKeySource: apiKey === undefined ? undefined : fromConfig ? "config" : "environment",
    monthlyBudget: parseMonthlyBudget(config?.get("directmail:monthlyBudget")),
  };
}

/**
 * `directmail:monthlyBudget` as a number of US dollars. A value that is not one fails rather than
 * being ignored: a budget mistyped must not let every charge through.
 */
export function parseMonthlyBudget(configured: string | undefined): number | undefined {
  const text = nonEmpty(configured);
  if (text === undefined) return undefined;
  const amount = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(amount)) {
    throw new Error(
      `directmail:monthlyBudget must be an amount of US dollars such as 500 or 1250.50, not ${JSON.stringify(text)}: ` +
        "set it with `pulumi config set directmail:monthlyBudget 500`, or remove it for no budget",
    );
  }
  return amount;
}

/** The base URL from the stack's `directmail:baseUrl` (given here), the environment, or the default. */
export function resolveBaseUrl(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Pick<ProviderSettings, "baseUrl" | "baseUrlSource"> {
  const fromConfig = nonEmpty(configured);
  const fromEnv = nonEmpty(env.DIRECTMAIL_BASE_URL);
  const baseUrl = fromConfig ?? fromEnv ?? DEFAULT_SANDBOX_URL;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    baseUrlSource: fromConfig ? "config" : fromEnv ? "environment" : "default",
  };
}

/**
 * Whether a base URL names this machine (localhost, 127.0.0.0/8, ::1): the local sandbox, where
 * nothing costs money. A real service is never on the loopback interface.
 */
export function isLocalSandbox(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
