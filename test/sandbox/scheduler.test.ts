/**
 * The scheduler's check before each request: nothing runs before it is due, whatever the form of
 * its due time (the clock's own ISO form is compared as milliseconds, any other as text).
 */
import { afterEach, describe, expect, test } from "vitest";
import { Scheduler } from "../../sandbox/domain/scheduler";
import { SandboxClock } from "../../sandbox/storage/clock";
import { Store } from "../../sandbox/storage/store";

let store: Store | undefined;
afterEach(() => store?.close());

function setUp(startMs: number) {
  store = new Store(":memory:");
  let wall = startMs;
  const clock = new SandboxClock(store, 1, () => wall);
  const scheduler = new Scheduler(store, clock);
  const ran: string[] = [];
  scheduler.on("note", (_ref, due) => ran.push(due));
  return { scheduler, clock, ran, setWall: (ms: number) => (wall = ms) };
}

describe("scheduler ticks", () => {
  const start = Date.parse("2030-01-01T00:00:00.000Z");

  // Due times are compared as texts, as the events query compares them: "…05Z" sorts after every
  // "…05.sssZ", so such an event runs on the next whole second.
  test.each([
    ["the clock's own form", "2030-01-01T00:00:05.000Z", 4_999, 5_000],
    ["without milliseconds", "2030-01-01T00:00:05Z", 5_999, 6_000],
  ])("an event due later (%s) runs once its time has come, not before", (_form, due, waiting, running) => {
    const { scheduler, ran, setWall } = setUp(start);
    scheduler.schedule(due, "note", 1);
    expect(scheduler.tick()).toBe(true);
    setWall(start + waiting);
    scheduler.tick();
    expect(ran).toEqual([]);
    setWall(start + running);
    scheduler.tick();
    expect(ran).toEqual([due]);
    setWall(start + 60_000);
    scheduler.tick();
    expect(ran).toEqual([due]);
  });

  test("the earliest of several, the clock advanced past them: all run in due order", () => {
    const { scheduler, clock, ran } = setUp(start);
    scheduler.schedule("2030-01-01T00:01:00.000Z", "note", 2);
    scheduler.schedule("2030-01-01T00:00:30.000Z", "note", 1);
    scheduler.tick();
    expect(ran).toEqual([]);
    clock.advance(45);
    scheduler.tick();
    expect(ran).toEqual(["2030-01-01T00:00:30.000Z"]);
    clock.advance(15);
    scheduler.tick();
    expect(ran).toEqual(["2030-01-01T00:00:30.000Z", "2030-01-01T00:01:00.000Z"]);
  });
});
