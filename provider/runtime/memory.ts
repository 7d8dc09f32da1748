/**
 * The memory policy: keeps a process within a memory budget while it reads, sends and lists a long
 * recipient list. Installed by the process's entry (runtime/index.ts); a reader is given its
 * budget (memory-budget.ts) when it is created.
 *
 * What a sync keeps is small (two key tables of about 33 MB at 1,000,000 recipients); what it
 * allocates and drops is not: rows, request bodies and listing pages, hundreds of MB a minute. V8
 * collects that garbage, but keeps the pages it freed, and so does the C allocator under the
 * ArrayBuffers, for reuse: the process's RSS then reaches twice or three times what it holds.
 * Only a memory-reducing collection (the one V8 runs when it is close to its limit) gives them
 * back. So, every CHECK_EVERY_ROWS rows, the RSS is compared with the budget, and over it such a
 * collection runs (tens of ms). A list of 100,000 stays under the budget and never pays for one.
 * The next check allows HEADROOM above what was left, so that a list whose tables alone pass the
 * budget is not collected again on every check.
 *
 * The engine starts the dynamic provider's `node` without flags, so the collector is reached
 * through `v8.setFlagsFromString`, which applies to a new context (as test runners do).
 *
 * Also, V8's young generation is kept at the size it has when a list is first read (a factor of 1
 * means "no growth"): left alone, a process that allocates for minutes grows it to 3 × 32 MiB,
 * committed, for little gain, as what a sync allocates dies young. `--max-semi-space-size` is
 * fixed when the heap is made; the growth factor is read each time V8 would grow the space.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { BudgetedReader, MemoryBudget } from "../memory-budget";

const MiB = 1024 * 1024;
/**
 * The RSS over which freed memory is given back, by reader: the one home of the budgets. A list
 * read for the campaign checks holds about 50 MB at a million recipients; a lower budget than the
 * provider's keeps the CLI and the program well within theirs (docs/performance.md: 200 MiB cost
 * 1.3 s of CPU; held to the provider's, validate once reached 300.6 MiB).
 */
export const MEMORY_BUDGET_BYTES: Readonly<Record<BudgetedReader, number>> = {
  provider: 300 * MiB,
  "campaign-checks": 256 * MiB,
};
/** What may be allocated again before the next collection when one left more than the budget. */
export const HEADROOM_BYTES = 64 * MiB;
export const CHECK_EVERY_ROWS = 10_000;

/**
 * The V8 flags the policy sets. `setFlagsFromString` ignores a flag V8 does not know, without a
 * word: test/unit/runtime/library-shapes.test.ts fails when this Node's V8 lacks one.
 */
export const V8_FLAGS = {
  youngGenerationSmall: "--semi-space-growth-factor=1",
  rowsYoung: "--no-allocation-site-pretenuring",
  collector: "--expose-gc",
} as const;

type Collector = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

let collector: Collector | undefined;
let youngGenerationFixed = false;
let rowsAllocatedYoung = false;
let rowsSinceCheck = 0;
/** What the last collection left, with HEADROOM_BYTES: over the budget, the next check's limit. */
let leftWithHeadroom = 0;
let collections = 0;
/** The collections of the current hook made at its start (hookStarted), which settle() leaves alone. */
let collectionsAtStart = 0;

/** Called when a list is first read in a hook. */
export function keepYoungGenerationSmall(): void {
  if (youngGenerationFixed) return;
  setFlagsFromString(V8_FLAGS.youngGenerationSmall);
  youngGenerationFixed = true;
}

/**
 * Called when a list is read for the campaign checks (a program's, `directmail validate`'s and
 * `directmail review`'s reads). V8 allocates an allocation site's objects in the old generation from
 * birth (pretenuring) once many of them outlive one scavenge, which a scavenge that comes while
 * rows are in flight can make of a row's sites. The rows then die in the old generation, and every
 * young object they point to lives through each scavenge with them: in about one program in four at
 * a million rows the heap grew to twice its size, scavenges cost ten times as much, and the budget's
 * collections ran twenty times over (twice the CPU time). What a read allocates for a row dies
 * young, so the process does without pretenuring from its first list on.
 */
export function allocateRowsYoung(): void {
  if (rowsAllocatedYoung) return;
  setFlagsFromString(V8_FLAGS.rowsYoung);
  rowsAllocatedYoung = true;
}

