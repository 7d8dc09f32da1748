/**
 * The runtime's patches, installed once by each process's entry (docs/architecture.md, "The
 * runtime's patches"): the memory policy (memory.ts), the long-string answers (long-strings.ts),
 * the undici loader (undici.ts), the dynamic-provider host's requests and diff answers
 * (host-requests.ts). Node's compile cache (compile-cache.ts) is imported on its own,
 * first, by the entries it serves, so that the modules loaded after it come from the cache.
 * Nothing imports this part but the entries.
 */
import { installMemoryBudget } from "../memory-budget";
import { patchHostRequestsInProviderHost } from "./host-requests";
import { encodeLongStringsInProgram, encodeLongStringsInProviderHost } from "./long-strings";
import { budgetFor } from "./memory";
import { installUndiciLoader } from "./undici";

/** One process is one kind: the first install is the one that holds. */
let installed = false;

/** What every process that reads lists or sends requests gets. */
function installCommon(): boolean {
  if (installed) return false;
  installed = true;
  installUndiciLoader();
  installMemoryBudget(budgetFor);
  return true;
}

/** A Pulumi program's process (`provider/index.ts`). */
export function installInProgram(): void {
  if (!installCommon()) return;
  // A program's answers from the engine hold each resource's outputs, a long recipient list's
  // index among them: keep the SDK from copying them into debug logs and byte arrays.
  encodeLongStringsInProgram();
}

/** The `directmail` command's process (`cli/main.ts`): it answers no engine. */
export function installInCommand(): void {
  installCommon();
}

/**
 * The provider's processes: the dynamic provider's (`resources/implementation.ts`; `inHost` when
 * Pulumi's dynamic-provider host runs it, whose answers are then encoded in one piece) and the
 * provider plugin's (`plugin/main.ts`).
 */
export function installInProvider(inHost: boolean): void {
  if (!installCommon()) return;
  encodeLongStringsInProviderHost(inHost);
  // The host gives the hooks neither the old inputs nor the timeouts, nor sends a diff's names.
  patchHostRequestsInProviderHost(inHost);
}
