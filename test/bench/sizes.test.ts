/**
 * The benchmark's sizes (scripts/bench/sizes.ts): the full run keeps the sizes and repetitions
 * docs/performance.md reports its figures at, and the smoke run (test/bench/smoke.test.ts) measures
 * each figure once, at sizes that still take each code path.
 */
import { describe, expect, it } from "vitest";
import { MAX_RECIPIENTS_PER_REQUEST } from "../../provider/api/schemas/recipient";
import { benchCampaigns } from "../../scripts/bench/engine-stack";
import { benchSizes, sizesOf } from "../../scripts/bench/sizes";

describe("bench sizes", () => {
  it("the full run keeps the sizes and repetitions its figures are reported at", () => {
    expect(Object.fromEntries(Object.entries(benchSizes).map(([part, sizes]) => [part, sizes.full]))).toEqual(
      {
        recipients: { count: 100_000, large: 1_000_000, runs: 5 },
        sandbox: { seconds: 5, rounds: 5, batch: 5_000, appends: 16, storeAppends: 20, warmUpRounds: 1 },
        "sandbox-time": { orders: 5_000, idleProbes: 100 },
        engine: { campaigns: 20, rounds: 5 },
        engine500: { campaigns: 500, paidEvery: 10, changed: 5, rounds: 1, minReviewRounds: 2 },
        validate: { n: 10_000, runs: 3, fastMs: 100, warmUps: 3, budgetMs: 2_000, maxRuns: 30 },
        big: { rows: 1_000_000, changes: 1_000, warmUp: true, floorPreviews: 2 },
        "object-store": { campaigns: 20, rounds: 3 },
      },
    );
    expect(sizesOf("engine500", { smoke: false })).toBe(benchSizes.engine500.full);
    expect(sizesOf("engine500", { smoke: true })).toBe(benchSizes.engine500.smoke);
  });

  it("the smoke run measures each figure once, with no warm-up, at sizes no larger than the full run's", () => {
    const once = new Set(["runs", "rounds", "minReviewRounds", "maxRuns", "floorPreviews"]);
    const noWarmUp = new Set(["warmUps", "warmUpRounds", "budgetMs", "fastMs"]);
    for (const [part, { full, smoke }] of Object.entries(benchSizes)) {
      expect(Object.keys(smoke), part).toEqual(Object.keys(full));
      for (const [key, value] of Object.entries(smoke)) {
        const where = `${part}.${key}`;
        if (typeof value === "boolean") expect(value, where).toBe(false);
        else if (once.has(key)) expect(value, where).toBe(1);
        else if (noWarmUp.has(key)) expect(value, where).toBe(0);
        else expect(value, where).toBeLessThanOrEqual(full[key as keyof typeof full] as number);
      }
    }
  });

  it("the smoke run still takes each code path: batches of appends, a paid campaign and a changed draft", () => {
    const { recipients, engine500 } = benchSizes;
    expect(recipients.smoke.large).toBeGreaterThan(MAX_RECIPIENTS_PER_REQUEST);
    expect(recipients.smoke.large).toBeGreaterThan(recipients.smoke.count);
    const campaigns = benchCampaigns(engine500.smoke.campaigns, engine500.smoke.paidEvery);
    expect(campaigns.filter((c) => c.paid).length).toBeGreaterThanOrEqual(1);
    expect(campaigns.filter((c) => !c.paid).length).toBeGreaterThanOrEqual(engine500.smoke.changed);
    expect(engine500.smoke.changed).toBeGreaterThanOrEqual(1);
  });
});
