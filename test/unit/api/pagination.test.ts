import { describe, expect, it } from "vitest";
import { paginate } from "../../../provider/api/core/pagination";

describe("paginate", () => {
  /** A listing of `count` items, recording the pages asked for. */
  function listing(count: number, reportsTotal: boolean) {
    const asked: number[] = [];
    return {
      asked,
      listing: {
        page: async (pageNumber: number, pageSize: number) => {
          asked.push(pageNumber);
          const from = (pageNumber - 1) * pageSize;
          return {
            items: Array.from({ length: Math.max(0, Math.min(pageSize, count - from)) }, (_, i) => from + i),
          };
        },
        items: (page: { items: number[] }) => page.items,
        ...(reportsTotal ? { total: () => count } : {}),
      },
    };
  }

  async function all(
    start: { pageNumber?: number; pageSize?: number },
    count: number,
    reportsTotal: boolean,
  ) {
    const { asked, listing: l } = listing(count, reportsTotal);
    const items: number[] = [];
    for await (const item of paginate(start, l)) items.push(item);
    return { items, asked };
  }

  it("stops at the reported total, so a full last page is not followed by an empty one", async () => {
    expect(await all({ pageSize: 2 }, 4, true)).toEqual({ items: [0, 1, 2, 3], asked: [1, 2] });
  });

  it("without a total, stops at the first short page", async () => {
    expect(await all({ pageSize: 2 }, 4, false)).toEqual({ items: [0, 1, 2, 3], asked: [1, 2, 3] });
    expect(await all({ pageSize: 3 }, 4, false)).toEqual({ items: [0, 1, 2, 3], asked: [1, 2] });
  });

  it("starts at the given page and counts the pages before it towards the total", async () => {
    expect(await all({ pageNumber: 2, pageSize: 2 }, 6, true)).toEqual({
      items: [2, 3, 4, 5],
      asked: [2, 3],
    });
  });

  it("defaults to pages of 100 from page 1, and fetches nothing more once the caller stops", async () => {
    const { asked, listing: l } = listing(250, true);
    for await (const item of paginate({}, l)) if (item === 0) break;
    expect(asked).toEqual([1]);
    expect(await all({}, 250, true)).toMatchObject({ asked: [1, 2, 3] });
  });

  it("with readAhead, asks for the next page before the caller takes this one's items", async () => {
    const { asked, listing: l } = listing(5, false);
    const seenAsked: number[][] = [];
    for await (const item of paginate({ pageSize: 2 }, { ...l, readAhead: true })) {
      if (item % 2 === 0) seenAsked.push([...asked]);
    }
    // Page 3 is short: nothing is asked after it.
    expect(seenAsked).toEqual([
      [1, 2],
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it("with readAhead, a failed page is thrown where the caller reaches it, and never if it stopped before", async () => {
    const failing = (failAt: number) => ({
      page: async (pageNumber: number) => {
        if (pageNumber === failAt) throw new Error(`page ${pageNumber} failed`);
        return { items: [pageNumber * 10, pageNumber * 10 + 1] };
      },
      items: (page: { items: number[] }) => page.items,
      readAhead: true,
    });
    const items: number[] = [];
    await expect(
      (async () => {
        for await (const item of paginate({ pageSize: 2 }, failing(2))) items.push(item);
      })(),
    ).rejects.toThrow("page 2 failed");
    expect(items).toEqual([10, 11]);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      for await (const item of paginate({ pageSize: 2 }, failing(2))) if (item === 10) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