/** Runs a memory-reducing full collection: V8 and the allocator give freed pages back. */
export function giveBackFreedMemory(rss: () => number = process.memoryUsage.rss): void {
  if (!collector) {
    setFlagsFromString(V8_FLAGS.collector);
    collector = runInNewContext("gc") as Collector;
  }
  collector({ type: "major", execution: "sync", flavor: "last-resort" });
  collections += 1;
  leftWithHeadroom = rss() + HEADROOM_BYTES;
}

/**
 * Counts rows read, sent or listed; every CHECK_EVERY_ROWS, keeps the process within `budget`
 * (the provider's unless a reader that holds less asks for less).
 */
export function rowsHandled(
  count: number,
  rss: () => number = process.memoryUsage.rss,
  budget = MEMORY_BUDGET_BYTES.provider,
): void {
  rowsSinceCheck += count;
  if (rowsSinceCheck < CHECK_EVERY_ROWS) return;
  rowsSinceCheck = 0;
  if (rss() > collectAbove(budget)) giveBackFreedMemory(rss);
}

/**
 * The RSS over which a collection runs: the budget, or HEADROOM_BYTES over what the last collection
 * left when that passed it. What a collection left is held (a list's tables; the provider plugin's
 * components, in the one process that serves every hook of a deployment), so collecting again
 * before that much more has come gives back nothing: at 500 campaigns the plugin spent nearly all
 * its time in a full collection at the start of each of its 1,500 hooks.
 */
const collectAbove = (budget: number) => Math.max(budget, leftWithHeadroom);

/**
 * Before a hook encodes its answer: if it collected on the way (a long list), collects once more,
 * so that the index (17 to 28 bytes a recipient, copied a few times by the Pulumi SDK while it is
 * sent) is made from what is really held. A collection at the hook's start alone is not one: in
 * the provider plugin, whose components grow the process past the budget, each such collection
 * was followed by a second, each a few hundred ms at 500 campaigns.
 */
export function settle(): void {
  if (collections > collectionsAtStart) giveBackFreedMemory();
}

/**
 * When a hook starts: the engine's request was decoded before it (by gRPC, protobuf and the SDK,
 * a few copies of each value), so a state that holds a long list's index leaves about ten times
 * the index's size of garbage behind. Over the budget (collectAbove), it is given back before the
 * hook adds its own tables.
 */
export function hookStarted(rss: () => number = process.memoryUsage.rss): void {
  if (rss() > collectAbove(MEMORY_BUDGET_BYTES.provider)) giveBackFreedMemory(rss);
  collectionsAtStart = collections;
}

/**
 * After a step that leaves tens of MB of garbage at once (an index decoded, planned from and
 * dropped: its buffers and its table): over the budget, it is given back before the next step
 * allocates, rather than when the next collection comes. The budget, not collectAbove: the garbage
 * is known to be there, so the collection gives it back; waiting for HEADROOM_BYTES more let the
 * update of a million-row list peak 20 to 45 MiB higher, past the provider's 400 MiB.
 */
export function garbageLeft(rss: () => number = process.memoryUsage.rss): void {
  if (rss() > MEMORY_BUDGET_BYTES.provider) giveBackFreedMemory(rss);
}

/** When a hook has answered: settles what it left, and starts the count of the next hook. */
export function hookEnded(): void {
  settle();
  collections = 0;
  collectionsAtStart = 0;
  rowsSinceCheck = 0;
}

/** How many collections ran in the current hook (for tests). */
export const collectionsInHook = () => collections;

/**
 * Each reader's budget. What a list's read sets up differs: the provider keeps the young
 * generation at its size (keepYoungGenerationSmall), the campaign checks read without pretenuring
 * (allocateRowsYoung); each was measured in its own process (docs/performance.md).
 */
const budgets: Readonly<Record<BudgetedReader, MemoryBudget>> = {
  provider: {
    listStarted: keepYoungGenerationSmall,
    rowsHandled: (rows) => rowsHandled(rows),
    garbageLeft: () => garbageLeft(),
    settle,
    hookStarted: () => hookStarted(),
    hookEnded,
  },
  "campaign-checks": {
    listStarted: allocateRowsYoung,
    rowsHandled: (rows) => rowsHandled(rows, undefined, MEMORY_BUDGET_BYTES["campaign-checks"]),
    garbageLeft: () => garbageLeft(),
    settle,
    hookStarted: () => hookStarted(),
    hookEnded,
  },
};

/** The budget of `reader` (what memory-budget.ts hands out once this is installed). */
export const budgetFor = (reader: BudgetedReader): MemoryBudget => budgets[reader];
