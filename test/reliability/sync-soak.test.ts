/**
 * Recipient sync soak: many random edits of a recipient list (add, remove, change by key, reorder,
 * duplicate rows, and now and then a key used twice with different details), each applied under
 * faults on append, delete and listing, most through the provider's hooks and a share through the
 * real `pulumi` CLI (on dynamic providers, and through the provider plugin from a Pulumi YAML
 * program) with the CLI or the provider killed mid-update. After each edit the update is
 * rerun until it succeeds (as a user reruns `pulumi up`), then the sandbox's own listing is compared
 * with the file: recipients listed twice, missing, or not in the file are `syncMismatches` (target
 * 0), and the reruns an edit needed are `maxRerunsToConverge` (target at most 2).
 *
 * Every random choice comes from one seed, printed at the start: `SOAK_SEED=<seed>` replays a run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import type { AddFaultInput } from "../../sandbox";
import { upOnce } from "../e2e/support/one-command";
import type { TestStack } from "../e2e/support/pulumi";
import { configuredProvider } from "../integration/resources/support";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { atScale, recordFigures } from "./support/figures";
import { type KillTarget, RUN_MARKER, upKilled } from "./support/killed-up";
import { campaignStackOn, type Door } from "./support/plugin-campaign";
import { type Prng, prng, soakSeed } from "./support/prng";

const seed = soakSeed();
/** Edits through the provider's hooks, in series of EDITS_PER_ORDER on one order each. */
const DIRECT_EDITS = atScale(20, 160);
const EDITS_PER_ORDER = 8;
/** Edits under the real CLI: one stack a series, the first edit creates the order. */
const CLI_SERIES = atScale(1, 5);
const CLI_EDITS_PER_STACK = atScale(2, 8);
/** Series under the real CLI through the plugin door: the first kills the plugin mid-update. */
const PLUGIN_SERIES = atScale(1, 2);
/** Reruns after the first attempt that an edit may need; more is a missed target (tried up to 5). */
const MAX_RERUNS = 2;
const GIVE_UP_AFTER = 5;

/** A customer of the list. Addresses are in the service's standard form, so listed as written. */
interface Customer {
  id: number;
  firstName: string;
  address1: string;
  custom1: string;
}

/** What the sandbox must list for a customer, and what the listing shows of a recipient. */
const rowOf = (c: Customer) =>
  [c.firstName, "LOVELACE", c.address1, "SPRINGFIELD", "IL", "62701", c.custom1].join("|");

interface Edit {
  series: string;
  edit: number;
  ops: string[];
  faults: string[];
  /** Each failed attempt, then the one that succeeded. */
  attempts: string[];
  reruns: number;
  mismatches: number;
  detail?: string;
}

let sb: TestSandbox;
const edits: Edit[] = [];
/** The edits among them through the plugin door. */
let pluginEdits = 0;

beforeAll(async () => {
  console.log(`sync soak: seed ${seed} (replay with SOAK_SEED=${seed})`);
  sb = await startTestSandbox({ log: () => {} });
});

afterAll(async () => {
  recordFigures("sync", {
    syncRuns: edits.length,
    syncPluginRuns: pluginEdits,
    syncMismatches: edits.reduce((n, e) => n + e.mismatches, 0),
    maxRerunsToConverge: Math.max(0, ...edits.map((e) => e.reruns)),
    syncSeed: seed,
  });
  await sb?.close();
});

const failure = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The provider's progress lines are not printed, thousands of times over. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

const EDIT_KINDS = ["add", "remove", "change", "reorder", "duplicate"] as const;
type EditKind = (typeof EDIT_KINDS)[number];

/** A list of customers under random edits. */
class CustomerList {
  rows: Customer[] = [];
  private nextId = 1;
  constructor(
    private readonly rnd: Prng,
    readonly keyed: boolean,
  ) {}

  private customer(): Customer {
    const id = this.nextId++;
    return {
      id,
      firstName: `ADA${id}`,
      address1: `${100 + id} MAIN ST`,
      custom1: `OFFER ${this.rnd.int(1, 9)}`,
    };
  }

  private ids(): number[] {
    return [...new Set(this.rows.map((c) => c.id))];
  }

