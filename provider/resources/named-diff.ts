/**
 * What an update changes, by the user's property names: the engine shows them (`diffReasons`,
 * `detailedDiff` in `preview --json`, the `diffs` of Automation API events) and matches
 * `replaceOnChanges` against them. Both doors answer with it: the provider plugin
 * (plugin/server.ts) and the dynamic provider (registry.ts, through the host's patch of
 * runtime/host-requests.ts). The engine's stored inputs also hold what `check` computed
 * under `__` names (resources/engine-inputs.ts); a change there is named by the declared property
 * it came from (a recipients file whose rows changed is a change of `file`).
 */

import type { PropertyChange } from "../host-request";

export type { PropertyChange };

/** The declared properties the computed `__` inputs are made from, in the order they are looked for. */
const SOURCES_OF_COMPUTED = ["file", "recipients", "records", "dir"];

const HIDDEN = "__";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The changed properties between two sets of stored inputs, each with its kind of change;
 * `replaces` are the properties the kind's own diff says need a new resource.
 */
export function detailedDiff(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  replaces: readonly string[],
): Record<string, PropertyChange> {
  const changes: Record<string, PropertyChange> = {};
  const mark = (key: string, change: "ADD" | "DELETE" | "UPDATE") => {
    changes[key] = replaces.includes(key) ? (`${change}_REPLACE` as PropertyChange) : change;
  };
  let computedChanged = false;
  for (const key of new Set([...Object.keys(olds), ...Object.keys(news)])) {
    if (same(olds[key], news[key])) continue;
    if (key.startsWith(HIDDEN)) {
      computedChanged = true;
      continue;
    }
    mark(key, !(key in olds) ? "ADD" : !(key in news) ? "DELETE" : "UPDATE");
  }
  if (computedChanged) {
    const source = SOURCES_OF_COMPUTED.find((key) => key in news || key in olds);
    if (source && !changes[source]) mark(source, "UPDATE");
  }
  // A replacement the kind asks for on a property whose stored value did not change (an output's).
  for (const key of replaces) if (!key.startsWith(HIDDEN) && !changes[key]) changes[key] = "UPDATE_REPLACE";
  return changes;
}

/** A diff as both doors send it to the engine. */
export interface NamedDiff {
  /** Whether anything changes (the engine's DIFF_SOME); false is DIFF_NONE. */
  changes: boolean;
  /** The properties whose change needs a new resource. */
  replaces: string[];
  /** Each changed property by its user's name, with its kind of change. */
  detailed: Record<string, PropertyChange>;
}

/**
 * A kind's diff (`changes`, `replaces`) named by property: `olds` and `news` are the stored inputs
 * before and after, in the engine's form (`__` names for what `check` computed).
 */
export function namedDiff(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  result: { changes?: boolean | undefined; replaces?: readonly string[] | undefined },
): NamedDiff {
  if (result.changes === false) return { changes: false, replaces: [], detailed: {} };
  const detailed = detailedDiff(olds, news, result.replaces ?? []);
  // Inputs alike, and yet a change: the list at the service is not the one declared (a refresh
  // read a recipient changed elsewhere), which the next update puts back: a change of its source.
  if (result.changes === true && Object.keys(detailed).length === 0) {
    const source = SOURCES_OF_COMPUTED.find((key) => key in news);
    if (source) detailed[source] = "UPDATE";
  }
  const named = Object.keys(detailed);
  return {
    changes: result.changes === true || named.length > 0,
    replaces: named.filter((key) => detailed[key]?.endsWith("_REPLACE")),
    detailed,
  };
}
