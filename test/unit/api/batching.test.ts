import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunk, runBatches } from "../../../provider/api/core/batching";

describe("chunk", () => {
  it("keeps every item, in order, in chunks of at most the size (all full but the last)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 1, max: 50 }), (items, size) => {
        const chunks = chunk(items, size);
        expect(chunks.flat()).toEqual(items);
        expect(chunks.every((c) => c.length >= 1 && c.length <= size)).toBe(true);
        expect(chunks.slice(0, -1).every((c) => c.length === size)).toBe(true);
        expect(chunks.length).toBe(Math.ceil(items.length / size));
      }),
    );
  });

  it("refuses a size that is not a positive integer", () => {
    expect(() => chunk([1], 0)).toThrow(RangeError);
    expect(() => chunk([1], 1.5)).toThrow(RangeError);
  });
});

describe("runBatches", () => {
  it("sends batches one at a time, in order, and reports each; the limit caps a larger batchSize", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 20 }),
        async (items, limit, batchSize) => {
          const sent: number[][] = [];
          let inFlight = 0;
          const report = await runBatches(
            items,
            limit,
            async (batch) => {
              inFlight++;
              expect(inFlight).toBe(1);
              await Promise.resolve();
              sent.push(batch);
              inFlight--;
              return batch.length;
            },
            { batchSize },
          );
          const size = Math.min(limit, batchSize);
          expect(sent).toEqual(chunk(items, size));
          expect(report.ok).toBe(true);
          expect(report.batches.map((b) => b.start)).toEqual(sent.map((_, i) => i * size));
        },
      ),
    );
  });

  it("stops after a failure, reporting the rest as skipped; continueOnError sends them", async () => {
    const failSecond = async (batch: number[]) => {
      if (batch[0] === 3) throw new Error("boom");
      return batch.length;
    };
    const stopped = await runBatches([1, 2, 3, 4, 5, 6], 2, failSecond);
    expect(stopped.batches.map((b) => b.status)).toEqual(["ok", "failed", "skipped"]);
    expect(stopped.ok).toBe(false);
    const continued = await runBatches([1, 2, 3, 4, 5, 6], 2, failSecond, { continueOnError: true });
    expect(continued.batches.map((b) => b.status)).toEqual(["ok", "failed", "ok"]);
    expect(continued.ok).toBe(false);
  });
});
