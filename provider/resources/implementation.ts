/**
 * The module every stack's stored provider loads: thin-provider.ts writes
 * `require("pulumi-directmail/dist/provider/resources/implementation.js").providerFor(kind)` into
 * the state, so this path and that export stay, whatever the layout behind them.
 */
// First: the provider process loads the modules below from Node's compile cache (runtime/compile-cache.ts).
import "../runtime/compile-cache";
import { installInProvider } from "../runtime";
import { providerHostEngineAddress } from "./engine-watch";

// The dynamic provider's process: the runtime's patches (docs/architecture.md, "The runtime's patches").
installInProvider(providerHostEngineAddress() !== undefined);

export { observeRequests } from "./context";
export { providerFor } from "./registry";
