/**
 * Checkout soak: many checkouts, each under one random fault, most through the provider's hooks
 * and a share through the real `pulumi` CLI (a TypeScript program on dynamic providers, and a Pulumi
 * YAML program through the provider plugin), each followed by the documented recovery only
 * (docs/resources.md). Counted from the sandbox's ledger, never from what the provider believes:
 * orders charged more than once (`doubleCharges`, target 0) and runs that needed more than the
 * documented recovery to end paid once and recorded (`checkoutExtraRecovery`, target 0).
 *
 * Every random choice comes from one seed, printed at the start: `SOAK_SEED=<seed>` replays a run.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import type { CheckoutInputs } from "../../provider/resources/checkout/inputs";
import type { CheckoutOutputs } from "../../provider/resources/checkout/outputs";
import { checkoutImplementation } from "../../provider/resources/checkout/provider";
import type { ProviderContext, ResourceImplementation } from "../../provider/resources/context";
import { recipientsCsv } from "../e2e/support/campaign";
import { refreshOnce, upOnce } from "../e2e/support/one-command";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { atScale, recordFigures } from "./support/figures";
import { RUN_MARKER, upKilled } from "./support/killed-up";
import { campaignStackOn, type Door, typeOn } from "./support/plugin-campaign";
import { type Prng, prng, soakSeed } from "./support/prng";

const seed = soakSeed();
const DIRECT_RUNS = atScale(6, 160);
/**
 * Runs under the real CLI: the first kills `pulumi`, the second the provider, the rest are drawn.
 * CI runs the first (the sync soak kills the provider in CI).
 */
const CLI_RUNS = atScale(1, 40);
/** Runs under the real CLI through the plugin door (a Pulumi YAML program): a kill of `pulumi`, then of the plugin, first. */
const PLUGIN_RUNS = atScale(2, 16);

/**
 * The client's timeout in the direct runs, and the delays that outlast it: the service applies a
 * delayed checkout while the provider still watches the order's status, or once the run failed.
 */
const CLIENT_TIMEOUT_MS = 1500;
const PAST_TIMEOUT_MS = [CLIENT_TIMEOUT_MS + 1500, CLIENT_TIMEOUT_MS + 4500];

const DIRECT_FAULTS = [
  "reset-before",
  "reset-after",
  "5xx-before",
  "5xx-after",
  "timeout-before",
  "timeout-after",
  "payment-fails",
  "payment-hangs",
] as const;
const CLI_FAULTS = [
  "kill-pulumi",
  "kill-provider",
  "kill-pulumi",
  "kill-provider",
  "reset-after",
  "5xx-before",
  "payment-fails",
  "payment-hangs",
] as const;
type Fault = (typeof DIRECT_FAULTS)[number] | (typeof CLI_FAULTS)[number];
/** `SOAK_FAULTS=timeout-before,kill-provider` draws only those faults (to dwell on one). */
const only = process.env.SOAK_FAULTS?.split(",");
const drawable = <F extends Fault>(faults: readonly F[]) =>
  only ? faults.filter((f) => only.includes(f)) : faults;

/** Paid, or a later production status (the sandbox moves paid orders on to production). */
const SETTLED = /^(Paid|Ready For Production|In Production|Mailed|Complete)$/;
/** What the provider says when a checkout certainly did not take effect: run `pulumi up` again. */
const NOT_CHECKED_OUT = /so it has not been checked out; run `pulumi up` again/;
const PAYMENT_FAILED = /Payment for order \d+ failed: .* run `pulumi up` again/s;

interface Run {
  run: string;
  fault: Fault;
  orderId?: number | undefined;
  /** What happened, step by step: the failures and the recovery. */
  steps: string[];
  paid?: number;
  extraRecovery?: string;
}

let direct: TestSandbox;
let cli: TestSandbox;
const runs: Run[] = [];
/** The runs among them through the plugin door. */
let pluginRuns = 0;

beforeAll(async () => {
  console.log(`checkout soak: seed ${seed} (replay with SOAK_SEED=${seed})`);
  // Settlement is quick for the direct runs; the CLI runs wait long enough to be killed meanwhile.
  direct = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: 1, pollAfterSeconds: 1, settlementExpectedWithinSeconds: 5 },
  });
  cli = await startTestSandbox({
    log: () => {},
    timings: { settlementSeconds: 5, settlementExpectedWithinSeconds: 20 },
  });
});

