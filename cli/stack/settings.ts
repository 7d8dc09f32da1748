/**
 * Where every `directmail` command that calls the service (whoami, proof, review, status, report,
 * scans, the sandbox's clock, deliver and scan) sends its requests, in one order: the command's
 * flags (`--url`, `--api-key`, where it has them), then, inside a Pulumi project, the selected
 * stack's `directmail:baseUrl` and secret `directmail:apiKey`, read with the project's `pulumi` CLI
 * (./pulumi.ts) exactly as `pulumi up` reads them, so that the CLI never talks to another account
 * or sandbox than the deployment; then the DIRECTMAIL_* environment variables; then the local
 * sandbox. Each value is checked with the provider's rules (provider/settings.ts), naming where it
 * came from.
 * Secrets come decrypted (`pulumi config --show-secrets`), with PULUMI_CONFIG_PASSPHRASE (or
 * PULUMI_CONFIG_PASSPHRASE_FILE) for a passphrase-protected stack.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DirectMailClient } from "../../provider/api/client";
import { NetworkError, UnauthenticatedError } from "../../provider/api/errors";
import { PROJECT_FILES, projectRoot } from "../../provider/project";
import {
  checkApiKey,
  checkBaseUrl,
  DEFAULT_SANDBOX_URL,
  environmentVariable,
  isLocalSandbox,
  type ProviderSettings,
  parseMonthlyBudget,
  type SettingSource,
  sandboxStartCommand,
  stackKey,
} from "../../provider/settings";
import { PulumiCommandError, PulumiProject } from "./pulumi";

export interface StackSelection {
  /** The Pulumi project's folder. */
  root: string;
  /** The project's stacks, through its `pulumi` CLI. */
  pulumi: PulumiProject;
  stackName: string;
}

export interface ServiceSettings extends ProviderSettings {
  /** Where the base URL and the key came from, for the user (never the key itself): "address from ..., API key from ...". */
  from: string;
  /** Where the base URL came from, as the user names it: `directmail:baseUrl of stack "dev"`, `--url`. */
  baseUrlFrom: string;
  /** Where the key came from, as the user names it; undefined without a key. */
  apiKeyFrom: string | undefined;
  /** How the user sets the key where it came from (the stack's key when none is set). */
  apiKeySetting: SettingSource;
  /** How the user sets the base URL where it came from; undefined for the default. */
  baseUrlSetting: SettingSource | undefined;
  /** The stack whose configuration was read; undefined outside a project or with no stack selected. */
  stack: StackSelection | undefined;
  /** A value of the stack's configuration (`project:key`); undefined without a stack. */
  config(key: string): string | undefined;
}

export interface SettingsOptions {
  /** Where to look for the Pulumi project (default the working directory). */
  cwd?: string;
  /** The stack to read (default the selected one). */
  stack?: string;
  /** `--url`, of the commands that take it: before the stack's configuration. */
  url?: string;
  /** `--api-key`, of the commands that take it: before the stack's configuration. */
  apiKey?: string;
}

/** The Pulumi project folder at or above `cwd`, or undefined outside any project. */
export function findProject(cwd: string = process.cwd()): string | undefined {
  const root = projectRoot(cwd);
  return PROJECT_FILES.some((name) => fs.existsSync(path.join(root, name))) ? root : undefined;
}

/**
 * The stack to read in the project at `root`: `stackName`, or the selected one (undefined when none
 * is). Either way the project's stacks are listed once; nothing is selected.
 */
export async function selectStack(root: string, stackName?: string): Promise<StackSelection | undefined> {
  const pulumi = new PulumiProject(root);
  const known = await pulumiCall("cannot list the project's stacks", () => pulumi.listStacks());
  if (stackName !== undefined) {
    if (!known.some((s) => s.name === stackName || s.name.endsWith(`/${stackName}`))) {
      throw new Error(
        `stack "${stackName}" does not exist in the Pulumi project ${root}` +
          (known.length > 0 ? ` (its stacks: ${known.map((s) => s.name).join(", ")})` : ""),
      );
    }
    return { root, pulumi, stackName };
  }
  const selected = known.find((s) => s.current);
  return selected ? { root, pulumi, stackName: selected.name } : undefined;
}

