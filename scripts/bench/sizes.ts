/**
 * The sizes and repetitions of every benchmark part, in one place: the full run's (`npm run bench`,
 * what docs/performance.md reports) and the smoke run's (`--smoke`, test/bench/smoke.test.ts). The
 * smoke run only shows that each part still runs end to end and reports its figures: the smallest
 * sizes that still take each code path (more than one request's worth of recipients where batching
 * is the path), and each figure measured once, without warm-up rounds or best-of repetitions.
 * A part's command-line options (`--rounds`, `--n`, `--seconds`) change the full run's only.
 */

/** A part's sizes: the same settings in both runs. */
const sized = <T>(sizes: { full: T; smoke: T }) => sizes;

export const benchSizes = {
  recipients: sized({
    /** Recipients of the ratio's runs, and of the run standing in for 1,000,000. */
    full: { count: 100_000, large: 1_000_000, runs: 5 },
    // 6,000: more than one request of appends (5,000 at most).
    smoke: { count: 1_000, large: 6_000, runs: 1 },
  }),
  sandbox: sized({
    /**
     * Seconds of GET requests in all; rounds of each pair; recipients a PUT; PUTs a round; store
     * appends; rounds not counted, before the first.
     */
    full: { seconds: 5, rounds: 5, batch: 5_000, appends: 16, storeAppends: 20, warmUpRounds: 1 },
    smoke: { seconds: 1, rounds: 1, batch: 50, appends: 2, storeAppends: 2, warmUpRounds: 0 },
  }),
  "sandbox-time": sized({
    /** Orders delivered at once; probes of the idle sandbox. */
    full: { orders: 5_000, idleProbes: 100 },
    smoke: { orders: 200, idleProbes: 5 },
  }),
  engine: sized({
    full: { campaigns: 20, rounds: 5 },
    smoke: { campaigns: 1, rounds: 1 },
  }),
  engine500: sized({
    /** Every `paidEvery`th campaign is paid; `changed` drafts are reviewed. */
    full: { campaigns: 500, paidEvery: 10, changed: 5, rounds: 1, minReviewRounds: 2 },
    // One paid campaign and one draft, the draft changed.
    smoke: { campaigns: 2, paidEvery: 2, changed: 1, rounds: 1, minReviewRounds: 1 },
  }),
  validate: sized({
    /**
     * N; runs of each size; a case faster than `fastMs` at N is measured at 4N; warm-up loads;
     * a fast case runs on until `budgetMs` were spent, at most `maxRuns` times.
     */
    full: { n: 10_000, runs: 3, fastMs: 100, warmUps: 3, budgetMs: 2_000, maxRuns: 30 },
    smoke: { n: 500, runs: 1, fastMs: 0, warmUps: 0, budgetMs: 0, maxRuns: 1 },
  }),
  big: sized({
    /**
     * Rows; rows changed and rows added; a first, untimed `directmail --version`; previews of the
     * engine floor (the best counts).
     */
    full: { rows: 1_000_000, changes: 1_000, warmUp: true, floorPreviews: 2 },
    smoke: { rows: 2_000, changes: 20, warmUp: false, floorPreviews: 1 },
  }),
  "object-store": sized({
    full: { campaigns: 20, rounds: 3 },
    smoke: { campaigns: 0, rounds: 1 },
  }),
};

export type BenchSizedPart = keyof typeof benchSizes;

/** The sizes of `part` in this run. */
export const sizesOf = <P extends BenchSizedPart>(
  part: P,
  options: { smoke: boolean },
): (typeof benchSizes)[P]["full"] => benchSizes[part][options.smoke ? "smoke" : "full"];
