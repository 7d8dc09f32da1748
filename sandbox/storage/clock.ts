import type { Store } from "./store";

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

  constructor(
    private readonly store: Store,
    readonly speed: number,
    private readonly wall: () => number = Date.now,
  ) {
    this.anchorWall = wall();
    const offset = Number(store.getMeta("clock.offsetMs") ?? "0");
    const last = Number(store.getMeta("clock.lastMs") ?? "0");
    // Never go back before the last instant that was persisted (a restart at a later wall time is fine).
    this.anchorSandbox = Math.max(this.anchorWall + offset, last);
  }

  nowMs(): number {
    return Math.floor(this.anchorSandbox + (this.wall() - this.anchorWall) * this.speed);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  iso(): string {
    return this.now().toISOString();
  }

  /** Moves the clock forward; returns the new time. */
  advance(seconds: number): Date {
    const current = this.nowMs();
    this.anchorWall = this.wall();
    this.anchorSandbox = current + seconds * 1000;
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