afterAll(async () => {
  const doubleCharges = runs.filter((r) => (r.paid ?? 0) > 1).length;
  const extra = runs.filter((r) => r.extraRecovery !== undefined).length;
  recordFigures("checkout", {
    checkoutRuns: runs.length,
    checkoutPluginRuns: pluginRuns,
    doubleCharges,
    checkoutExtraRecovery: extra,
    checkoutSeed: seed,
  });
  await direct?.close();
  await cli?.close();
});

/** The provider's progress lines are kept with the run rather than printed, 200 times over. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

const failure = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The runs that broke a target, as lines that say how to replay them. */
function report(which: Run[]): string {
  return which
    .map(
      (r) =>
        `${r.run} (${r.fault}, order ${r.orderId}): paid ${r.paid}; ${r.extraRecovery ?? ""}\n    ${r.steps.join("\n    ")}`,
    )
    .join("\n");
}

function expectTargets(which: Run[]) {
  const doubles = which.filter((r) => (r.paid ?? 0) > 1);
  const extra = which.filter((r) => r.extraRecovery !== undefined);
  expect(doubles, `double charges (seed ${seed}):\n${report(doubles)}`).toEqual([]);
  expect(extra, `runs needing more than the documented recovery (seed ${seed}):\n${report(extra)}`).toEqual(
    [],
  );
}

/** One checkout through the provider's hooks under a drawn fault, then its documented recovery. */
async function directRun(i: number, rnd: Prng): Promise<Run> {
  const fault = rnd.pick(drawable(DIRECT_FAULTS));
  const r: Run = { run: `direct ${i}`, fault, steps: [] };
  const payment = fault === "payment-fails" ? "fail" : fault === "payment-hangs" ? "hang" : "succeed";
  const { apiKey } = await direct.control.createAccount({ balance: rnd.pick([0, 0, 5, 100]), payment });
  const { id: templateId } = await direct.control.createTemplate({ apiKey, name: "Postcard" });
  // The client of the hooks times out quickly, so that a delay past its timeout costs seconds.
  const client = new DirectMailClient({ baseUrl: direct.url, apiKey, timeoutMs: CLIENT_TIMEOUT_MS });
  const ctx: ProviderContext = {
    settings: () => ({ baseUrl: direct.url, apiKey, baseUrlSource: "config" }),
    client: () => client,
  };
  const checkout = checkoutImplementation(ctx) as Required<
    ResourceImplementation<CheckoutInputs, CheckoutOutputs>
  >;
  try {
    const { orderId } = await client.createOrder({ templateId });
    r.orderId = orderId;
    const count = rnd.int(1, 6);
    await client.appendRecipients(
      orderId,
      Array.from({ length: count }, (_, n) =>
        newOrderRecipient({
          address: { address1: `${100 + n} Main St`, city: "Springfield", state: "IL", zipCode: "62701" },
          personal: { firstName: `R${n}`, lastName: "Smith" },
        }),
      ),
    );
    const checked = await quietly(() =>
      checkout.check(undefined, {
        orderId,
        postageType: rnd.pick(["Standard", "FirstClass"]),
        productionSpeed: rnd.pick(["Normal", "ExpeditedFaster"]),
        settlementWaitSeconds: 3,
      }),
    );
    if (checked.failures) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
    const { inputs } = checked;
    const at = `/v1/order/${orderId}/checkout`;
    const after = fault.endsWith("-after");
    if (fault.startsWith("reset-"))
      await direct.control.addFault({ method: "POST", path: at, kind: "reset", after, times: 1 });
    if (fault.startsWith("5xx-"))
      await direct.control.addFault({
        method: "POST",
        path: at,
        kind: "status",
        status: rnd.pick([500, 502, 503, 504]),
        after,
        times: 1,
      });
    const delayMs = fault.startsWith("timeout-") ? rnd.pick(PAST_TIMEOUT_MS) : 0;
    if (delayMs > 0)
      await direct.control.addFault({ method: "POST", path: at, kind: "delay", delayMs, after, times: 1 });
    // Now and then the status reads fail too: they are retried, so they never change the outcome.
    if (rnd.chance(0.3))
      await direct.control.addFault({
        method: "GET",
        path: "/v1/order",
        ...(rnd.chance(0.5) ? { kind: "reset" as const } : { kind: "status" as const, status: 503 }),
        times: rnd.int(1, 2),
        probability: 0.5,
      });

    const create = async (step: string) => {
      try {
        const { outs } = await quietly(() => checkout.create(inputs));
        r.steps.push(`${step}: ${outs.orderStatus}${outs.recordedExisting ? " (recorded existing)" : ""}`);
        return outs;
      } catch (error) {
        r.steps.push(`${step} failed: ${failure(error)}`);
        return undefined;
      }
    };
    const outs = await create("create");
    if (!outs) {
      // The documented recovery: what the message says, then `pulumi up` again (a create again).
      const said = r.steps.at(-1) ?? "";
      if (PAYMENT_FAILED.test(said)) await direct.control.updateAccount({ apiKey, payment: "succeed" });
      else if (!NOT_CHECKED_OUT.test(said)) r.extraRecovery = "the failure did not say what to do";
      if (fault === "timeout-before" && rnd.chance(0.5)) {
        // The delayed checkout reaches the service after the client gave up: rerun once it did.
        await sleep(delayMs);
      }
      if (!(await create("rerun"))) r.extraRecovery ??= "the rerun failed";
    } else if (fault === "payment-hangs") {
      if (outs.orderStatus !== "Payment Needed")
        r.extraRecovery = `hanging payment reported ${outs.orderStatus}`;
      // The processor answers at last.
      await direct.control.updateAccount({ apiKey, payment: "succeed" });
    }
    // Whatever is still in flight at the sandbox lands, and settlement runs.
    await sleep(delayMs);
    await direct.control.clearFaults();
    await direct.control.advanceClock(5);
    r.paid = paidCheckouts(await direct.control.ledger(apiKey), orderId);
    const status = (await client.getOrder(orderId))?.orderStatus ?? "gone";
    if (r.paid !== 1 || !SETTLED.test(status))
      r.extraRecovery ??= `after the recovery: ${r.paid} paid checkouts, order "${status}"`;
  } finally {
    await direct.control.clearFaults();
    await client.close();
  }
  return r;
}

