import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Two cores: two workers. End-to-end files set their own, longer timeouts.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: process.env.VITEST_JSON_OUTPUT
      ? ["default", ["json", { outputFile: process.env.VITEST_JSON_OUTPUT }]]
      : ["default"],
  },
});
