/**
 * The memory budget a reader of a long list is given when it is created. The policy behind it is
 * process-wide (provider/runtime/memory.ts: V8's settings, the RSS checked every so many rows, a
 * memory-reducing collection over the budget), and the process's entry installs it once
 * (provider/runtime/). Where no entry installed it (a test, a module loaded on its own), a budget
 * does nothing: the process keeps V8's defaults.
 */

/** Who reads: the provider's hooks, or a list read for the campaign checks (which holds less). */
export type BudgetedReader = "provider" | "campaign-checks";

export interface MemoryBudget {
  /** A list's read starts: the process's V8 settings for reading rows, once. */
  listStarted(): void;
  /** Rows read, sent or listed (or lines passed over): now and then, the process is held to the budget. */
  rowsHandled(rows: number): void;
  /** A step left tens of MB of garbage at once: over the budget, it is given back now. */
  garbageLeft(): void;
  /** Before a hook encodes its answer: if it collected on the way, once more. */
  settle(): void;
  /** A hook starts: over the budget, the garbage of the engine's decoded request is given back. */
  hookStarted(): void;
  /** A hook has answered: settles what it left, and starts the count of the next hook. */
  hookEnded(): void;
}

const nothing = () => {};
const UNBUDGETED: MemoryBudget = {
  listStarted: nothing,
  rowsHandled: nothing,
  garbageLeft: nothing,
  settle: nothing,
  hookStarted: nothing,
  hookEnded: nothing,
};

let installed: ((reader: BudgetedReader) => MemoryBudget) | undefined;

/** Called once by provider/runtime/ at the process's entry. */
export function installMemoryBudget(budgetFor: (reader: BudgetedReader) => MemoryBudget): void {
  installed ??= budgetFor;
}

/** The budget of a reader being created: the installed policy's, or one that does nothing. */
export function memoryBudget(reader: BudgetedReader = "provider"): MemoryBudget {
  return installed?.(reader) ?? UNBUDGETED;
}

/** Whether the process's entry installed a memory policy. */
export const memoryPolicyInstalled = (): boolean => installed !== undefined;
