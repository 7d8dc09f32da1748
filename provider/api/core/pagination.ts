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
  /**
   * Ask for the next page as soon as a page arrives, so the service prepares it while the caller
   * works on this one. For listings walked to the end: a caller that stops early leaves one read
   * (of a page it does not see) behind.
   */
  readAhead?: boolean;
}

/**
 * Yields every item from the start page on, fetching the next page only when the caller asks for
 * more (or, with `readAhead`, while the caller works on the page before). Stops at a short page
 * or, where the listing reports a total, once the total is reached (so a full last page is not
 * followed by a request for an empty one).
 */
export async function* paginate<P, T>(start: PageStart, listing: Listing<P, T>): AsyncGenerator<T> {
  const pageSize = Number(start.pageSize ?? 100);
  let pageNumber = Number(start.pageNumber ?? 1);
  let seen = (pageNumber - 1) * pageSize;
  let page = await listing.page(pageNumber, pageSize);
  for (;;) {
    const items = listing.items(page);
    seen += items.length;
    const more = items.length >= pageSize && !(listing.total && seen >= listing.total(page));
    let ahead: Promise<P> | undefined;
    if (more && listing.readAhead) {
      ahead = listing.page(pageNumber + 1, pageSize);
      // Awaited below; a caller that stops before then leaves its failure to no one.
      ahead.catch(() => {});
    }
    yield* items;
    if (!more) return;
    pageNumber++;
    page = await (ahead ?? listing.page(pageNumber, pageSize));
  }
}
