/**
 * pulumi-directmail: printed direct-mail campaigns as Pulumi resources.
 */

export { ProviderInfo, type ProviderInfoArgs } from "./resources/provider-info";
export { DEFAULT_SANDBOX_URL, type ProviderSettings, resolveSettings } from "./settings";
