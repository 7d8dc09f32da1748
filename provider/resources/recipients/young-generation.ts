/**
 * Keeps V8's young generation at the size it has when a large recipient list is first read.
 *
 * A sync of a long list allocates for minutes, and V8 then grows the young generation up to its
 * limit (3 × 32 MiB on a machine with several GiB of memory), which it keeps committed: about a
 * fifth of the provider's peak RSS at 1,000,000 recipients, for little gain, as what the sync
 * allocates (rows, batches, listing pages) dies young. `--max-semi-space-size` would bound it, but
 * the engine starts the dynamic provider's `node` without flags and that limit is fixed when the
 * heap is made; the growth factor is read each time V8 grows the space, so it can be set here.
 * A factor of 1 means "no growth". Only collection tuning: nothing else in the process changes.
 */
import { setFlagsFromString } from "node:v8";

let set = false;

export function keepYoungGenerationSmall(): void {
  if (set) return;
  setFlagsFromString("--semi-space-growth-factor=1");
  set = true;
}
