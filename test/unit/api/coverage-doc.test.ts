/**
 * docs/coverage.md says, for every operation of the endpoint table, which resource, data function
 * or command reaches it: a new endpoint without a row (or a row saying nothing) fails here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { operations } from "../../../provider/api/endpoints";

const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/coverage.md"), "utf8");
/** The table's rows, by entry number: the cells after `| # |`. */
const rows = new Map(
  doc
    .split("\n")
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => {
      const cells = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim());
      return [Number(cells[0]), cells.slice(1)] as const;
    }),
);

describe("docs/coverage.md", () => {
  it("has one row per operation of the endpoint table, and no other", () => {
    expect([...rows.keys()]).toEqual(operations.map((op) => op.entry));
  });

  it.each(operations.map((op) => [op.entry, op]))(
    "entry %i names its operation, path and what reaches it",
    (_, op) => {
      const [operationId, methodPath, resource, dataFunction, command] = rows.get(op.entry) ?? [];
      expect(operationId).toBe(op.operationId);
      expect(methodPath).toContain(`${op.method} \`${op.path}\``);
      // A cell that reaches it names something in backticks; "—" is nothing.
      const reached = [resource, dataFunction, command].filter(
        (cell) => cell !== undefined && !cell.startsWith("—") && /`[^`]+`/.test(cell),
      );
      expect(reached.length, `entry ${op.entry} (${op.operationId}) is reached by nothing`).toBeGreaterThan(
        0,
      );
    },
  );
});
