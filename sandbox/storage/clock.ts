import { CLOCK_LIMIT_MS } from "../assumptions";
import type { Store } from "./store";

/** A stored instant the clock can resume from: a finite time before the clock's limit. */
function usable(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= CLOCK_LIMIT_MS;
}

/**
 * The sandbox clock: wall time at a configurable speed, plus whatever the control API has advanced.
 *
 * now = anchorSandbox + (wallNow - anchorWall) * speed. The offset from wall time is kept in the
 * store, so after a restart the clock resumes where it was and no scheduled event runs twice or goes
 * back in time.
 */
export class SandboxClock {
  private anchorWall: number;
  private anchorSandbox: number;
  private httpDateSecond = Number.NaN;
  private httpDateText = "";

  constructor(
    private readonly store: Store,
    readonly speed: number,
    private readonly wall: () => number = Date.now,
  ) {
    this.anchorWall = wall();
    const offset = Number(store.getMeta("clock.offsetMs") ?? "0");
    const last = Number(store.getMeta("clock.lastMs") ?? "0");
    // Never go back before the last instant that was persisted (a restart at a later wall time is
    // fine). A stored value no clock can take (written before the clock had its limit) is dropped:
    // the sandbox starts at wall time rather than failing every request.
    const resumed = Math.max(
      usable(this.anchorWall + offset) ? this.anchorWall + offset : 0,
      usable(last) ? last : 0,
    );
    this.anchorSandbox = resumed > 0 ? resumed : this.anchorWall;
  }

  nowMs(): number {
    // A fast clock left running stops at its limit rather than leave the dates JavaScript has.
    return Math.min(
      Math.floor(this.anchorSandbox + (this.wall() - this.anchorWall) * this.speed),
      CLOCK_LIMIT_MS,
    );
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** The time as an HTTP `Date` header writes it (whole seconds), made once a second of the clock. */
  httpDate(): string {
    const ms = this.nowMs();
    const second = Math.floor(ms / 1000);
    if (second !== this.httpDateSecond) {
      this.httpDateSecond = second;
      this.httpDateText = new Date(ms).toUTCString();
    }
    return this.httpDateText;
  }

  iso(): string {
    return this.now().toISOString();
  }

  /** How far the clock may still go, in seconds: it stops at `CLOCK_LIMIT_MS`. */
  secondsLeft(): number {
    return (CLOCK_LIMIT_MS - this.nowMs()) / 1000;
  }

  /** Moves the clock forward (never past its limit); returns the new time. */
  advance(seconds: number): Date {
    const current = this.nowMs();
    this.anchorWall = this.wall();
    this.anchorSandbox = Math.min(current + Math.max(seconds, 0) * 1000, CLOCK_LIMIT_MS);
    this.persist();
    return this.now();
  }

  persist(): void {
    const now = this.nowMs();
    this.store.setMeta("clock.offsetMs", String(now - this.wall()));
    this.store.setMeta("clock.lastMs", String(now));
  }

  /** Back to wall time (the control API's reset). */
  reset(): void {
    this.anchorWall = this.wall();
    this.anchorSandbox = this.anchorWall;
    this.persist();
  }
}
