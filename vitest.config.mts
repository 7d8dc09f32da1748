import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Two cores: two workers. End-to-end files set their own, longer timeouts.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The slowest files start first, so that the run does not end with one of them alone.
    sequence: { sequencer: SlowestFirst },
    reporters: process.env.VITEST_JSON_OUTPUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUTPUT }]]
      : ["default"],
  },
});
