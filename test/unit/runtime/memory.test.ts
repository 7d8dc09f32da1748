import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { beforeEach, describe, expect, it } from "vitest";
import {
  CHECK_EVERY_ROWS,
  collectionsInHook,
  garbageLeft,
  giveBackFreedMemory,
  HEADROOM_BYTES,
  hookEnded,
  hookStarted,
  MEMORY_BUDGET_BYTES,
  rowsHandled,
  settle,
} from "../../../provider/runtime/memory";

const MiB = 1024 * 1024;
/** The provider's budget, which rowsHandled holds to unless told another. */
const BUDGET = MEMORY_BUDGET_BYTES.provider;

/** memory.ts as CommonJS, for a plain Node child (it imports Node's modules only). */
const memoryModuleCode = () =>
  ts.transpileModule(
    fs.readFileSync(path.resolve(__dirname, "../../../provider/runtime/memory.ts"), "utf8"),
    {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    },
  ).outputText;

describe("the provider's memory budget for long recipient lists", () => {
  // Each test starts from a collection that left little held: the limit is the budget.
  beforeEach(() => giveBackFreedMemory(() => 0));

  it("looks at the RSS once every CHECK_EVERY_ROWS rows, and collects only over the budget", () => {
    hookEnded();
    let looks = 0;
    const under = () => {
      looks += 1;
      return BUDGET - MiB;
    };
    for (let i = 0; i < 5 * CHECK_EVERY_ROWS; i += 1000) rowsHandled(1000, under);
    expect(looks).toBe(5);
    expect(collectionsInHook()).toBe(0);

    rowsHandled(CHECK_EVERY_ROWS - 1, () => BUDGET + MiB);
    expect(collectionsInHook()).toBe(0);
    rowsHandled(1, () => BUDGET + MiB);
    expect(collectionsInHook()).toBe(1);
  });

  it("collects when a hook starts over the budget (the engine's request decoded), not under it", () => {
    hookEnded();
    hookStarted(() => BUDGET - MiB);
    expect(collectionsInHook()).toBe(0);
    hookStarted(() => BUDGET + MiB);
    expect(collectionsInHook()).toBe(1);
    hookEnded();
    expect(collectionsInHook()).toBe(0);
  });

  it("in a process that holds more than the budget between hooks (the plugin's), collects at a hook's start again only after HEADROOM_BYTES more", () => {
    hookEnded();
    // The provider plugin serves every hook of a deployment in one process, which holds its
    // components' state meanwhile: over the budget without any list.
    const held = BUDGET + 100 * MiB;
    hookStarted(() => held);
    expect(collectionsInHook()).toBe(1);
    for (let hook = 0; hook < 100; hook++) hookStarted(() => held + HEADROOM_BYTES);
    expect(collectionsInHook()).toBe(1);
    hookStarted(() => held + HEADROOM_BYTES + 1);
    expect(collectionsInHook()).toBe(2);
  });

  it("collects the garbage a step says it left over the budget, even within HEADROOM_BYTES of what the last collection left", () => {
    hookEnded();
    const held = BUDGET + 100 * MiB;
    hookStarted(() => held);
    expect(collectionsInHook()).toBe(1);
    // A decoded index dropped after planning: tens of MB known to be garbage, given back at once.
    garbageLeft(() => held + MiB);
    expect(collectionsInHook()).toBe(2);
  });

  it("collects after a step that leaves much garbage (an index decoded and dropped) over the budget, not under it", () => {
    hookEnded();
    garbageLeft(() => BUDGET - MiB);
    expect(collectionsInHook()).toBe(0);
    garbageLeft(() => BUDGET + MiB);
    expect(collectionsInHook()).toBe(1);
  });

  it("after a collection, allows HEADROOM_BYTES over what is held when that passes the budget", () => {
    hookEnded();
    // Held after the collection: 100 MiB over the budget (a list whose tables alone pass it).
    const held = BUDGET + 100 * MiB;
    rowsHandled(CHECK_EVERY_ROWS, () => held);
    expect(collectionsInHook()).toBe(1);
    rowsHandled(CHECK_EVERY_ROWS, () => held + HEADROOM_BYTES);
    expect(collectionsInHook()).toBe(1);
    rowsHandled(CHECK_EVERY_ROWS, () => held + HEADROOM_BYTES + 1);
    expect(collectionsInHook()).toBe(2);
    // A collection that leaves little held brings the limit back to the budget.
    const readings = [held * 2, BUDGET - HEADROOM_BYTES - MiB];
    rowsHandled(CHECK_EVERY_ROWS, () => readings.shift() ?? 0);
    expect(collectionsInHook()).toBe(3);
    rowsHandled(CHECK_EVERY_ROWS, () => BUDGET + 1);
    expect(collectionsInHook()).toBe(4);
  });

  it("settles before an answer only in a hook that collected, and starts each hook afresh", () => {
    hookEnded();
    settle();
    expect(collectionsInHook()).toBe(0);
    rowsHandled(CHECK_EVERY_ROWS, () => BUDGET + MiB);
    settle();
    expect(collectionsInHook()).toBe(2);
    hookEnded();
    expect(collectionsInHook()).toBe(0);
    // Rows counted in an earlier hook do not bring the next check forward.
    rowsHandled(CHECK_EVERY_ROWS - 1, () => BUDGET + MiB);
    hookEnded();
    rowsHandled(1, () => BUDGET + MiB);
    expect(collectionsInHook()).toBe(0);
  });

  it("gives freed memory back: a collection returns the pages of dropped garbage", () => {
    hookEnded();
    let garbage: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(2 * MiB, 1));
    const held = process.memoryUsage.rss();
    expect(garbage.length).toBe(64);
    garbage = undefined;
    rowsHandled(CHECK_EVERY_ROWS, () => BUDGET + MiB);
    expect(collectionsInHook()).toBe(1);
    expect(process.memoryUsage.rss()).toBeLessThan(held - 64 * MiB);
    hookEnded();
  });

  it("reads lists without pretenuring: V8 no longer tenures a site whose objects outlive a scavenge", () => {
    // V8 reports its pretenuring decisions with this flag; the flag itself cannot be read back.
    // Rows that live through a scavenge, as a list's rows in flight do, make V8 tenure their sites.
    const tenuredSites = (readsLists: boolean) => {
      const script = `
        if (${readsLists}) {
          const memory = { exports: {} };
          new Function("exports", "require", "module", ${JSON.stringify(memoryModuleCode())})(memory.exports, require, memory);
          memory.exports.allocateRowsYoung();
        }
        const inFlight = [];
        const row = (i) => ({ row: i, fields: [i, i + 1], text: "r" + i });
        for (let i = 0; i < 6000000; i++) { inFlight.push(row(i)); if (inFlight.length > 400000) inFlight.length = 0; }`;
      const run = spawnSync(process.execPath, ["--trace-pretenuring-statistics", "-e", script], {
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.split("\n").filter((line) => line.includes("=> tenure")).length;
    };
    // The control: V8 decides when to tenure from its own timing, and passes it over now and then
    // (more often on a loaded machine): up to ten tries.
    const withPretenuring = [tenuredSites(false)];
    while (withPretenuring.at(-1) === 0 && withPretenuring.length < 10)
      withPretenuring.push(tenuredSites(false));
    expect(Math.max(...withPretenuring)).toBeGreaterThan(0);
    expect([tenuredSites(true), tenuredSites(true)]).toEqual([0, 0]);
  });

  it("does not settle again a hook whose only collection was at its start (the plugin's hooks between its components' growth)", () => {
    hookEnded();
    // Over anything an earlier test left: the request's garbage is collected once, at the start.
    hookStarted(() => 64 * BUDGET);
    expect(collectionsInHook()).toBe(1);
    settle();
    expect(collectionsInHook()).toBe(1);
    // A collection on the way (a long list's rows) is still settled before the answer.
    rowsHandled(CHECK_EVERY_ROWS, () => 128 * BUDGET);
    expect(collectionsInHook()).toBe(2);
    settle();
    expect(collectionsInHook()).toBe(3);
    hookEnded();
  });
});