  /** The first list. */
  start(): string[] {
    this.rows = Array.from({ length: this.rnd.int(3, 12) }, () => this.customer());
    return [`${this.rows.length} rows`];
  }

  /**
   * One random edit, one to three operations. Returns what it did; `conflict` is a key used twice
   * with different details, which the provider refuses.
   */
  edit(kinds: readonly EditKind[] = EDIT_KINDS): { ops: string[]; conflict: boolean } {
    const ops: string[] = [];
    const rnd = this.rnd;
    const count = rnd.int(1, 3);
    for (let i = 0; i < count; i++) {
      const op = rnd.pick(kinds);
      if (op === "add") {
        const n = rnd.int(1, 4);
        for (let k = 0; k < n; k++) this.rows.splice(rnd.int(0, this.rows.length), 0, this.customer());
        ops.push(`add ${n}`);
      } else if (op === "remove" && this.ids().length > 1) {
        const gone = new Set(
          rnd.shuffle(this.ids()).slice(0, rnd.int(1, Math.min(3, this.ids().length - 1))),
        );
        this.rows = this.rows.filter((c) => !gone.has(c.id));
        ops.push(`remove ${gone.size}`);
      } else if (op === "change" && this.rows.length > 0) {
        const changed = rnd.shuffle(this.ids()).slice(0, rnd.int(1, 3));
        for (const id of changed) {
          const what = rnd.pick(["address1", "custom1", "firstName"] as const);
          const value =
            what === "address1"
              ? `${rnd.int(1, 999)} OAK AVE`
              : what === "custom1"
                ? `OFFER ${rnd.int(10, 99)}`
                : `ADA${id}X${rnd.int(1, 99)}`;
          // Every row of the customer changes: under a key column they are one recipient.
          this.rows = this.rows.map((c) => (c.id === id ? { ...c, [what]: value } : c));
        }
        ops.push(`change ${changed.length}`);
      } else if (op === "reorder") {
        this.rows = rnd.shuffle(this.rows);
        ops.push("reorder");
      } else if (op === "duplicate" && this.rows.length > 0) {
        const copy = rnd.pick(this.rows);
        this.rows.splice(rnd.int(0, this.rows.length), 0, { ...copy });
        ops.push("duplicate a row");
      }
    }
    const conflict = this.keyed && this.rows.length > 0 && rnd.chance(0.08);
    if (conflict) {
      const twin = rnd.pick(this.rows);
      this.rows.push({ ...twin, custom1: `${twin.custom1} AGAIN` });
      ops.push("a key twice with different details");
    }
    return { ops, conflict };
  }

  /** The rows the service must list: one per distinct row of the file. */
  expected(): string[] {
    return [...new Set(this.rows.map(rowOf))].sort();
  }

  /** The list as recipients (inline, for the hooks). */
  inline(): Record<string, string>[] {
    return this.rows.map((c) => ({
      ...(this.keyed ? { customerId: `C-${c.id}` } : {}),
      firstName: c.firstName,
      lastName: "LOVELACE",
      address1: c.address1,
      city: "SPRINGFIELD",
      state: "IL",
      zipCode: "62701",
      custom1: c.custom1,
    }));
  }

  /** The list as a CSV file. */
  csv(): string {
    const header = `${this.keyed ? "customerId," : ""}firstName,lastName,address1,city,state,zipCode,custom1`;
    const lines = this.rows.map(
      (c) =>
        `${this.keyed ? `C-${c.id},` : ""}${c.firstName},LOVELACE,${c.address1},SPRINGFIELD,IL,62701,${c.custom1}`,
    );
    return `${header}\n${lines.join("\n")}\n`;
  }
}

/** The order's recipients as the sandbox lists them, in the list's terms, sorted. */
async function listing(client: DirectMailClient, orderId: number): Promise<string[]> {
  const rows: string[] = [];
  for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 })) {
    const { firstName, lastName } = r.personal;
    const { address1, city, state, zipCode } = r.address;
    rows.push([firstName, lastName, address1, city, state, zipCode, r.metadata.custom1].join("|"));
  }
  return rows.sort();
}

