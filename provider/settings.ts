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
  const configured = nonEmpty(config?.get("directmail:baseUrl"));
  const fromEnv = nonEmpty(env.DIRECTMAIL_BASE_URL);
  const baseUrl = configured ?? fromEnv ?? DEFAULT_SANDBOX_URL;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    apiKey: nonEmpty(config?.get("directmail:apiKey")) ?? nonEmpty(env.DIRECTMAIL_API_KEY),
    baseUrlSource: configured ? "config" : fromEnv ? "environment" : "default",
  };
}
