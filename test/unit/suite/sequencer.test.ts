import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification } from "vitest/node";
import { SLOWEST_FILES, SlowestFirst } from "../../sequencer";

const root = path.resolve(__dirname, "../../..");

/** A test file as the sequencer sees it, in one project without remembered durations. */
function spec(file: string): TestSpecification {
  const config = { root, isolate: true, sequence: { groupOrder: 0 } };
  return { moduleId: path.join(root, file), project: { name: "", config } } as unknown as TestSpecification;
}

describe("the order the test files start in", () => {
  it("names files that exist", () => {
    for (const file of SLOWEST_FILES) expect(fs.existsSync(path.join(root, file)), file).toBe(true);
  });

  it("starts the slowest files first, longest first, then the others largest first", async () => {
    const others = ["test/unit/api/retry.test.ts", "test/unit/api/client.test.ts"];
    const files = [...others, ...[...SLOWEST_FILES].reverse()].map(spec);
    const ctx = { config: {}, cache: { getTestSpecificationResult: () => undefined } };
    const sorted = await new SlowestFirst(ctx as never).sort(files);
    expect(sorted.map((s) => path.relative(root, s.moduleId))).toEqual([
      ...SLOWEST_FILES,
      "test/unit/api/client.test.ts",
      "test/unit/api/retry.test.ts",
    ]);
  });
});