/** Recipients listed more often than the file has them, missing, or not in the file. */
function compare(listed: string[], expected: string[]): { count: number; detail: string } {
  const want = new Set(expected);
  const seen = new Map<string, number>();
  for (const row of listed) seen.set(row, (seen.get(row) ?? 0) + 1);
  const duplicates = [...seen].filter(([row, n]) => want.has(row) && n > 1).map(([row, n]) => `${row} x${n}`);
  const lost = expected.filter((row) => !seen.has(row));
  const stale = [...seen.keys()].filter((row) => !want.has(row));
  const count = duplicates.length + lost.length + stale.length;
  return { count, detail: count === 0 ? "" : JSON.stringify({ duplicates, lost, stale }) };
}

/**
 * Faults for one edit on the order's append, delete and listing, each drawn on its own. An append
 * that fails is not repeated by the client (it may have taken effect), so it fails the attempt: at
 * most two firings, so that two reruns suffice. Deletes and listings are retried by the client.
 */
function drawFaults(rnd: Prng, orderId: number): AddFaultInput[] {
  const path = `/v1/order/${orderId}/recipients`;
  const failing = (): Pick<AddFaultInput, "kind" | "status" | "after"> => ({
    ...(rnd.chance(0.5)
      ? { kind: "reset" as const }
      : { kind: "status" as const, status: rnd.pick([500, 502, 503]) }),
    after: rnd.chance(0.5),
  });
  const faults: AddFaultInput[] = [];
  if (rnd.chance(0.4)) faults.push({ method: "PUT", path, ...failing(), times: rnd.int(1, 2) });
  if (rnd.chance(0.4)) faults.push({ method: "DELETE", path, ...failing(), times: rnd.int(1, 3) });
  if (rnd.chance(0.4))
    faults.push({ method: "GET", path, ...failing(), after: false, times: rnd.int(1, 3), probability: 0.5 });
  return faults;
}

const describeFault = (f: AddFaultInput) =>
  `${f.method} ${f.kind}${f.status ? ` ${f.status}` : ""}${f.after ? " after" : " before"} x${f.times}`;

