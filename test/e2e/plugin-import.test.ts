/**
 * The provider plugin as a user of the installed package runs it from a Pulumi YAML program: found
 * through the project's `plugins:` section (no "from $PATH" warning), `pulumi import` and the
 * `import:` option of an order whose pasted code previews unchanged, the one line for each kind that
 * cannot be imported, an unknown or hostile id refused, the calls it does not offer, and the state
 * it stores per resource beside the dynamic path's. The sandbox's orders are the truth.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { upOnce } from "./support/one-command";
import { pluginOnPath } from "./support/plugin";
import { createTestStack, type TestStack } from "./support/pulumi";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
/** The YAML program, the plugin linked in its node_modules/.bin as `npm install` links it. */
let y: TestStack;

const RECIPIENTS = [
  {
    firstName: "Ada",
    lastName: "Lovelace",
    address1: "12 Analytical Row",
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  },
  {
    firstName: "Alan",
    lastName: "Turing",
    address1: "14 Maple Avenue",
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  },
];

/** The real pulumi CLI in a stack's project; `env` replaces the stack's environment when given. */
function pulumiIn(
  stack: TestStack,
  args: string[],
  env: Record<string, string> = stack.env,
): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      args,
      { cwd: stack.workDir, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, output: stdout + stderr }),
    );
  });
}

async function ok(...args: string[]) {
  const result = await pulumiIn(y, args);
  expect(result.code, result.output).toBe(0);
  return result;
}

const programFile = () => path.join(y.workDir, "Pulumi.yaml");
const appendToProgram = (text: string) => fs.appendFileSync(programFile(), text);

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 100 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  y = await createTestStack("yaml-import", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
    },
  });
  fs.mkdirSync(path.join(y.workDir, "node_modules/.bin"), { recursive: true });
  fs.symlinkSync(
    path.join(__dirname, "../../bin/pulumi-resource-directmail.js"),
    path.join(y.workDir, "node_modules/.bin/pulumi-resource-directmail"),
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  await y?.dispose();
  await sb?.close();
});

describe("the plugin where a user of the installed package finds it", () => {
  it("warns `from $PATH` on every run when only PATH finds it; the plugins: section of Pulumi.yaml is quiet", async () => {
    const onPath = pluginOnPath();
    const program = fs.readFileSync(programFile(), "utf8");
    try {
      fs.writeFileSync(programFile(), program.replace(/^plugins:\n(?: {2}.*\n)+/m, ""));
      const env = { ...y.env, PATH: `${onPath.env.PATH}` };
      const warned = await pulumiIn(y, ["preview"], env);
      expect(warned.code, warned.output).toBe(0);
      expect(warned.output).toMatch(/warning: using pulumi-resource-directmail from \$PATH at \S+/);
    } finally {
      fs.writeFileSync(programFile(), program);
      onPath.dispose();
    }
    const up = await ok("up", "--yes", "--skip-preview");
    // (The test toolchain's YAML language host is not next to its pulumi, as a released CLI bundles
    // it, so the CLI warns about that host here; about the plugin it says nothing.)
    expect(up.output).not.toContain("pulumi-resource-directmail");
    expect(up.output).toMatch(/3 created/);
    const { orders } = await client.listOrders();
    expect(orders).toHaveLength(1);
    expect(orders[0]?.recipientCount).toBe(2);
  }, 300_000);
});

/** The resources of the stack's last checkpoint, by name. */
function resourcesByName(): Record<string, any> {
  const resources = y.readStateFile().checkpoint.checkpoint.latest.resources as any[];
  return Object.fromEntries(resources.map((r) => [String(r.urn).split("::").at(-1), r]));
}

/** The code `pulumi import` prints for the program: the resources under its `resources:` line. */
function printedResources(output: string): string {
  const code = output.slice(output.indexOf("\nresources:\n") + "\nresources:\n".length);
  return `${code.trimEnd()}\n`;
}

/**
 * `pulumi import --file` of one Order for each id, named ghost-1, ghost-2…: one CLI run, which
 * reports each resource it could not import under its own name.
 */
function importOrders(ids: string[]) {
  const file = path.join(y.workDir, "orders.json");
  const resources = ids.map((id, n) => ({ type: "directmail:index:Order", name: `ghost-${n + 1}`, id }));
  fs.writeFileSync(file, JSON.stringify({ resources }));
  return pulumiIn(y, ["import", "--file", file, "--yes"]);
}

