import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunk, runBatches, sendBatches } from "../../../provider/api/core/batching";

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

describe("sendBatches", () => {
  /** A source that records how far it was read, and a sender whose requests the test answers. */
  function setup(count: number) {
    let read = 0;
    async function* items() {
      for (let i = 0; i < count; i++) {
        read = i + 1;
        yield i;
      }
    }
    const requests: { batch: number[]; answer: (ok: boolean) => void }[] = [];
    const send = (batch: number[]) =>
      new Promise<string>((resolve, reject) => {
        requests.push({
          batch,
          answer: (ok) => (ok ? resolve(`sent ${batch[0]}`) : reject(new Error("refused"))),
        });
      });
    return { items, requests, send, read: () => read };
  }
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("keeps at most inFlight requests outstanding, reads the items only as batches go out, and reports in order", async () => {
    const { items, requests, send, read } = setup(10);
    const reported: [string, number[], number][] = [];
    const done = sendBatches(items(), 3, send, {
      inFlight: 2,
      onBatch: (result, batch, sent) => reported.push([result, batch, sent]),
    });
    await settle();
    expect(requests.map((r) => r.batch)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    // The third batch is built while the two are out, and waits for room.
    expect(read()).toBe(9);
    expect(requests).toHaveLength(2);
    requests[1]?.answer(true); // the second answered first: reported after the first
    await settle();
    expect(reported).toEqual([]);
    requests[0]?.answer(true);
    await settle();
    expect(reported.map(([result, , sent]) => [result, sent])).toEqual([
      ["sent 0", 3],
      ["sent 3", 6],
    ]);
    expect(requests.map((r) => r.batch.length)).toEqual([3, 3, 3, 1]);
    requests[2]?.answer(true);
    requests[3]?.answer(true);
    await done;
    expect(reported.map(([, batch]) => batch)).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
  });

  it("with one request in flight, builds the next batch while the service works on the last", async () => {
    const { items, requests, send, read } = setup(7);
    const done = sendBatches(items(), 3, send, { inFlight: 1 });
    await settle();
    expect(requests.map((r) => r.batch)).toEqual([[0, 1, 2]]);
    expect(read()).toBe(6);
    requests[0]?.answer(true);
    await settle();
    expect(requests.map((r) => r.batch)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(read()).toBe(7);
    requests[1]?.answer(true);
    await settle();
    requests[2]?.answer(true);
    await done;
    expect(requests.map((r) => r.batch)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it("stops reading at the first failure and throws it once the requests already sent are answered", async () => {
    const { items, requests, send, read } = setup(100);
    const done = sendBatches(items(), 5, send, { inFlight: 2 });
    let finished = false;
    void done.catch(() => {
      finished = true;
    });
    await settle();
    requests[0]?.answer(false);
    await settle();
    expect(finished).toBe(false); // the second request is still out
    requests[1]?.answer(true);
    await expect(done).rejects.toThrow("refused");
    expect(requests).toHaveLength(2);
    expect(read()).toBeLessThan(20);
  });

  it("throws a failure of the items themselves, after the requests already sent", async () => {
    async function* broken() {
      yield 1;
      yield 2;
      throw new Error("the file changed");
    }
    const sent: number[][] = [];
    await expect(
      sendBatches(broken(), 1, async (batch) => {
        sent.push(batch);
      }),
    ).rejects.toThrow("the file changed");
    expect(sent).toEqual([[1], [2]]);
  });
});