/** A series of edits of one order's recipients through the provider's hooks. */
async function directSeries(series: number, count: number, rnd: Prng): Promise<Edit[]> {
  const { apiKey } = await sb.control.createAccount({ balance: 0 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const provider = await configuredProvider("OrderRecipients", sb, apiKey);
  const { orderId } = await client.createOrder({ templateId });
  const list = new CustomerList(rnd, rnd.chance(0.7));
  const name = `direct ${series} (${list.keyed ? "keyed" : "no key column"}, order ${orderId})`;
  const done: Edit[] = [];
  /** What the engine's state holds: nothing before the first create succeeds. */
  let state: Record<string, any> | undefined;
  try {
    for (let n = 0; n < count; n++) {
      const before = [...list.rows];
      const { ops, conflict } = n === 0 ? { ops: list.start(), conflict: false } : list.edit();
      const e: Edit = { series: name, edit: n, ops, faults: [], attempts: [], reruns: 0, mismatches: 0 };
      done.push(e);
      const news = {
        orderId,
        recipients: list.inline(),
        ...(list.keyed ? { keyColumn: "customerId" } : {}),
      };
      const faults = drawFaults(rnd, orderId);
      for (const f of faults) await sb.control.addFault(f);
      e.faults = faults.map(describeFault);
      for (let attempt = 0; attempt <= GIVE_UP_AFTER; attempt++) {
        try {
          await quietly(async () => {
            const checked = await provider.check(state ?? {}, news);
            if (checked.failures?.length)
              throw new Error(`check: ${checked.failures.map((f) => f.reason).join("; ")}`);
            if (!state) {
              state = (await provider.create(checked.inputs)).outs;
            } else if ((await provider.diff(String(orderId), state, checked.inputs)).changes) {
              state = (await provider.update(String(orderId), state, checked.inputs)).outs;
            }
          });
          e.attempts.push("ok");
          break;
        } catch (error) {
          e.attempts.push(failure(error));
          if (conflict) break;
          e.reruns = attempt + 1;
        }
      }
      await sb.control.clearFaults();
      if (conflict) {
        // Refused: nothing changed at the service; the file is put back.
        if (!/customerId "C-\d+" is used by row \d+ too, with different details/.test(e.attempts[0] ?? ""))
          e.detail = "a key used twice was not refused";
        list.rows = before;
      }
      const { count: mismatches, detail } = compare(await listing(client, orderId), list.expected());
      e.mismatches = mismatches;
      if (detail) e.detail = detail;
      if (e.attempts.at(-1) !== "ok" && !conflict) e.detail ??= "never converged";
    }
  } finally {
    await sb.control.clearFaults();
    await client.close();
  }
  return done;
}

/**
 * A series of edits under the real CLI on one stack. After the first edit (the order's creation),
 * each edit is applied either under faults, or with `pulumi` or the provider killed while the
 * service holds back the answer of an append or a delete that it applied.
 */
async function cliSeries(series: number, count: number, rnd: Prng, door: Door): Promise<Edit[]> {
  const { apiKey } = await sb.control.createAccount({ balance: 0 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const list = new CustomerList(rnd, rnd.chance(0.7));
  const run = `sync-soak-${process.pid}-${door}-${series}`;
  const t: TestStack = await campaignStackOn(
    door,
    {
      baseUrl: sb.url,
      apiKey,
      templateId,
      recipientsFile: "customers.csv",
      keyColumn: list.keyed ? "customerId" : undefined,
    },
    { [RUN_MARKER]: run },
  );
  const name = `${door === "plugin" ? "plugin" : "cli"} ${series} (${list.keyed ? "keyed" : "no key column"})`;
  const done: Edit[] = [];
  let orderId: number | undefined;
  const up = async (): Promise<string> => {
    try {
      const result = await upOnce(t);
      orderId ??= result.outputs.orderId?.value;
      return "ok";
    } catch (error) {
      return failure(error).slice(-1500);
    }
  };
  try {
    for (let n = 0; n < count; n++) {
      const before = [...list.rows];
      const beforeRows = new Set(list.expected());
      // The second edit of a stack sends something for sure, and is killed: the provider in even
      // series, `pulumi` in odd ones. Later edits draw their fault.
      const { ops, conflict } =
        n === 0
          ? { ops: list.start(), conflict: false }
          : list.edit(n === 1 ? ["add", "change"] : EDIT_KINDS);
      const e: Edit = { series: name, edit: n, ops, faults: [], attempts: [], reruns: 0, mismatches: 0 };
      done.push(e);
      fs.writeFileSync(path.join(t.workDir, "customers.csv"), list.csv());
      // What the update sends: appends when rows are new, deletes when rows are gone.
      const expected = list.expected();
      const appends = expected.some((row) => !beforeRows.has(row));
      const deletes = [...beforeRows].some((row) => !expected.includes(row));
      const killable = orderId !== undefined && !conflict && (appends || deletes);
      const mode = !killable
        ? "faults"
        : n === 1
          ? series % 2 === 0
            ? "kill-provider"
            : "kill-pulumi"
          : rnd.pick(["kill-pulumi", "kill-provider", "faults"] as const);
      if (mode === "faults" && orderId !== undefined) {
        const faults = drawFaults(rnd, orderId);
        for (const f of faults) await sb.control.addFault(f);
        e.faults = faults.map(describeFault);
      }
      let attempt = 0;
      if (mode !== "faults" && orderId !== undefined) {
        // The service applies the request and holds back its answer for 5 s: the kill comes meanwhile.
        const method = appends && (!deletes || rnd.chance(0.5)) ? "PUT" : "DELETE";
        const at = `/v1/order/${orderId}/recipients`;
        await sb.control.addFault({ method, path: at, kind: "delay", delayMs: 5000, after: true, times: 1 });
        const target: KillTarget = mode === "kill-pulumi" ? "pulumi" : "provider";
        e.faults.push(`${target} killed during a ${method} of recipients`);
        const killed = await upKilled(t, run, target, async () =>
          (await sb.control.listFaults()).faults.some((f) => f.fired > 0),
        );
        e.attempts.push(
          killed.killed
            ? `${target} killed (exit ${killed.code})`
            : `not killed: ${killed.output.slice(-1500)}`,
        );
        // A kill that never happened tries nothing: the edit misses its target.
        if (!killed.killed) e.detail = `${target} was never killed`;
        await sb.control.clearFaults();
        // The documented recovery: the killed CLI left its lock, which `pulumi cancel` removes.
        if (target === "pulumi")
          await t.stack.cancel().catch((error) => e.attempts.push(`pulumi cancel failed: ${failure(error)}`));
        attempt = 1;
      }
      for (; attempt <= GIVE_UP_AFTER; attempt++) {
        const outcome = await up();
        e.attempts.push(outcome);
        if (outcome === "ok" || conflict) break;
        e.reruns = attempt + 1;
      }
      await sb.control.clearFaults();
      if (conflict) {
        if (
          !/customerId "C-\d+" is used by row \d+ too, with different details/.test(e.attempts.at(-1) ?? "")
        )
          e.detail = "a key used twice was not refused";
        list.rows = before;
        fs.writeFileSync(path.join(t.workDir, "customers.csv"), list.csv());
      } else if (e.attempts.at(-1) !== "ok") e.detail = "never converged";
      if (orderId === undefined) {
        e.mismatches = list.expected().length;
        e.detail ??= "no order";
        continue;
      }
      const { count: mismatches, detail } = compare(await listing(client, orderId), list.expected());
      e.mismatches = mismatches;
      if (detail) e.detail = detail;
    }
  } finally {
    await sb.control.clearFaults();
    await client.close();
    await t.dispose();
  }
  return done;
}

function expectTargets(mine: Edit[]) {
  const missed = mine.filter((e) => e.mismatches > 0 || e.reruns > MAX_RERUNS || e.detail !== undefined);
  const text = missed
    .map(
      (e) =>
        `${e.series} edit ${e.edit} [${e.ops.join(", ")}] faults [${e.faults.join(", ")}]: ${e.mismatches} mismatches, ${e.reruns} reruns; ${e.detail ?? ""}\n    ${e.attempts.join("\n    ")}`,
    )
    .join("\n");
  expect(missed, `edits that missed a target (seed ${seed}):\n${text}`).toEqual([]);
}

describe("recipient sync soak", () => {
  it(`${DIRECT_EDITS} random edits through the provider's hooks under faults: the service lists the file after at most ${MAX_RERUNS} reruns`, {
    timeout: atScale(120_000, 1_200_000),
  }, async () => {
    const rnd = prng(seed);
    const mine: Edit[] = [];
    for (let s = 0; mine.length < DIRECT_EDITS; s++)
      mine.push(...(await directSeries(s, Math.min(EDITS_PER_ORDER, DIRECT_EDITS - mine.length), rnd)));
    edits.push(...mine);
    console.log(
      `sync soak, direct: ${mine.length} edits, ${mine.filter((e) => e.faults.length > 0).length} under faults, max reruns ${Math.max(...mine.map((e) => e.reruns))}`,
    );
    expectTargets(mine);
  });

  it(`${CLI_SERIES * CLI_EDITS_PER_STACK} edits under the real pulumi CLI, killed or faulted mid-update: the service lists the file after at most ${MAX_RERUNS} reruns`, {
    timeout: atScale(240_000, 3_600_000),
  }, async () => {
    const rnd = prng(seed ^ 0x5bd1e995);
    const mine: Edit[] = [];
    for (let s = 0; s < CLI_SERIES; s++)
      mine.push(...(await cliSeries(s, CLI_EDITS_PER_STACK, rnd, "dynamic")));
    edits.push(...mine);
    console.log(
      `sync soak, CLI: ${mine.length} edits, ${mine.filter((e) => e.faults.some((f) => f.includes("killed"))).length} killed mid-update`,
    );
    expectTargets(mine);
  });

  it(`${PLUGIN_SERIES * CLI_EDITS_PER_STACK} edits through the plugin door (a Pulumi YAML program), the plugin or the CLI killed or faulted mid-update: the service lists the file after at most ${MAX_RERUNS} reruns`, {
    timeout: atScale(240_000, 1_800_000),
  }, async () => {
    const rnd = prng(seed ^ 0x2f6b1c3d);
    const mine: Edit[] = [];
    for (let s = 0; s < PLUGIN_SERIES; s++)
      mine.push(...(await cliSeries(s, CLI_EDITS_PER_STACK, rnd, "plugin")));
    edits.push(...mine);
    pluginEdits += mine.length;
    console.log(
      `sync soak, plugin: ${mine.length} edits, ${mine.filter((e) => e.faults.some((f) => f.includes("killed"))).length} killed mid-update`,
    );
    expectTargets(mine);
  });
});