/**
 * The service settings for a command run in `options.cwd`, the one order every command that calls
 * the service follows: its flags (`--url`, `--api-key`), then the stack's configuration inside a
 * Pulumi project with a stack selected (or named), then the environment, then the default.
 */
export async function serviceSettings(options: SettingsOptions = {}): Promise<ServiceSettings> {
  const root = findProject(options.cwd);
  if (root === undefined) {
    if (options.stack !== undefined) {
      throw new Error(`--stack ${options.stack}: no Pulumi project (Pulumi.yaml) here or above`);
    }
    return resolveService(undefined, options, "not in a Pulumi project");
  }
  const stack = await selectStack(root, options.stack);
  if (stack === undefined) {
    return resolveService(
      undefined,
      options,
      `no stack is selected in the Pulumi project ${root} (pulumi stack select)`,
    );
  }
  return settingsOfStack(stack, options);
}

/** The service settings of a stack: the flags given, its configuration, the environment where it sets nothing. */
export async function settingsOfStack(
  stack: StackSelection,
  flags: Pick<SettingsOptions, "url" | "apiKey"> = {},
): Promise<ServiceSettings> {
  const config = await pulumiCall(`cannot read the configuration of stack "${stack.stackName}"`, () =>
    stack.pulumi.config(stack.stackName),
  );
  return resolveService({ stack, get: (key) => config[key]?.value }, flags);
}

/** A value and where it came from. */
interface Candidate {
  value: string | undefined;
  /** A flag counts as the command's own configuration. */
  source: "config" | "environment";
  /** How the user names the place: `directmail:baseUrl of stack "dev"`. */
  from: string;
  setting: SettingSource;
}

/** The first of `candidates` that holds a value (blank counts as none). */
function firstGiven(candidates: Candidate[]): (Candidate & { value: string }) | undefined {
  for (const c of candidates) {
    const value = c.value?.trim();
    if (value) return { ...c, value };
  }
  return undefined;
}

const URL_FLAG: SettingSource = { name: "--url", fix: (value) => `give --url ${value}` };
const KEY_FLAG: SettingSource = { name: "--api-key", fix: (value) => `give --api-key ${value}` };

/**
 * The settings in the one order: the flags, the stack's configuration (`config`), the environment,
 * the default. Each value is checked with the rules of provider/settings.ts, naming where it came from.
 */
function resolveService(
  config: { stack: StackSelection; get(key: string): string | undefined } | undefined,
  flags: Pick<SettingsOptions, "url" | "apiKey">,
  why?: string,
): ServiceSettings {
  const stackName = config?.stack.stackName;
  const ofStack = (key: string): Candidate[] =>
    config === undefined
      ? []
      : [
          {
            value: config.get(key),
            source: "config",
            from: `${key} of stack "${stackName}"`,
            setting: stackKey(key, stackName),
          },
        ];
  const fromEnv = (name: string): Candidate => ({
    value: process.env[name],
    source: "environment",
    from: name,
    setting: environmentVariable(name),
  });
  const url = firstGiven([
    { value: flags.url, source: "config", from: "--url", setting: URL_FLAG },
    ...ofStack("directmail:baseUrl"),
    fromEnv("DIRECTMAIL_BASE_URL"),
  ]);
  const key = firstGiven([
    { value: flags.apiKey, source: "config", from: "--api-key", setting: KEY_FLAG },
    ...ofStack("directmail:apiKey"),
    fromEnv("DIRECTMAIL_API_KEY"),
  ]);
  if (key !== undefined) checkApiKey(key.value, key.setting);
  const baseUrl = url === undefined ? DEFAULT_SANDBOX_URL : checkBaseUrl(url.value, url.setting);
  const baseUrlFrom = url?.from ?? "the default (the local sandbox)";
  return {
    baseUrl,
    baseUrlSource: url?.source ?? "default",
    apiKey: key?.value,
    apiKeySource: key?.source,
    monthlyBudget: parseMonthlyBudget(config?.get("directmail:monthlyBudget"), { stack: stackName }),
    stack: config?.stack,
    config: (k) => config?.get(k),
    baseUrlFrom,
    apiKeyFrom: key?.from,
    apiKeySetting:
      key?.setting ??
      (config ? stackKey("directmail:apiKey", stackName) : environmentVariable("DIRECTMAIL_API_KEY")),
    baseUrlSetting: url?.setting,
    from: `address from ${baseUrlFrom}, API key from ${key?.from ?? "nowhere"}${why ? ` (${why})` : ""}`,
  };
}

