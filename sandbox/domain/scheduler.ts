import { setImmediate as nextTurn } from "node:timers/promises";
import { CLOCK_LIMIT_MS } from "../assumptions";
import type { SandboxClock } from "../storage/clock";
import type { Store } from "../storage/store";
import { ApiError } from "./errors";

/** The work of one kind of timed event: `ref` names its row, `due` is when it was due. */
export type EventHandler = (ref: number, due: string, data: unknown) => void;

/**
 * Time-driven work (settlement, production, scans, ...), kept as rows of `events` and run by
 * `tick()`, which every request calls first, so what a client reads is up to date with the clock.
 * Each domain part registers the handlers of its own kinds with `on`.
 *
 * A tick runs for at most `SLICE_MS`: a clock step that makes thousands of events due is worked
 * off in slices between requests (a request meanwhile reads the work done so far, as on a busy
 * service), so the server keeps answering. The control API's clock steps wait for all of it
 * (`drain`).
 *
 * The control operations that move the clock or empty the store (a clock step, a delivery, a
 * reset) run one at a time, in the order they came (`exclusive`): each yields to other requests
 * between its steps, and none of them sees another's half-done work. The API's requests are not
 * queued: they run between the steps, on the state the steps have left.
 */
/** The longest one tick runs before it lets the server answer other requests. */
export const SLICE_MS = 20;

export class Scheduler {
  private readonly handlers = new Map<string, EventHandler>();
  /**
   * A lower bound of the earliest due event: `null` when there is none, `undefined` when unknown.
   * It spares most requests the events query (a rolled-back schedule only makes it lower: safe).
   */
  private nextDue: string | null | undefined;
  /**
   * `nextDue` as the clock's milliseconds when it is written as the clock writes its time (then the
   * two order alike, and a request compares numbers instead of making the clock's text); NaN otherwise.
   */
  private nextDueMs = Number.NaN;
  /** A slice of due work is queued to run after the requests waiting now. */
  private sliceQueued = false;
  /** The last control operation queued (`exclusive`); the next one starts once it has settled. */
  private controlQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: SandboxClock,
    private readonly onEventError: (event: { kind: string; ref: number }, error: unknown) => void = () => {},
  ) {}

  /** The sandbox's current time, as stored (UTC ISO text). */
  now(): string {
    return this.clock.iso();
  }

  /** Registers the handler of one kind of timed event. */
  on(kind: string, handler: EventHandler): void {
    this.handlers.set(kind, handler);
  }

  schedule(due: string, kind: string, ref: number, data: unknown = {}): void {
    // Unknown stays unknown: an earlier event may already be in the table (after a restart).
    if (this.nextDue === null || (this.nextDue !== undefined && due < this.nextDue)) this.setNextDue(due);
    this.store.run(
      "INSERT INTO events(due, kind, ref, data) VALUES (?, ?, ?, ?)",
      due,
      kind,
      ref,
      JSON.stringify(data),
    );
  }

  /** Drops the pending events of these kinds for one row. */
  cancel(ref: number, kinds: readonly string[]): void {
    this.store.run(
      `DELETE FROM events WHERE ref = ? AND kind IN (${kinds.map(() => "?").join(",")})`,
      ref,
      ...kinds,
    );
  }

  /** Forgets what is cached of the events table (after a reset). */
  forget(): void {
    this.setNextDue(undefined);
  }

  /**
   * Runs `operation` once every control operation queued before it has settled, and before any
   * queued after it: the clock steps, deliveries and resets of the control API go through here.
   */
  exclusive<T>(operation: () => T | Promise<T>): Promise<T> {
    const run = this.controlQueue.then(operation);
    this.controlQueue = run.catch(() => {});
    return run;
  }

  /**
   * The control API's clock step: the clock moves `seconds` forward, then everything that became
   * due runs, a slice at a time. Resolves to the time the step reached.
   */
  advanceBy(seconds: number): Promise<Date> {
    return this.exclusive(async () => {
      if (seconds > this.clock.secondsLeft()) {
        throw new ApiError(400, "CLOCK_LIMIT", [
          `seconds: the sandbox clock stops at ${new Date(CLOCK_LIMIT_MS).toISOString()}`,
        ]);
      }
      // The clock's new time is stored in the transaction of the first slice of work it makes due.
      const now = this.store.tx(() => {
        const advanced = this.clock.advance(seconds);
        this.tick();
        return advanced;
      });
      await this.drain();
      return now;
    });
  }

  /**
   * Moves the clock forward to `due` (never back) and runs a slice of what became due, in one
   * transaction (joining the caller's): the clock's new time is stored with the work's effects.
   * Returns true when nothing is left due (otherwise `drain` runs the rest).
   */
  stepTo(due: string): boolean {
    return this.store.tx(() => {
      const ahead = Date.parse(due) - this.clock.nowMs();
      if (ahead > 0) this.clock.advance(ahead / 1000);
      return this.tick();
    });
  }

  /** Runs every due event, a slice at a time, letting other requests in between. */
  async drain(): Promise<void> {
    while (!this.tick()) await nextTurn();
  }

  /**
   * Runs the events that are due, in due order (an event may schedule more, which run too if due),
   * for at most SLICE_MS. Returns true when none is left due; otherwise the rest runs in later
   * slices, queued after the requests waiting now.
   */
  tick(): boolean {
    const nowMs = this.clock.nowMs();
    if (this.nextDue === null || this.nextDueMs > nowMs) return true;
    const now = new Date(nowMs).toISOString();
    if (this.nextDue !== undefined && this.nextDue > now) return true;
    const started = performance.now();
    // One transaction a slice (a commit an event was most of the cost of a step of `deliver`), each
    // event a part of it, rolled back alone when it fails.
    return this.store.tx(() => {
      for (;;) {
        const due = this.store.all<{ id: number; due: string; kind: string; ref: number; data: string }>(
          "SELECT * FROM events WHERE due <= ? ORDER BY due, id LIMIT 200",
          now,
        );
        if (due.length === 0) {
          this.setNextDue(
            this.store.get<{ due: string | null }>("SELECT min(due) AS due FROM events")?.due ?? null,
          );
          return true;
        }
        // The instant this work runs at is stored with it: a restart never resumes before it.
        this.clock.reached(nowMs);
        for (const event of due) {
          if (performance.now() - started > SLICE_MS) {
            this.queueSlice();
            return false;
          }
          try {
            this.store.part(() => {
              this.handlers.get(event.kind)?.(event.ref, event.due, JSON.parse(event.data));
              this.store.run("DELETE FROM events WHERE id = ?", event.id);
            });
          } catch (error) {
            // One broken event must not fail every later request: its work is rolled back, it is
            // dropped and reported.
            this.store.run("DELETE FROM events WHERE id = ?", event.id);
            this.onEventError(event, error);
          }
        }
      }
    });
  }

  private setNextDue(due: string | null | undefined): void {
    this.nextDue = due;
    // Only the 24-character form (years 0 to 9999), whose texts sort as their instants do.
    const ms = typeof due === "string" && due.length === 24 ? Date.parse(due) : Number.NaN;
    this.nextDueMs = Number.isFinite(ms) && new Date(ms).toISOString() === due ? ms : Number.NaN;
  }

  /** Runs the next slice once the requests waiting now are answered, and so on until done. */
  private queueSlice(): void {
    if (this.sliceQueued) return;
    this.sliceQueued = true;
    setImmediate(() => {
      this.sliceQueued = false;
      try {
        this.tick();
      } catch (error) {
        this.onEventError({ kind: "slice", ref: 0 }, error);
      }
    });
  }
}