/** Kinds whose id does not name one object the service reads back, and the line each prints. */
const NOT_IMPORTABLE: Record<string, string> = {
  ProviderInfo:
    "it holds nothing at the service (the provider computes it). Declare it in the program; `pulumi up` records it.",
  OrderRecipients:
    "the service stores each address standardized, so the list it gives back is not the list a program declares. " +
    "Declare OrderRecipients with the order's id as orderId: `pulumi up` compares the list with what the order holds " +
    "and sends only the difference.",
  Checkout:
    "its terms (maxTotal, expectedRecipientCount) are the program's guard, not something the service stores. " +
    "Declare a Checkout for the order: `pulumi up` finds the order already checked out, records it and charges nothing.",
  AddressBookEntry:
    "the service can create address-book entries but has no way to read one back, so the entry could be neither " +
    "found nor read. To refer to an existing entry, use its id as a plain value; a declared entry is created anew.",
  Conversions:
    "the service reports a conversion upload's status, never its records, so the records cannot be read back. " +
    "Declare the records in a Conversions resource; `pulumi up` uploads them as a new upload.",
  AutomationRecipients:
    "the service lists automations but not the recipients added to them. Declare AutomationRecipients with the " +
    "recipients still to mail: `pulumi up` mails each of them once.",
  ProximitySearch:
    "a proximity search is a request the service acts on once, with no id to read it back by. " +
    "Declare a ProximitySearch only for a new search.",
};

describe("pulumi import through the plugin", () => {
  it("adopts an order made elsewhere, reading it from the service; the code it prints, pasted, previews unchanged", async () => {
    const made = await client.createOrder({ templateId });
    const result = await ok("import", "directmail:index:Order", "adopted", String(made.orderId), "--yes");
    expect(result.output).toMatch(/= 1 imported/);
    const code = printedResources(result.stdout);
    expect(code).toBe(
      [
        "  adopted:",
        "    type: directmail:Order",
        "    properties:",
        `      templateId: ${templateId}`,
        "    options:",
        "      protect: true",
        "",
      ].join("\n"),
    );
    expect(resourcesByName().adopted).toMatchObject({
      type: "directmail:index:Order",
      id: String(made.orderId),
      inputs: { templateId },
      outputs: { orderId: made.orderId, status: "Draft" },
      protect: true,
    });

    appendToProgram(code);
    // The pasted resource is the imported one: nothing to create, update or delete (a protected
    // resource left out of the program would fail the preview as a delete).
    const preview = await ok("preview", "--expect-no-changes");
    expect(preview.output).toMatch(/Resources:\n +4 unchanged\n/);
    // Adopted, not made: the service has the campaign's order and this one, still in Draft.
    expect((await client.listOrders()).orders).toHaveLength(2);
    expect((await client.getOrder(made.orderId))?.orderStatus).toBe("Draft");
  }, 300_000);

  it("adopts an order through the import: option of a YAML resource, then previews unchanged", async () => {
    const made = await client.createOrder({ templateId });
    appendToProgram(
      [
        "  welcome:",
        "    type: directmail:index:Order",
        "    properties:",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Pulumi YAML interpolation.
        "      templateId: ${templateId}",
        "    options:",
        `      import: "${made.orderId}"`,
        "",
      ].join("\n"),
    );
    const up = await ok("up", "--yes", "--skip-preview");
    expect(up.output).toMatch(/= +directmail:index:Order +welcome +imported/);
    expect(up.output).toMatch(/= 1 imported/);
    expect(resourcesByName().welcome).toMatchObject({ id: String(made.orderId), inputs: { templateId } });
    expect((await client.listOrders()).orders).toHaveLength(3);
    const preview = await ok("preview", "--expect-no-changes");
    expect(preview.output).toMatch(/Resources:\n +5 unchanged\n/);
  }, 300_000);

  it("says in one line, for each kind that cannot be imported, why and what to use instead", async () => {
    const file = path.join(y.workDir, "imports.json");
    const resources = Object.keys(NOT_IMPORTABLE).map((kind) => ({
      type: `directmail:index:${kind}`,
      name: `x-${kind}`,
      id: "1",
    }));
    fs.writeFileSync(file, JSON.stringify({ resources }));
    const result = await pulumiIn(y, ["import", "--file", file, "--yes"]);
    expect(result.code).not.toBe(0);
    for (const [kind, why] of Object.entries(NOT_IMPORTABLE)) {
      expect(result.output).toContain(
        `  directmail:index:${kind} (x-${kind}):\n    error: Preview failed: ${kind} cannot be imported: ${why} ` +
          "(Only an Order can be imported, by its order id.)\n",
      );
    }
    expect(result.output).not.toMatch(/TypeError|at .*\.js:\d+/);
    expect(Object.keys(resourcesByName())).not.toContain("x-Checkout");
  }, 300_000);

  it("refuses an id of no order (a template's among them) in one line, and a hostile id before any request about it", async () => {
    await sb.control.addFault({ method: "GET", path: "/v1/order", kind: "delay", delayMs: 0 });
    const orderLookups = async () => (await sb.control.listFaults()).faults[0]?.fired ?? 0;
    try {
      // An id no order has, and a template's id (a template is not an order of the account): one
      // import of both, each refused on its own.
      const missingIds = ["424242", String(templateId)];
      const missing = await importOrders(missingIds);
      expect(missing.code).not.toBe(0);
      missingIds.forEach((id, n) => {
        expect(missing.output).toContain(
          `  directmail:index:Order (ghost-${n + 1}):\n    error: Preview failed: Order ${id} does not exist for this account ` +
            "at the service (or was deleted): nothing was imported. Check the order id and the stack's directmail:apiKey.\n",
        );
      });
      const asked = await orderLookups();
      expect(asked).toBeGreaterThan(0);

      const hostileIds = [
        "abc",
        "-5",
        "0",
        "007",
        "99999999999999999999",
        "1e3",
        "0x1F",
        " 7",
        "x".repeat(100_000),
      ];
      const started = Date.now();
      const refused = await importOrders(hostileIds);
      expect(refused.code).not.toBe(0);
      hostileIds.forEach((id, n) => {
        const shown = id.length > 60 ? `${id.slice(0, 60)}…` : id;
        expect(refused.output, id.slice(0, 20)).toContain(
          `  directmail:index:Order (ghost-${n + 1}):\n` +
            `    error: Preview failed: "${shown}" is not an order id: an order id is a whole number from 1 to ` +
            "9007199254740991, as the web application and `pulumi stack output` show it. Nothing was asked of the service.\n",
        );
      });
      expect(refused.output).not.toContain("x".repeat(61));
      // Every hostile id refused within one command's bounded time, the 100,000 characters among them.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await orderLookups()).toBe(asked);
      expect(Object.keys(resourcesByName()).filter((name) => name.startsWith("ghost"))).toEqual([]);
    } finally {
      await sb.control.clearFaults();
    }
  }, 300_000);
});