/** A client for the settings; a missing key is an error that says where to set one. */
export function clientFor(settings: ServiceSettings): DirectMailClient {
  if (!settings.apiKey) {
    const where = settings.stack
      ? `\`pulumi config set --secret directmail:apiKey <key>\` for stack "${settings.stack.stackName}", or set DIRECTMAIL_API_KEY`
      : "set DIRECTMAIL_API_KEY (and DIRECTMAIL_BASE_URL for another service)";
    throw new Error(`no API key for ${settings.baseUrl}: ${where}`);
  }
  return new DirectMailClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
}

/**
 * Runs `use` with a client for the settings, closed afterwards. A key the service refuses and a
 * service that does not answer fail with where the key or the address came from and what to do.
 */
export async function withClient<T>(
  settings: ServiceSettings,
  use: (client: DirectMailClient) => Promise<T>,
): Promise<T> {
  const client = clientFor(settings);
  try {
    return await use(client);
  } catch (error) {
    throw serviceFailure(error, settings);
  } finally {
    await client.close();
  }
}

/** What a refused key or a silent service means for these settings; any other error unchanged. */
export function serviceFailure(error: unknown, settings: ServiceSettings): unknown {
  const failure = error instanceof Error ? error.message.replace(/\.$/, "") : String(error);
  if (error instanceof UnauthenticatedError) {
    return new Error(
      `${failure}. The service at ${settings.baseUrl} refused the API key from ${settings.apiKeyFrom}. ` +
        `To use another key, ${settings.apiKeySetting.fix("<key>", { secret: true })}; then run the command again.`,
    );
  }
  if (error instanceof NetworkError && !error.sent) {
    const start = isLocalSandbox(settings.baseUrl)
      ? `start the local sandbox with \`${sandboxStartCommand(settings.baseUrl)}\``
      : "check the address and this machine's network";
    const change = settings.baseUrlSetting
      ? `; for another service, ${settings.baseUrlSetting.fix("<address>")}`
      : "; for another service, set directmail:baseUrl or DIRECTMAIL_BASE_URL";
    return new Error(
      `${failure}. Nothing answers at ${settings.baseUrl}, the address from ${settings.baseUrlFrom}: ` +
        `${start}${change}; then run the command again.`,
    );
  }
  return error;
}

/**
 * Runs a pulumi command (./pulumi.ts); its failure becomes one message with what the pulumi CLI
 * said (the end of its stderr), not the command line.
 */
export async function pulumiCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new Error(`${what}: ${pulumiMessage(error)}`);
  }
}

/**
 * What to do when pulumi cannot decrypt a stack's secrets, by what it said (its two messages of a
 * passphrase-protected stack): the two ways to give the passphrase.
 */
const PASSPHRASE_PROBLEMS: [RegExp, string][] = [
  [
    /passphrase must be set/,
    "the stack's secrets are encrypted with the passphrase given at `pulumi stack init`, and none is set: " +
      "export PULUMI_CONFIG_PASSPHRASE=<the passphrase>, or PULUMI_CONFIG_PASSPHRASE_FILE=<a file that holds it>",
  ],
  [
    /incorrect passphrase/,
    "PULUMI_CONFIG_PASSPHRASE (or the file PULUMI_CONFIG_PASSPHRASE_FILE names) is not the passphrase " +
      "given at `pulumi stack init` for this stack; set that one",
  ],
];

/** What the pulumi CLI said when one of its commands failed. */
export function pulumiMessage(error: unknown): string {
  const stderr = error instanceof PulumiCommandError ? error.stderr.trim() : "";
  const text = stderr || (error instanceof Error ? error.message : String(error));
  const passphrase = PASSPHRASE_PROBLEMS.find(([said]) => said.test(text));
  if (passphrase) return passphrase[1];
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(-5)
    .join(" ");
}
