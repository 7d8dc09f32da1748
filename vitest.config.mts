import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./test/sequencer.js";

/**
 * Test files that need a process of their own: end to end (real CLIs, their own environment), the
 * bench, the package and reliability runs, the integration files (the CLI's commands run in the
 * test's process, the environment's settings) and the runtime's patches, which are process-wide.
 */
const OWN_PROCESS = [
  "test/e2e/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "test/package/**/*.test.ts",
  "test/reliability/**/*.test.ts",
  "test/integration/**/*.test.ts",
  "test/unit/runtime/**/*.test.ts",
];

export default defineConfig({
  test: {
    // Three workers on two cores: the end-to-end files wait on the service and on each pulumi
    // command's start for part of their time, and a third file keeps both cores busy meanwhile.
    // End-to-end files set their own, longer timeouts.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One `npm pack` serves every file that installs the packed package (test/support/package.ts).
    globalSetup: ["./test/support/pack-once.ts"],
    // The slowest files start first, so that the run does not end with one of them alone.
    sequence: { sequencer: SlowestFirst },
    reporters: process.env.VITEST_JSON_OUTPUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUTPUT }]]
      : ["default"],
    projects: [
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } },
      // The other files share their worker's process, one after another: a new process and a fresh
      // import of the package for each of some hundred files cost about half a second each.
      {
        extends: true,
        test: {
          name: "shared-process",
          include: ["test/**/*.test.ts"],
          exclude: OWN_PROCESS,
          isolate: false,
        },
      },
    ],
  },
});
