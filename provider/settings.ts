/**
 * Where the provider sends its requests and with which key.
 *
 * Stack configuration (`directmail:baseUrl`, secret `directmail:apiKey`) wins; the environment
 * variables DIRECTMAIL_BASE_URL and DIRECTMAIL_API_KEY are the fallback. With no base URL at all
 * the target is the local sandbox: production spends money, so it must be chosen explicitly.
 */
import { shown } from "./text";

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

/** Every key of the stack's configuration that pulumi-directmail reads: the one list of them. */
export const SETTING_KEYS = ["directmail:apiKey", "directmail:baseUrl", "directmail:monthlyBudget"] as const;

/**
 * The first `directmail:` key among `keys` that is not a setting, as a SettingsError naming the key
 * it resembles; undefined when every one is known. A misspelled key would otherwise be ignored
 * without a word, and a misspelled `directmail:monthlyBudget` is no budget at all.
 */
export function unknownSettingKey(
  keys: Iterable<string>,
  scope: SettingsScope = {},
): SettingsError | undefined {
  const known: readonly string[] = SETTING_KEYS;
  for (const key of keys) {
    if (!key.startsWith("directmail:") || known.includes(key)) continue;
    const near = nearestSettingKey(key);
    const onStack = scope.stack === undefined ? "" : ` --stack ${scope.stack}`;
    return new SettingsError(
      `${shown(key)} is not a setting of pulumi-directmail${near ? ` (did you mean ${near}?)` : ""}: remove ` +
        `it with \`pulumi config rm ${shown(key)}${onStack}\`${near ? ` and set ${near} instead` : ""}. ` +
        `Its settings are ${known.slice(0, -1).join(", ")} and ${known.at(-1)}.`,
    );
  }
  return undefined;
}

/** The setting whose name differs from `key` by case, or by at most two letters; undefined otherwise. */
function nearestSettingKey(key: string): string | undefined {
  const name = key.slice("directmail:".length).toLowerCase();
  if (name.length > 40) return undefined; // no setting is that long: nothing to compare, in time bounded
  let best: { key: string; distance: number } | undefined;
  for (const candidate of SETTING_KEYS) {
    const distance = editDistance(name, candidate.slice("directmail:".length).toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance))
      best = { key: candidate, distance };
  }
  return best?.key;
}

/** Levenshtein distance of two short names. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The subset of the dynamic provider's `ConfigureRequest.config` that is read here. */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/**
 * A setting that cannot be used. Its message is complete for the user (the key, what is wrong with
 * its value, and the command that fixes it), so it is shown alone, once, without a stack trace:
 * the provider (resources/context.ts), the program (lookups/data-functions.ts) and the CLI
 * (cli/stack/settings.ts) each show it so.
 */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/**
 * Where a value came from and how the user changes it: a key of the stack's configuration, an
 * environment variable, a command-line flag. `fix(value)` is the command or step that sets
 * `value`; `remove` the one that takes the setting away, where that is a fix too.
 */
export interface SettingSource {
  /** The key as the user names it: `directmail:baseUrl`, `DIRECTMAIL_BASE_URL`, `--url`. */
  name: string;
  fix(value: string, options?: { secret?: boolean }): string;
  remove?: string;
}

/** A key of the stack's configuration, set with `pulumi config set` (for `stack` when it is known). */
export function stackKey(key: string, stack?: string): SettingSource {
  const onStack = stack === undefined ? "" : ` --stack ${stack}`;
  return {
    name: key,
    fix: (value, options) =>
      `set it with \`pulumi config set${options?.secret ? " --secret" : ""} ${key} ${value}${onStack}\``,
    remove: `\`pulumi config rm ${key}${onStack}\``,
  };
}

/** An environment variable. */
export function environmentVariable(name: string): SettingSource {
  return { name, fix: (value) => `set ${name}=${value}`, remove: `unset ${name}` };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}

/** Where the settings are read, for the commands a message gives. */
export interface SettingsScope {
  /** The stack whose configuration is read, when known: the fix commands name it (`--stack dev`). */
  stack?: string | undefined;
}

/**
 * The settings from the stack's configuration (`config`), then the environment, then the default.
 * Every key is checked here, once: a value that cannot be used is a SettingsError naming the key.
 */
export function resolveSettings(
  config: ConfigReader | undefined,
  env: NodeJS.ProcessEnv = process.env,
  scope: SettingsScope = {},
): ProviderSettings {
  const fromConfig = nonEmpty(config?.get("directmail:apiKey"));
  const apiKey = fromConfig ?? nonEmpty(env.DIRECTMAIL_API_KEY);
  if (apiKey !== undefined)
    checkApiKey(
      apiKey,
      fromConfig ? stackKey("directmail:apiKey", scope.stack) : environmentVariable("DIRECTMAIL_API_KEY"),
    );
  return {
    ...resolveBaseUrl(config?.get("directmail:baseUrl"), env, scope),
    apiKey,
    apiKeySource: apiKey === undefined ? undefined : fromConfig ? "config" : "environment",
    monthlyBudget: parseMonthlyBudget(config?.get("directmail:monthlyBudget"), scope),
  };
}

