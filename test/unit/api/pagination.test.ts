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
});
