/**
 * Provider hooks exercised over real HTTP against an in-process sandbox: each test gets a
 * provider of one resource kind, configured through `configure` like the engine does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, vi } from "vitest";
import type { RequestEvent } from "../../../provider/api/client";
import { observeRequests } from "../../../provider/resources/context";
import { fromEngineInputs } from "../../../provider/resources/engine-inputs";
import { providerFor } from "../../../provider/resources/implementation";
import type { TestSandbox } from "../../support/sandbox";

export type Provider = Required<pulumi.dynamic.ResourceProvider>;

/**
 * The provider of `kind`, configured for the sandbox. Its `check` answers the inputs as the hooks
 * know them (engine-inputs.ts), so a test reads and passes on the computed fields by their names;
 * the form the engine stores is the end-to-end refresh test's.
 */
export async function configuredProvider(kind: string, sb: TestSandbox, apiKey: string): Promise<Provider> {
  const engineProvider = providerFor(kind);
  const provider: Provider = {
    ...engineProvider,
    check: async (olds, news) => {
      const checked = await engineProvider.check(olds, news);
      return checked.inputs ? { ...checked, inputs: fromEngineInputs(kind, checked.inputs) } : checked;
    },
  };
  const values: Record<string, string> = { "directmail:baseUrl": sb.url, "directmail:apiKey": apiKey };
  await provider.configure({
    config: {
      get: (key: string) => values[key],
      require: (key: string) => {
        const value = values[key];
        if (value === undefined) throw new Error(`missing ${key}`);
        return value;
      },
    },
  });
  return provider;
}

/**
 * A temporary folder this test file's process works in, for the files its providers read: the
 * provider reads the files of its project only, and outside a Pulumi project that is the folder it
 * runs in (as under `pulumi`, the project's folder). Removed after the file's tests.
 */
export function projectFolder(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const cwd = process.cwd();
  beforeAll(() => process.chdir(dir));
  afterAll(() => {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Records the HTTP attempts the providers make while `fn` runs. */
export async function countingRequests<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; requests: RequestEvent[] }> {
  const requests: RequestEvent[] = [];
  const stop = observeRequests((event) => requests.push(event));
  try {
    return { result: await fn(), requests };
  } finally {
    stop();
  }
}

/** A recipient that the sandbox's deterministic validation accepts. */
export function recipient(n: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    firstName: `Ada${n}`,
    lastName: "Lovelace",
    address1: `${100 + n} Main St`,
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
    ...extra,
  };
}

/** What the providers print on stderr (the progress lines the engine shows) while `fn` runs. */
export async function printedBy(fn: () => Promise<unknown>): Promise<string> {
  const said: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    said.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return said.join("");
}