/**
 * `directmail:monthlyBudget` as a number of US dollars. A value that is not one fails rather than
 * being ignored: a budget mistyped must not let every charge through.
 */
export function parseMonthlyBudget(
  configured: string | undefined,
  scope: SettingsScope = {},
): number | undefined {
  const text = nonEmpty(configured);
  if (text === undefined) return undefined;
  const amount = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(amount)) {
    const key = stackKey("directmail:monthlyBudget", scope.stack);
    throw new SettingsError(
      `directmail:monthlyBudget must be an amount of US dollars such as 500 or 1250.50 (digits, a point ` +
        `before the cents, no thousands separator), not ${JSON.stringify(shown(text))}: ${key.fix("500")}, ` +
        `or remove it with ${key.remove} for no budget`,
    );
  }
  return amount;
}

/**
 * The base URL from the stack's `directmail:baseUrl` (given here), the environment, or the
 * default; the one chosen is checked (`checkBaseUrl`).
 */
export function resolveBaseUrl(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  scope: SettingsScope = {},
): Pick<ProviderSettings, "baseUrl" | "baseUrlSource"> {
  const fromConfig = nonEmpty(configured);
  if (fromConfig !== undefined)
    return {
      baseUrl: checkBaseUrl(fromConfig, stackKey("directmail:baseUrl", scope.stack)),
      baseUrlSource: "config",
    };
  const fromEnv = nonEmpty(env.DIRECTMAIL_BASE_URL);
  if (fromEnv !== undefined)
    return {
      baseUrl: checkBaseUrl(fromEnv, environmentVariable("DIRECTMAIL_BASE_URL")),
      baseUrlSource: "environment",
    };
  return { baseUrl: DEFAULT_SANDBOX_URL, baseUrlSource: "default" };
}

/**
 * A base URL the client can call (an absolute http:// or https:// address without credentials,
 * query or fragment), without its trailing slashes; else a SettingsError naming `source`, what is
 * wrong and the value to set (the address with a scheme, when only the scheme is missing).
 */
export function checkBaseUrl(value: string, source: SettingSource): string {
  const problem = baseUrlProblem(value);
  if (problem === undefined) return value.replace(/\/+$/, "");
  // A value with a password is not quoted: the message goes to logs.
  const quoted = problem.quote ? ` ${JSON.stringify(shown(value))}` : "";
  const fix = problem.suggestion
    ? source.fix(problem.suggestion)
    : `${source.fix("<address>")} with the service's https:// address, or the local sandbox's ` +
      `(${DEFAULT_SANDBOX_URL} by default)`;
  throw new SettingsError(`${source.name}${quoted} ${problem.says}: ${fix}`);
}

/** `scheme://` at the start: "localhost:4710" parses as a URL of the scheme "localhost:", but has none. */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

function baseUrlProblem(value: string): { says: string; suggestion?: string; quote: boolean } | undefined {
  if (!SCHEME.test(value)) {
    const withScheme = `http://${value}`;
    if (URL.canParse(withScheme) && !/[\s@]/.test(value)) {
      const scheme = isLocalSandbox(withScheme) ? "http" : "https";
      return {
        says: "has no scheme (http:// or https://)",
        suggestion: `${scheme}://${value.replace(/\/+$/, "")}`,
        quote: true,
      };
    }
    return { says: "is not an http:// or https:// address", quote: !value.includes("@") };
  }
  if (!URL.canParse(value))
    return { says: "is not an http:// or https:// address", quote: !value.includes("@") };
  const url = new URL(value);
  if (url.username || url.password)
    return { says: "carries a user name or password; the API key goes in directmail:apiKey", quote: false };
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return {
      says: `has the scheme ${url.protocol.slice(0, -1)}; the service answers http:// or https://`,
      quote: true,
    };
  if (url.search || url.hash) {
    const bare = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
    return { says: "has a query or a fragment; give the address alone", suggestion: bare, quote: true };
  }
  return undefined;
}

/** A key the service can be sent: no space or control character inside (it is never quoted). */
export function checkApiKey(key: string, source: SettingSource): void {
  if (/^[\x21-\x7e]+$/.test(key)) return;
  throw new SettingsError(
    `${source.name} holds a space or a character that cannot be sent in a header (the key is not shown ` +
      `here): ${source.fix("<key>", { secret: true })}, copied whole`,
  );
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

/** The command that starts the sandbox at a local base URL (at its default port, the demo account's). */
export function sandboxStartCommand(baseUrl: string): string {
  const port = new URL(baseUrl).port || "80";
  return port === new URL(DEFAULT_SANDBOX_URL).port
    ? "npx directmail sandbox --seed demo"
    : `npx directmail sandbox --port ${port}`;
}