/**
 * One checkout under the real CLI through `door`, under a drawn fault (a kill during the settlement
 * wait first).
 */
async function cliRun(i: number, rnd: Prng, door: Door): Promise<Run> {
  const fault = i < 2 && !only ? (CLI_FAULTS[i] as Fault) : rnd.pick(drawable(CLI_FAULTS));
  const r: Run = { run: `${door === "plugin" ? "plugin" : "cli"} ${i}`, fault, steps: [] };
  const payment = fault === "payment-fails" ? "fail" : fault === "payment-hangs" ? "hang" : "succeed";
  const { apiKey } = await cli.control.createAccount({ balance: rnd.pick([0, 5]), payment });
  const { id: templateId } = await cli.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: cli.url, apiKey });
  const run = `checkout-soak-${process.pid}-${i}`;
  const t = await campaignStackOn(
    door,
    {
      baseUrl: cli.url,
      apiKey,
      templateId,
      recipientsFile: "recipients.csv",
      checkout: { settlementWaitSeconds: fault === "payment-hangs" ? 2 : undefined },
    },
    { [RUN_MARKER]: run },
  );
  fs.writeFileSync(
    path.join(t.workDir, "recipients.csv"),
    recipientsCsv(Array.from({ length: rnd.int(1, 5) }, (_, n) => n + 1)),
  );
  /** Runs one pulumi command of the run: whether it succeeded, and what it said if not. */
  const step = async (name: string, fn: () => Promise<unknown>): Promise<boolean> => {
    try {
      await fn();
      r.steps.push(`${name}: ok`);
      return true;
    } catch (error) {
      r.steps.push(`${name} failed: ${failure(error).slice(-2000)}`);
      return false;
    }
  };
  try {
    const at = "/v1/order/*/checkout";
    if (fault === "reset-after")
      await cli.control.addFault({ method: "POST", path: at, kind: "reset", after: true, times: 1 });
    if (fault === "5xx-before")
      await cli.control.addFault({ method: "POST", path: at, kind: "status", status: 503, times: 1 });

    if (fault === "kill-pulumi" || fault === "kill-provider") {
      const target = fault === "kill-pulumi" ? "pulumi" : "provider";
      const killed = await upKilled(t, run, target, (out) =>
        /waiting up to \d+ s for payment to settle/.test(out),
      );
      r.steps.push(`up, ${target} killed during the settlement wait: ${killed.killed}, exit ${killed.code}`);
      if (!killed.killed) r.extraRecovery = `${target} was never killed:\n${killed.output.slice(-2000)}`;
      // The documented recovery (docs/resources.md).
      if (target === "pulumi") await step("pulumi cancel", () => t.stack.cancel());
      await step("pulumi refresh --clear-pending-creates", () =>
        refreshOnce(t, { clearPendingCreates: true }),
      );
      if (!(await step("pulumi up", () => upOnce(t)))) r.extraRecovery ??= "the recovery's up failed";
    } else {
      if (!(await step("pulumi up", () => upOnce(t)))) {
        const said = r.steps.at(-1) ?? "";
        if (PAYMENT_FAILED.test(said)) await cli.control.updateAccount({ apiKey, payment: "succeed" });
        else if (!NOT_CHECKED_OUT.test(said)) r.extraRecovery = "the failure did not say what to do";
        if (!(await step("pulumi up again", () => upOnce(t)))) r.extraRecovery ??= "the rerun failed";
      } else if (fault === "payment-hangs") {
        await cli.control.updateAccount({ apiKey, payment: "succeed" });
      }
    }
    await cli.control.clearFaults();
    const orderId = (await client.listOrders()).orders[0]?.orderId;
    r.orderId = orderId;
    await cli.control.advanceClock(10);
    r.paid = orderId === undefined ? 0 : paidCheckouts(await cli.control.ledger(apiKey), orderId);
    const status = orderId === undefined ? "none" : (await client.getOrder(orderId))?.orderStatus;
    const latest = t.readStateFile().checkpoint.checkpoint.latest;
    const recorded = latest.resources.some((res: any) => res.type === typeOn(door, "Checkout"));
    const pending = (latest.pending_operations ?? []).length;
    if (r.paid !== 1 || !SETTLED.test(status ?? "") || !recorded || pending > 0)
      r.extraRecovery ??= `after the recovery: ${r.paid} paid checkouts, order "${status}", checkout recorded ${recorded}, ${pending} pending operations`;
  } finally {
    await cli.control.clearFaults();
    await client.close();
    await t.dispose();
  }
  return r;
}

