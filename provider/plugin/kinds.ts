/**
 * The plugin's names: its package name and the type token of each resource kind. The dynamic path
 * types a kind `pulumi-nodejs:dynamic/directmail:Order` (resources/kinds.ts); the plugin serves the
 * same kind as `directmail:index:Order`.
 */
import { pluginType, RESOURCE_KINDS, type ResourceKind } from "../resources/kinds";

export { pluginType };

/** The package name: `pulumi-resource-directmail`, the `directmail:` configuration namespace. */
export const PLUGIN_PACKAGE = "directmail";

/** The kinds the plugin serves (every resource kind). */
export const PLUGIN_KINDS: readonly ResourceKind[] = RESOURCE_KINDS;

/** The kind a plugin type token names, or undefined for a type the plugin does not serve. */
export function kindOfPluginType(type: string): ResourceKind | undefined {
  return PLUGIN_KINDS.find((kind) => pluginType(kind) === type);
}

/** The keys of `directmail:*` configuration the provider reads (settings.ts). */
export const CONFIG_KEYS = ["apiKey", "baseUrl", "monthlyBudget"] as const;
