/**
 * The plugin's names: its package name and the type token of each resource kind. The dynamic path
 * types a kind `pulumi-nodejs:dynamic/directmail:Order` (resources/kinds.ts); the plugin serves the
 * same kind as `directmail:index:Order`.
 */
import { RESOURCE_KINDS, type ResourceKind } from "../resources/kinds";

/** The package name: `pulumi-resource-directmail`, the `directmail:` configuration namespace. */
export const PLUGIN_PACKAGE = "directmail";

/** The kinds the plugin serves (every resource kind). */
export const PLUGIN_KINDS: readonly ResourceKind[] = RESOURCE_KINDS;

/** The type token of a kind on the plugin path: `directmail:index:Order`. */
export function pluginType(kind: ResourceKind): string {
  return `${PLUGIN_PACKAGE}:index:${kind}`;
}

/** The kind a plugin type token names, or undefined for a type the plugin does not serve. */
export function kindOfPluginType(type: string): ResourceKind | undefined {
  return PLUGIN_KINDS.find((kind) => pluginType(kind) === type);
}

/** The keys of `directmail:*` configuration the provider reads (settings.ts). */
export const CONFIG_KEYS = ["apiKey", "baseUrl", "monthlyBudget"] as const;
