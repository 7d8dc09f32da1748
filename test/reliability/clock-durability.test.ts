/**
 * The sandbox clock across crashes: at speeds 0, 1 and 100, `directmail sandbox --data <dir>` in a
 * child process takes clock steps, reads of the clock and checkouts (records stamped with its time),
 * then reads and checkouts alone for a second or two (a running clock goes on by itself), and is
 * killed with SIGKILL at a random moment, then restarted on the same folder at the same speed,
 * over and over. After each restart the clock must read no earlier than any time it gave before the
 * kill, nor than any record stored, and as far on as its speed took it meanwhile; at speed 0 (a frozen clock) it must read the time it stopped at, and stay there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, expect, test } from "vitest";
import { http, recipient } from "../sandbox/http";
import { type CliSandbox, scratchDir, startCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { atScale, recordFigures } from "./support/figures";

const KILLS = atScale(3, 20);
const random = (n: number) => Math.floor(Math.random() * n);
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dirs: string[] = [];
let running: CliSandbox | undefined;
afterAll(async () => {
  await running?.kill9();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** The latest sandbox time stamped on a record of the store (its dates, paid, mailed, settled). */
function latestRecord(data: string): number {
  const db = new DatabaseSync(path.join(data, "sandbox.db"));
  try {
    const columns: [string, string][] = [
      ["accounts", "created"],
      ["orders", "created"],
      ["orders", "updated"],
      ["orders", "paid_date"],
      ["orders", "ready_at"],
      ["orders", "mailed_at"],
      ["recipients", "created"],
      ["checkouts", "created"],
      ["checkouts", "settled"],
      ["ledger", "created"],
    ];
    const union = columns
      .map(([table, column]) => `SELECT max(${column}) AS t FROM ${table}`)
      .join(" UNION ALL ");
    const row = db.prepare(`SELECT max(t) AS t FROM (${union})`).get() as { t: string | null };
    return row.t === null ? 0 : Date.parse(row.t);
  } finally {
    db.close();
  }
}

/** What the clients saw before the kill. */
interface Seen {
  /** The latest clock time any answer gave, and the wall time its answer came. */
  latest: number;
  latestAt: number;
  /** The time of the last clock step answered, and the seconds of the one in flight. */
  stepped: number;
  inFlightSeconds: number;
}

/** Set just before the kill: only then is a failed request the kill's doing. */
let killing = false;

async function untilKilled(work: () => Promise<void>): Promise<void> {
  try {
    while (!killing) await work();
  } catch (error) {
    if (!killing) throw error;
  }
}

async function clockNow(url: string): Promise<number> {
  return Date.parse((await controlClient(url).clock()).now);
}

test.each([0, 1, 100])(
  `at speed %d, ${KILLS} kill -9 restarts: the clock never reads earlier than before`,
  async (speed) => {
    const data = scratchDir(`clock-${speed}`);
    dirs.push(data);
    const args = ["--speed", String(speed)];
    running = await startCliSandbox(data, args);
    const { apiKey } = await controlClient(running.url).createAccount({ balance: 1e6 });
    const { id: templateId } = await controlClient(running.url).createTemplate({
      apiKey,
      name: "Clock card",
    });
    let wentBack = 0;
    let frozenMoved = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      const url = running.url;
      const now = await clockNow(url);
      const seen: Seen = { latest: now, latestAt: Date.now(), stepped: now, inFlightSeconds: 0 };
      const saw = (iso: string) => {
        if (Date.parse(iso) < seen.latest) return;
        seen.latest = Date.parse(iso);
        seen.latestAt = Date.now();
      };
      let stepping = true;
      const stepper = untilKilled(async () => {
        if (!stepping) {
          await sleep(50);
          return;
        }
        seen.inFlightSeconds = 1 + random(3600);
        const r = await http(url, "POST", "/_sandbox/clock/advance", {
          body: { seconds: seen.inFlightSeconds },
        });
        expect(r.status).toBe(200);
        seen.stepped = Date.parse(r.json.now);
        seen.inFlightSeconds = 0;
        saw(r.json.now);
        await sleep(random(200));
      });
      const reader = untilKilled(async () => {
        saw((await controlClient(url).clock()).now);
        await sleep(random(30));
      });
      const buyer = untilKilled(async () => {
        const order = await http(url, "POST", "/v1/order", { apiKey, body: { templateId } });
        expect(order.status).toBe(200);
        const orderId = order.json.payload.orderId;
        await http(url, "PUT", `/v1/order/${orderId}/recipients`, {
          apiKey,
          body: { recipients: [recipient()] },
        });
        await http(url, "POST", `/v1/order/${orderId}/checkout`, {
          apiKey,
          body: { postageType: "Standard", productionSpeed: "Normal" },
        });
      });
      await sleep(100 + random(500));
      // Then no steps for a while: a running clock goes on by itself, and the reads see it.
      stepping = false;
      await sleep(300 + random(700));
      killing = true;
      await running.kill9();
      await Promise.all([stepper, reader, buyer]);
      killing = false;
      const stored = latestRecord(data);
      running = await startCliSandbox(data, args);
      const asked = Date.now();
      const resumed = await clockNow(running.url);
      if (resumed < seen.latest || resumed < stored) wentBack++;
      const why = `resumed at ${iso(resumed)}; seen ${iso(seen.latest)}, stored ${iso(stored)}`;
      expect(resumed, why).toBeGreaterThanOrEqual(Math.max(seen.latest, stored));
      // As if it had kept running at its speed while the process was down (docs/sandbox.md).
      expect(resumed, why).toBeGreaterThanOrEqual(seen.latest + speed * (asked - seen.latestAt));
      if (speed === 0) {
        // Frozen: where the last step put it (or the step in flight, if it was stored), and it stays.
        const stopped = [seen.stepped, seen.stepped + seen.inFlightSeconds * 1000];
        await sleep(300);
        const later = await clockNow(running.url);
        if (!stopped.includes(resumed) || later !== resumed) frozenMoved++;
        expect(stopped.map(iso)).toContain(iso(resumed));
        expect(later).toBe(resumed);
      }
    }
    if (speed === 0) {
      // A clean stop and a start a second later: the same time.
      const before = await clockNow(running.url);
      await running.stop();
      await sleep(1000);
      running = await startCliSandbox(data, args);
      const after = await clockNow(running.url);
      if (after !== before) frozenMoved++;
      expect(iso(after)).toBe(iso(before));
    }
    await running.stop();
    recordFigures("clock-durability", {
      clockKillRestarts: KILLS,
      clockWentBack: wentBack,
      frozenClockMoved: frozenMoved,
    });
  },
  atScale(90_000, 600_000),
);
