import { describe, expect, it } from "vitest";
import {
  allocateRowsYoung,
  CHECK_EVERY_ROWS,
  collectionsInHook,
  HEADROOM_BYTES,
  hookEnded,
  MEMORY_BUDGET_BYTES,
  rowsHandled,
  settle,
} from "../../../provider/resources/recipients/memory";

const MiB = 1024 * 1024;

describe("the provider's memory budget for long recipient lists", () => {
  it("looks at the RSS once every CHECK_EVERY_ROWS rows, and collects only over the budget", () => {
    hookEnded();
    let looks = 0;
    const under = () => {
      looks += 1;
      return MEMORY_BUDGET_BYTES - MiB;
    };
    for (let i = 0; i < 5 * CHECK_EVERY_ROWS; i += 1000) rowsHandled(1000, under);
    expect(looks).toBe(5);
    expect(collectionsInHook()).toBe(0);

    rowsHandled(CHECK_EVERY_ROWS - 1, () => MEMORY_BUDGET_BYTES + MiB);
    expect(collectionsInHook()).toBe(0);
    rowsHandled(1, () => MEMORY_BUDGET_BYTES + MiB);
    expect(collectionsInHook()).toBe(1);
  });

  it("after a collection, allows HEADROOM_BYTES over what is held when that passes the budget", () => {
    hookEnded();
    // Held after the collection: 100 MiB over the budget (a list whose tables alone pass it).
    const held = MEMORY_BUDGET_BYTES + 100 * MiB;
    rowsHandled(CHECK_EVERY_ROWS, () => held);
    expect(collectionsInHook()).toBe(1);
    rowsHandled(CHECK_EVERY_ROWS, () => held + HEADROOM_BYTES);
    expect(collectionsInHook()).toBe(1);
    rowsHandled(CHECK_EVERY_ROWS, () => held + HEADROOM_BYTES + 1);
    expect(collectionsInHook()).toBe(2);
    // A collection that leaves little held brings the limit back to the budget.
    const readings = [held * 2, MEMORY_BUDGET_BYTES - HEADROOM_BYTES - MiB];
    rowsHandled(CHECK_EVERY_ROWS, () => readings.shift() ?? 0);
    expect(collectionsInHook()).toBe(3);
    rowsHandled(CHECK_EVERY_ROWS, () => MEMORY_BUDGET_BYTES + 1);
    expect(collectionsInHook()).toBe(4);
  });

  it("settles before an answer only in a hook that collected, and starts each hook afresh", () => {
    hookEnded();
    settle();
    expect(collectionsInHook()).toBe(0);
    rowsHandled(CHECK_EVERY_ROWS, () => MEMORY_BUDGET_BYTES + MiB);
    settle();
    expect(collectionsInHook()).toBe(2);
    hookEnded();
    expect(collectionsInHook()).toBe(0);
    // Rows counted in an earlier hook do not bring the next check forward.
    rowsHandled(CHECK_EVERY_ROWS - 1, () => MEMORY_BUDGET_BYTES + MiB);
    hookEnded();
    rowsHandled(1, () => MEMORY_BUDGET_BYTES + MiB);
    expect(collectionsInHook()).toBe(0);
  });

  it("gives freed memory back: a collection returns the pages of dropped garbage", () => {
    hookEnded();
    let garbage: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(2 * MiB, 1));
    const held = process.memoryUsage.rss();
    expect(garbage.length).toBe(64);
    garbage = undefined;
    rowsHandled(CHECK_EVERY_ROWS, () => MEMORY_BUDGET_BYTES + MiB);
    expect(collectionsInHook()).toBe(1);
    expect(process.memoryUsage.rss()).toBeLessThan(held - 64 * MiB);
    hookEnded();
  });

  it("reads lists without pretenuring, set once, and a read goes on as before", () => {
    allocateRowsYoung();
    allocateRowsYoung();
    // Objects made after it are made and dropped as ever.
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ row: i, fields: [`A${i}`, `${i} Main St`] }));
    expect(rows.at(-1)?.fields[1]).toBe("99999 Main St");
  });
});