describe("the state each resource stores", () => {
  it("is smaller through the plugin than through the dynamic provider, for the same campaign", async () => {
    const dynamic = await createTestStack("orders", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipients: { value: JSON.stringify(RECIPIENTS) },
      },
    });
    try {
      // The plugin's campaign is the one the first test deployed (the imports after it left its
      // resources as they were); the dynamic one is deployed now.
      await upOnce(dynamic);
      /** Each resource as the stack's state file stores it, by name (measured as compact JSON). */
      const stored = (stack: TestStack) => {
        const resources = stack.readStateFile().checkpoint.checkpoint.latest.resources as any[];
        return Object.fromEntries(resources.map((r) => [String(r.urn).split("::").at(-1), r]));
      };
      const [viaPlugin, viaDynamic] = [stored(y), stored(dynamic)];
      const size = (value: unknown) => JSON.stringify(value).length;
      const values = (resource: any) => size({ inputs: resource.inputs, outputs: resource.outputs });
      const figures = ["order-1", "recipients-1"].map((name) => ({
        name,
        plugin: { resource: size(viaPlugin[name]), values: values(viaPlugin[name]) },
        dynamic: { resource: size(viaDynamic[name]), values: values(viaDynamic[name]) },
        loader: size(viaDynamic[name].inputs.__provider),
      }));
      for (const { name, plugin, dynamic: onDynamic, loader } of figures) {
        expect(viaDynamic[name].outputs.__provider).toBe(viaDynamic[name].inputs.__provider);
        expect(JSON.stringify(viaPlugin[name])).not.toContain("__provider");
        // The whole resource, with what each language host adds (the YAML host's stack trace is longer).
        expect(plugin.resource, name).toBeLessThan(onDynamic.resource);
        // What the provider stores: the same inputs and outputs, without the loader twice.
        expect(plugin.values, name).toBeLessThanOrEqual(onDynamic.values - 2 * loader);
      }
    } finally {
      await dynamic.dispose();
    }
  }, 300_000);
});
