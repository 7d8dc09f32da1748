/** Walking a paged listing (`pageNumber` from 1, `pageSize` default 100), written once for every listing. */

/** Where a walk starts: the listing query's own `pageNumber` and `pageSize`, as given. */
export interface PageStart {
  pageNumber?: number | string | undefined;
  pageSize?: number | string | undefined;
}

export interface Listing<P, T> {
  /** Fetches one page. */
  page: (pageNumber: number, pageSize: number) => Promise<P>;
  /** The items of a page. */
  items: (page: P) => readonly T[];
  /** The total number of items across all pages, where the listing reports it. */
  total?: (page: P) => number;
}

/**
 * Yields every item from the start page on, fetching the next page only when the caller asks for
 * more. Stops at a short page or, where the listing reports a total, once the total is reached (so
 * a full last page is not followed by a request for an empty one).
 */
export async function* paginate<P, T>(start: PageStart, listing: Listing<P, T>): AsyncGenerator<T> {
  const pageSize = Number(start.pageSize ?? 100);
  let pageNumber = Number(start.pageNumber ?? 1);
  let seen = (pageNumber - 1) * pageSize;
  for (;;) {
    const page = await listing.page(pageNumber, pageSize);
    const items = listing.items(page);
    yield* items;
    seen += items.length;
    if (items.length < pageSize) return;
    if (listing.total && seen >= listing.total(page)) return;
    pageNumber++;
  }
}
