/**
 * Sandbox durability: writers create orders, append recipients and create address-book entries
 * against `directmail sandbox --data <dir>` in a child process, which is killed with SIGKILL at a
 * random moment and restarted on the same folder, over and over. Every write answered with a 2xx
 * must be there after every restart, the restart must succeed, and SQLite's integrity check must
 * pass. Writes in flight at the kill may land or not; they are not counted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, expect, test } from "vitest";
import { http, recipient } from "../sandbox/http";
import { type CliSandbox, scratchDir, startCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { atScale, recordFigures } from "./support/figures";

const KILLS = atScale(5, 50);
const WRITERS = 4;
/** A writer keeps appending to one order until it has this many recipients, then starts another. */
const RECIPIENTS_PER_ORDER = 40;

const data = scratchDir("durability");
let sandbox: CliSandbox | undefined;
afterAll(async () => {
  await sandbox?.kill9();
  fs.rmSync(data, { recursive: true, force: true });
});

/** What the sandbox acknowledged (2xx), so what must survive. */
const committed = {
  orders: new Set<number>(),
  /** Recipient first names per order. */
  recipients: new Map<number, Set<string>>(),
  addressBook: new Set<number>(),
};

let seq = 0;
/** Set just before the kill: only then is a failed request the kill's doing. */
let killing = false;
const random = (n: number) => Math.floor(Math.random() * n);

/** One writer: writes until the sandbox stops answering (it was killed). */
async function writer(url: string, apiKey: string, templateId: number, touched: Set<number>) {
  let order: number | undefined;
  let count = 0;
  try {
    for (;;) {
      const pick = random(10);
      if (order === undefined || count >= RECIPIENTS_PER_ORDER || pick === 0) {
        const r = await http(url, "POST", "/v1/order", { apiKey, body: { templateId } });
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        order = r.json.payload.orderId as number;
        count = 0;
        committed.orders.add(order);
        committed.recipients.set(order, new Set());
      } else if (pick <= 2) {
        const n = ++seq;
        const r = await http(url, "POST", "/v1/address-book", {
          apiKey,
          body: {
            firstName: "Ada",
            lastName: `Book${n}`,
            toOrganization: "",
            address1: `${n} Oak Avenue`,
            address2: "",
            city: "Springfield",
            state: "IL",
            zip: "62701",
            phoneNumber: null,
          },
        });
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        committed.addressBook.add(r.json.payload.id);
      } else {
        // Mostly small batches; now and then a large one, so that kills also land inside long transactions.
        const names = Array.from({ length: pick === 9 ? 300 : 1 + random(3) }, () => `D${++seq}`);
        const batch = names.map((firstName, i) =>
          recipient({ firstName, lastName: "Durable", address1: `${seq - i} Oak Avenue` }),
        );
        const target = order;
        const r = await http(url, "PUT", `/v1/order/${target}/recipients`, {
          apiKey,
          body: { recipients: batch },
        });
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        for (const name of names) committed.recipients.get(target)?.add(name);
        touched.add(target);
        count += names.length;
      }
    }
  } catch (error) {
    // A request the kill cut off ends the writer; anything else is a failure of the test.
    if (!(killing && isCutOff(error))) throw error;
  }
}

function isCutOff(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return error instanceof TypeError && /fetch failed/.test(error.message) && cause !== undefined;
}

/** Every order of the listing (all pages). */
async function listedOrders(url: string, apiKey: string): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let page = 1; ; page++) {
    const r = await http(url, "GET", `/v1/order?pageSize=1000&pageNumber=${page}`, { apiKey });
    expect(r.status).toBe(200);
    for (const o of r.json.payload.orders) ids.add(o.orderId);
    if (r.json.payload.orders.length < 1000) return ids;
  }
}

async function recipientNames(url: string, apiKey: string, orderId: number): Promise<Set<string>> {
  const r = await http(url, "GET", `/v1/order/${orderId}/recipients?pageSize=1000`, { apiKey });
  expect(r.status).toBe(200);
  return new Set(
    r.json.payload.recipients.map((x: { personal: { firstName: string } }) => x.personal.firstName),
  );
}

/** Committed writes missing from the restarted sandbox (recipients only of the orders given). */
async function lostWrites(url: string, apiKey: string, recipientOrders: Iterable<number>): Promise<string[]> {
  const lost: string[] = [];
  const orders = await listedOrders(url, apiKey);
  for (const id of committed.orders) if (!orders.has(id)) lost.push(`order ${id}`);
  for (const id of recipientOrders) {
    const names = await recipientNames(url, apiKey, id);
    for (const name of committed.recipients.get(id) ?? [])
      if (!names.has(name)) lost.push(`${name} of ${id}`);
  }
  const book = new Set((await controlClient(url).addressBook(apiKey)).entries.map((e) => e.id as number));
  for (const id of committed.addressBook) if (!book.has(id)) lost.push(`address-book entry ${id}`);
  return lost;
}

function integrityCheck(): string {
  const db = new DatabaseSync(path.join(data, "sandbox.db"), { readOnly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

test(
  `acknowledged writes survive ${KILLS} kill -9 restarts on the same data folder`,
  async () => {
    sandbox = await startCliSandbox(data);
    const control = controlClient(sandbox.url);
    const { apiKey } = await control.createAccount({ email: "durable@shop.test" });
    const { id: templateId } = await control.createTemplate({ apiKey, name: "Durable card" });

    let killRestarts = 0;
    let failedRestarts = 0;
    const lost: string[] = [];
    for (let i = 0; i < KILLS; i++) {
      const url = sandbox.url;
      const touched = new Set<number>();
      const writers = Array.from({ length: WRITERS }, () => writer(url, apiKey, templateId, touched));
      await new Promise((resolve) => setTimeout(resolve, 30 + random(400)));
      killing = true;
      await sandbox.kill9();
      await Promise.all(writers);
      killing = false;
      killRestarts++;
      try {
        sandbox = await startCliSandbox(data);
      } catch (error) {
        failedRestarts++;
        throw error;
      }
      const integrity = integrityCheck();
      if (integrity !== "ok") failedRestarts++;
      expect(integrity).toBe("ok");
      lost.push(...(await lostWrites(sandbox.url, apiKey, touched)));
    }
    // Last, every recipient of every order, not only those written in the last round.
    lost.push(...(await lostWrites(sandbox.url, apiKey, committed.recipients.keys())));
    const recipients = [...committed.recipients.values()].reduce((n, s) => n + s.size, 0);
    recordFigures("durability", {
      killRestarts,
      lostCommittedWrites: lost.length,
      failedRestarts,
      durabilityCommittedWrites: committed.orders.size + recipients + committed.addressBook.size,
    });
    expect(lost).toEqual([]);
    expect(failedRestarts).toBe(0);
    expect(killRestarts).toBe(KILLS);
    // The loop wrote something of each kind, so the check above checked something.
    expect(committed.orders.size).toBeGreaterThan(KILLS);
    expect(recipients).toBeGreaterThan(KILLS);
    expect(committed.addressBook.size).toBeGreaterThan(0);
  },
  atScale(60_000, 600_000),
);