describe("checkout soak", () => {
  it(`${DIRECT_RUNS} checkouts through the provider's hooks, each under a fault: charged once, recovered as documented`, {
    timeout: atScale(180_000, 1_800_000),
  }, async () => {
    const rnd = prng(seed);
    const mine: Run[] = [];
    for (let i = 0; i < DIRECT_RUNS; i++) {
      const t0 = Date.now();
      mine.push(await directRun(i, rnd));
      if (process.env.SOAK_VERBOSE) console.log(`${Date.now() - t0} ms: ${report(mine.slice(-1))}`);
    }
    runs.push(...mine);
    const counts = Object.fromEntries(
      DIRECT_FAULTS.map((f) => [f, mine.filter((r) => r.fault === f).length]),
    );
    console.log(`checkout soak, direct: ${mine.length} runs, faults ${JSON.stringify(counts)}`);
    expectTargets(mine);
  });

  it(`${CLI_RUNS} checkouts under the real pulumi CLI, killed or faulted: charged once, recovered as documented`, {
    timeout: atScale(240_000, 3_600_000),
  }, async () => {
    const rnd = prng(seed ^ 0x5bd1e995);
    const mine: Run[] = [];
    for (let i = 0; i < CLI_RUNS; i++) mine.push(await cliRun(i, rnd, "dynamic"));
    runs.push(...mine);
    const counts = Object.fromEntries(
      [...new Set(CLI_FAULTS)].map((f) => [f, mine.filter((r) => r.fault === f).length]),
    );
    console.log(`checkout soak, CLI: ${mine.length} runs, faults ${JSON.stringify(counts)}`);
    expectTargets(mine);
  });

  it(`${PLUGIN_RUNS} checkouts through the plugin door (a Pulumi YAML program), killed or faulted: charged once, recovered as documented`, {
    timeout: atScale(240_000, 1_800_000),
  }, async () => {
    const rnd = prng(seed ^ 0x2f6b1c3d);
    const mine: Run[] = [];
    for (let i = 0; i < PLUGIN_RUNS; i++) mine.push(await cliRun(i, rnd, "plugin"));
    runs.push(...mine);
    pluginRuns += mine.length;
    const counts = Object.fromEntries(
      [...new Set(CLI_FAULTS)].map((f) => [f, mine.filter((r) => r.fault === f).length]),
    );
    console.log(`checkout soak, plugin: ${mine.length} runs, faults ${JSON.stringify(counts)}`);
    expectTargets(mine);
  });
});
