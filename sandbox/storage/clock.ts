import { CLOCK_LIMIT_MS } from "../assumptions";
import type { Store } from "./store";

/** A stored instant the clock can resume from: a finite time before the clock's limit. */
function usable(ms: number): boolean {
  return Number.isFinite(ms) && ms >= 0 && ms <= CLOCK_LIMIT_MS;
}

/** Where the clock was at a wall time, and how fast it ran from there (meta `clock.anchor`). */
interface Anchor {
  sandboxMs: number;
  wallMs: number;
  speed: number;
}

const ANCHOR = "clock.anchor";
/** The latest instant timed work ran at (the scheduler's), or the clock was advanced to. */
const REACHED = "clock.lastMs";
/** The form of earlier versions: sandbox time minus wall time (right at speed 1 only). */
const LEGACY_OFFSET = "clock.offsetMs";

/**
 * The sandbox clock: sandbox time runs at `speed` sandbox seconds a wall second from an anchor (an
 * instant of both clocks), and jumps forward when the control API advances it.
 *
 * now = anchor.sandboxMs + (wallNow - anchor.wallMs) * anchor.speed
 *
 * The anchor is stored with its speed whenever it changes (at start, on each advance, on a reset),
 * each time in one transaction, before the work the change makes due runs. So the time is a
 * function of the wall clock from what is stored: after a restart, a `kill -9` included, the clock
 * reads what it would have read had it kept running at its speed (a frozen clock, speed 0, resumes
 * where it stopped), never earlier than an instant it gave before. `clock.lastMs` is a second
 * guard, against a wall clock set back: the latest instant at which timed work ran (written by the
 * scheduler before the work's effects) or the clock was advanced to, which a restart never resumes
 * before. The new process's speed applies from its start.
 */
export class SandboxClock {
  private anchorWall: number;
  private anchorSandbox: number;
  /** The latest instant known to be in `clock.lastMs`. */
  private reachedMs: number;
  /** The latest time the clock gave. */
  private latestMs = 0;
  private httpDateSecond = Number.NaN;
  private httpDateText = "";

  constructor(
    private readonly store: Store,
    readonly speed: number,
    private readonly wall: () => number = Date.now,
  ) {
    this.anchorWall = wall();
    const last = Number(store.getMeta(REACHED) ?? "0");
    // A stored value no clock can take (written before the clock had its limit, or damaged) is
    // dropped: the sandbox starts at wall time rather than failing every request.
    this.reachedMs = usable(last) ? last : 0;
    const resumed = Math.max(this.storedNow(), this.reachedMs);
    this.anchorSandbox = resumed > 0 ? resumed : this.anchorWall;
    this.persist();
  }

  /** What the stored anchor makes of the wall time now; 0 when nothing usable is stored. */
  private storedNow(): number {
    const anchor = parseAnchor(this.store.getMeta(ANCHOR));
    let ms: number;
    if (anchor) ms = anchor.sandboxMs + Math.max(0, this.anchorWall - anchor.wallMs) * anchor.speed;
    else ms = this.anchorWall + Number(this.store.getMeta(LEGACY_OFFSET) ?? Number.NaN);
    return usable(ms) ? ms : 0;
  }

  nowMs(): number {
    // A fast clock left running stops at its limit rather than leave the dates JavaScript has.
    const ms = Math.min(
      Math.floor(this.anchorSandbox + (this.wall() - this.anchorWall) * this.speed),
      CLOCK_LIMIT_MS,
    );
    // Never before a time it gave, should the wall clock go back: it waits for the wall instead.
    if (ms < this.latestMs) return this.latestMs;
    this.latestMs = ms;
    return ms;
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

  /** Moves the clock forward (never past its limit), stored before it returns; returns the new time. */
  advance(seconds: number): Date {
    const current = this.nowMs();
    this.anchorWall = this.wall();
    this.anchorSandbox = Math.min(current + Math.max(seconds, 0) * 1000, CLOCK_LIMIT_MS);
    this.latestMs = this.anchorSandbox;
    this.persist();
    return this.now();
  }

  /**
   * Stores that the clock has reached `ms` (timed work is about to run at it), unless a later
   * instant is stored already.
   */
  reached(ms: number): void {
    if (ms <= this.reachedMs) return;
    this.store.setMeta(REACHED, String(ms));
    this.reachedMs = ms;
  }

  /** Stores the anchor (the clock now, the wall time now, the speed) and the instant reached. */
  persist(): void {
    const now = this.nowMs();
    this.anchorWall = this.wall();
    this.anchorSandbox = now;
    const anchor: Anchor = { sandboxMs: now, wallMs: this.anchorWall, speed: this.speed };
    this.store.tx(() => {
      this.store.setMeta(ANCHOR, JSON.stringify(anchor));
      this.reachedMs = Math.max(this.reachedMs, now);
      this.store.setMeta(REACHED, String(this.reachedMs));
    });
  }

  /** Back to wall time (the control API's reset, which empties what was stored). */
  reset(): void {
    this.anchorWall = this.wall();
    this.anchorSandbox = this.anchorWall;
    this.reachedMs = 0;
    this.latestMs = 0;
    this.persist();
  }
}

function parseAnchor(text: string | undefined): Anchor | undefined {
  if (text === undefined) return undefined;
  try {
    const { sandboxMs, wallMs, speed } = JSON.parse(text) as Partial<Anchor>;
    const finite = [sandboxMs, wallMs, speed].every((n) => typeof n === "number" && Number.isFinite(n));
    return finite && (speed as number) >= 0 ? ({ sandboxMs, wallMs, speed } as Anchor) : undefined;
  } catch {
    return undefined;
  }
}
