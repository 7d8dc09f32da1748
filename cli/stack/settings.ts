/**
 * Where the `directmail` commands that call the service (whoami, proof, review) send their requests:
 * inside a Pulumi project, the selected stack's `directmail:baseUrl` and secret `directmail:apiKey`,
 * read through the Automation API exactly as `pulumi up` reads them, so that the CLI never talks to
 * another account than the deployment; the DIRECTMAIL_* environment variables are the fallback.
 * Secrets come decrypted (`pulumi config --show-secrets`), with PULUMI_CONFIG_PASSPHRASE (or
 * PULUMI_CONFIG_PASSPHRASE_FILE) for a passphrase-protected stack.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import type { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { DirectMailClient } from "../../provider/api/client";
import { projectRoot } from "../../provider/project";
import { type ProviderSettings, resolveSettings } from "../../provider/settings";

const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml"];

export interface StackSelection {
  /** The Pulumi project's folder. */
  root: string;
  workspace: LocalWorkspace;
  stackName: string;
}

export interface ServiceSettings extends ProviderSettings {
  /** Where the base URL and the key came from, for the user (never the key itself): "address from ..., API key from ...". */
  from: string;
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
}

/** The Pulumi project folder at or above `cwd`, or undefined outside any project. */
export function findProject(cwd: string = process.cwd()): string | undefined {
  const root = projectRoot(cwd);
  return PROJECT_FILES.some((name) => fs.existsSync(path.join(root, name))) ? root : undefined;
}

/** The Automation API, loaded only inside a project: the other commands run without the Pulumi SDK. */
export function automation(): typeof Automation {
  try {
    // require, not import(): the SDK's subpaths are folders, which only CommonJS resolves.
    return require("@pulumi/pulumi/automation") as typeof Automation;
  } catch (error) {
    throw new Error(
      `the Pulumi SDK (@pulumi/pulumi) is not installed for this project (${(error as Error).message}); ` +
        "run `npm install` in the project folder",
    );
  }
}

/** The stack to read in the project at `root`: `stackName`, or the selected one (undefined when none is). */
export async function selectStack(root: string, stackName?: string): Promise<StackSelection | undefined> {
  const { LocalWorkspace } = automation();
  const workspace = await pulumiCall(
    "cannot run the pulumi CLI",
    () => LocalWorkspace.create({ workDir: root }),
    "install it (https://www.pulumi.com/docs/install/) or put it on PATH",
  );
  if (stackName !== undefined) {
    const known = await pulumiCall("cannot list the project's stacks", () => workspace.listStacks());
    if (!known.some((s) => s.name === stackName || s.name.endsWith(`/${stackName}`))) {
      throw new Error(
        `stack "${stackName}" does not exist in the Pulumi project ${root}` +
          (known.length > 0 ? ` (its stacks: ${known.map((s) => s.name).join(", ")})` : ""),
      );
    }
    return { root, workspace, stackName };
  }
  const selected = await pulumiCall("cannot read the selected stack", () => workspace.stack());
  return selected ? { root, workspace, stackName: selected.name } : undefined;
}

/**
 * The Automation API's `Stack` of a selection, which never selects it: each command it runs names
 * the stack (`--stack`). `pulumi stack select` would change the user's selected stack, where the
 * next `pulumi up` goes, and it cannot be put back reliably (with PULUMI_STACK set, the selection
 * reads as the variable).
 */
export async function stackOf(selection: StackSelection): Promise<Stack> {
  const { Stack } = automation();
  // Stack.select() selects through its workspace: this view of the workspace checks nothing
  // instead (selectStack() above found the stack among the project's).
  const workspace: LocalWorkspace = Object.create(selection.workspace, {
    selectStack: { value: async () => {} },
  });
  return Stack.select(selection.stackName, workspace);
}

/**
 * The service settings for a command run in `options.cwd`: the stack's configuration inside a
 * Pulumi project with a stack selected (or named), else the environment.
 */
export async function serviceSettings(options: SettingsOptions = {}): Promise<ServiceSettings> {
  const root = findProject(options.cwd);
  if (root === undefined) {
    if (options.stack !== undefined) {
      throw new Error(`--stack ${options.stack}: no Pulumi project (Pulumi.yaml) here or above`);
    }
    return fromEnvironment("not in a Pulumi project");
  }
  const stack = await selectStack(root, options.stack);
  if (stack === undefined) {
    return fromEnvironment(`no stack is selected in the Pulumi project ${root} (pulumi stack select)`);
  }
  return settingsOfStack(stack);
}

/** The service settings of a stack: its configuration, the environment where it sets nothing. */
export async function settingsOfStack(stack: StackSelection): Promise<ServiceSettings> {
  const config = await pulumiCall(`cannot read the configuration of stack "${stack.stackName}"`, () =>
    stack.workspace.getAllConfig(stack.stackName),
  );
  const reader = { get: (key: string) => config[key]?.value };
  const settings = resolveSettings(reader);
  const ofStack = (key: string) => `${key} of stack "${stack.stackName}"`;
  const baseUrlFrom = {
    config: ofStack("directmail:baseUrl"),
    environment: "DIRECTMAIL_BASE_URL",
    default: "the default (the local sandbox)",
  }[settings.baseUrlSource];
  // The stack's key alone (an empty environment) tells whether the key came from the stack.
  const keyFrom =
    resolveSettings(reader, {}).apiKey !== undefined
      ? ofStack("directmail:apiKey")
      : settings.apiKey !== undefined
        ? "DIRECTMAIL_API_KEY"
        : "nowhere";
  return {
    ...settings,
    stack,
    config: reader.get,
    from: `address from ${baseUrlFrom}, API key from ${keyFrom}`,
  };
}

function fromEnvironment(why: string): ServiceSettings {
  const settings = resolveSettings(undefined);
  const url =
    settings.baseUrlSource === "environment" ? "DIRECTMAIL_BASE_URL" : "the default (the local sandbox)";
  const key = settings.apiKey !== undefined ? "DIRECTMAIL_API_KEY" : "nowhere";
  return {
    ...settings,
    stack: undefined,
    config: () => undefined,
    from: `address from ${url}, API key from ${key} (${why})`,
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
 * Runs a pulumi command through the Automation API; its failure becomes one message with what the
 * pulumi CLI said (its stderr), not the command line and both streams the SDK puts in the error.
 */
export async function pulumiCall<T>(what: string, call: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new Error(`${what}: ${pulumiMessage(error)}${hint ? `; ${hint}` : ""}`);
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

/** What the pulumi CLI said when a command of the Automation API failed. */
export function pulumiMessage(error: unknown): string {
  const result = (error as { commandResult?: { stderr?: string; err?: { stderr?: string } } }).commandResult;
  // A failed command's result holds the runner's error, whose message starts with the command
  // line; its stderr is what pulumi said.
  const stderr = (result?.err?.stderr || result?.stderr)?.trim();
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
