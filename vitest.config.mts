import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./test/sequencer.js";

/**
 * Test files that need a process of their own: the reliability runs and the integration files (the
 * provider's hooks and the CLI's commands run in the test's process, which installs the runtime's
 * patches and reads the environment's settings) and the runtime's patches, which are process-wide.
 */
const OWN_PROCESS = [
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
    // The slowest files start first, so that the run does not end with one of them alone.
    sequence: { sequencer: SlowestFirst },
    reporters: process.env.VITEST_JSON_OUTPUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUTPUT }]]
      : ["default"],
    projects: [
      { extends: true, test: { name: "own-process", include: OWN_PROCESS } },
      // The other files share their worker's process, one after another: a new process and a fresh
      // import of the package cost about half a second a file. Their programs, CLIs and sandboxes'
      // processes are their own, and they change nothing process-wide in the test's process.
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
