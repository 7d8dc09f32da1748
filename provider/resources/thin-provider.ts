import * as pulumi from "@pulumi/pulumi";
import { checkProgramSettingKeys } from "../lookups/program-settings";
import { dynamicType, KIND, pluginType, type ResourceKind } from "./kinds";

/** The hooks of a dynamic provider that the engine calls, every one of which a directmail kind has. */
const HOOKS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;

/**
 * The dynamic provider that Pulumi stores in the state (`__provider`) for every directmail resource.
 *
 * Pulumi's dynamic-provider process runs a resource's stored provider: it loads the text as a
 * module and calls its `handler()` for the provider object (`refresh` and `destroy` run the copy in
 * the state). So this text holds nothing but the kind of resource. Each method loads the
 * implementation of the *installed* package when it runs, so a newer package version serves old
 * stacks too, no API key, client or schema lands in the state, and the text is the same on every
 * machine (no absolute paths), so a checkout in another folder shows no spurious change.
 *
 * The text is written here rather than made by `pulumi.dynamic.Resource`, which serializes a
 * provider object by inspecting its closure: that loads the TypeScript compiler and every Node
 * built-in module into the program, about a quarter of a second of CPU at every preview and up.
 * The engine does not compare this property: a stack that holds another text of it (an earlier
 * release's) shows no change (test/e2e/state-compat.test.ts).
 */
export function storedProvider(kind: ResourceKind): string {
  // Its bytes are sent and stored twice a resource (inputs and outputs), so it stays small.
  return `exports.handler = () => {
  const load = () => {
    const from = require("node:module").createRequire(\`\${process.cwd()}/_.js\`);
    try {
      return from("pulumi-directmail/dist/provider/resources/implementation.js").providerFor(${JSON.stringify(kind)});
    } catch (error) {
      if (error?.code !== "MODULE_NOT_FOUND") throw error;
      throw new Error(\`pulumi-directmail is not installed for the project in \${process.cwd()}; run \\\`npm install pulumi-directmail\\\` there, then run the command again.\`);
    }
  };
  const hook = (name) => (...args) => load()[name](...args);
  return Object.fromEntries(${JSON.stringify(HOOKS)}.map((name) => [name, hook(name)]));
};
`;
}

/**
 * Whether this process declares the directmail resources through the provider plugin: the plugin
 * (provider/plugin/) sets it before it constructs a component for a Pulumi YAML program, so that
 * the component's resources are the plugin's own (`directmail:index:Order`), served by it, with no
 * stored provider. A TypeScript program never sets it: its resources stay dynamic ones.
 */
let throughPlugin = false;

/** From now on, this process declares every directmail resource with the plugin's types. */
export function declareThroughPlugin(): void {
  throughPlugin = true;
}

/**
 * The type a resource of this kind is declared with in this process: dynamic, or the plugin's. A
 * dynamic resource cannot be imported (Pulumi's dynamic-provider host has no import), so the
 * `import` option is refused here, before the resource is registered, with what to use instead.
 */
export function resourceType(kind: ResourceKind, opts?: { import?: unknown }): string {
  if (throughPlugin) return pluginType(kind);
  if (opts?.import !== undefined) {
    const failure = new pulumi.RunError(importRefused(kind, opts.import));
    failure.stack = failure.message; // the message alone, as the SDK shows a RunError
    throw failure;
  }
  return dynamicType(kind);
}

/** Why the `import` option cannot adopt a resource of a TypeScript program, and what to use instead. */
export function importRefused(kind: ResourceKind, id: unknown): string {
  const shown = typeof id === "string" && /^\d{1,18}$/.test(id) ? id : "<order id>";
  const instead =
    kind === KIND.Order
      ? `Adopt order ${shown} with the Order's input \`existingOrderId: ${shown}\` instead, ` +
        `or import it with the provider plugin: \`pulumi import ${pluginType(kind)} NAME ${shown}\` (docs/resources.md).`
      : `Declare the ${kind} without \`import\` and run \`pulumi up\`: it finds what exists at the service rather than creating it again; ` +
        `or use the provider plugin's type \`${pluginType(kind)}\` (docs/resources.md).`;
  const article = /^[AEIOU]/.test(kind) ? "an" : "a";
  return `The \`import\` resource option cannot adopt ${article} ${kind} in a TypeScript program: its dynamic provider cannot import. ${instead}`;
}

/**
 * A directmail resource's inputs as `pulumi.CustomResource` takes them: with the stored provider,
 * as `pulumi.dynamic.Resource` would add it (the resource's type is `dynamicType(kind)`); through
 * the plugin, as they are (the plugin is the provider).
 */
export function withStoredProvider<Props extends object>(
  kind: ResourceKind,
  props: Props,
): Props & { __provider?: string } {
  checkProgramSettingKeys();
  return throughPlugin ? { ...props } : { ...props, __provider: storedProvider(kind) };
}
