/**
 * The sandbox clock as stored: an anchor with its speed, so a new process on the same store (a
 * restart, a crash) reads what the clock would read had it kept running at its speed; a frozen
 * clock stays where it was, and a wall clock set back never sets it back.
 */
import { afterEach, describe, expect, test } from "vitest";
import { Scheduler } from "../../sandbox/domain/scheduler";
import { SandboxClock } from "../../sandbox/storage/clock";
import { Store } from "../../sandbox/storage/store";

let store: Store | undefined;
afterEach(() => store?.close());

const START = Date.parse("2030-01-01T00:00:00.000Z");
let wall = START;
const clockAt = (speed: number) => new SandboxClock(store as Store, speed, () => wall);

describe("the stored clock", () => {
  test("a frozen clock (speed 0) resumes where it stopped, whatever the downtime", () => {
    store = new Store(":memory:");
    wall = START;
    clockAt(0).advance(3600);
    wall = START + 86_400_000;
    expect(clockAt(0).nowMs()).toBe(START + 3_600_000);
  });

  test("a running clock resumes as if it had kept running at its speed, without a persist", () => {
    store = new Store(":memory:");
    wall = START;
    const first = clockAt(100);
    first.advance(60);
    wall = START + 10_000;
    // Read, never stored again (a kill -9 now): 60 s + 10 s at 100 sandbox seconds a second.
    expect(first.nowMs()).toBe(START + 60_000 + 1_000_000);
    wall = START + 12_000;
    const restarted = clockAt(100);
    expect(restarted.nowMs()).toBe(START + 60_000 + 1_200_000);
    // A restart at another speed counts the downtime at the old one, then runs at its own.
    wall = START + 14_000;
    const slower = clockAt(1);
    expect(slower.nowMs()).toBe(START + 60_000 + 1_400_000);
    wall = START + 15_000;
    expect(slower.nowMs()).toBe(START + 60_000 + 1_401_000);
  });

  test("a wall clock set back sets the clock back neither while running nor at a restart", () => {
    store = new Store(":memory:");
    wall = START;
    const clock = clockAt(1);
    const scheduler = new Scheduler(store, clock);
    let ranAt = "";
    scheduler.on("note", () => {
      // Stored before the work's effects, in the same transaction.
      ranAt = store?.getMeta("clock.lastMs") ?? "";
    });
    scheduler.schedule(new Date(START + 5_000).toISOString(), "note", 1);
    wall = START + 9_000;
    scheduler.tick();
    expect(Number(ranAt)).toBe(START + 9_000);
    wall = START + 2_000;
    expect(clock.nowMs()).toBe(START + 9_000);
    expect(clockAt(1).nowMs()).toBe(START + 9_000);
  });

  test("a store of an earlier version (an offset from wall time) resumes at that offset", () => {
    store = new Store(":memory:");
    store.setMeta("clock.offsetMs", String(3_600_000));
    wall = START;
    expect(clockAt(1).nowMs()).toBe(START + 3_600_000);
  });
});
