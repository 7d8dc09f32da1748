/**
 * Every choice the sandbox makes where the spec says "not shown", in one place. docs/sandbox.md
 * lists the same; the design brief fixes the ones marked (brief).
 */

/** (brief) Paging of `GET /v1/order` and the recipient listing. */
export const DEFAULT_PAGE_SIZE = 100;

/** Request limits of the spec: the wire schemas' own, shared with the client. */
export {
  MAX_CONVERSIONS_PER_REQUEST,
  MAX_RECIPIENTS_PER_REQUEST as MAX_RECIPIENTS_PER_APPEND,
} from "../provider/api/schemas";

/**
 * Limits of a request body the spec does not show: its size (5,000 recipients with every field
 * filled are a few MB; the spec's limit is the count, not bytes), and how deep its arrays and
 * objects nest (the deepest request of the interface nests 4 levels; a deeper one is hostile, and
 * echoing it back would exhaust the stack).
 */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
export const MAX_JSON_DEPTH = 64;

/**
 * Bounds on what a request carries, where the spec states none (docs/sandbox.md "Bounds"). Work
 * that grows with a number (discovery, a clock step, delivery) stays bounded, and no stored value
 * can reach a form the sandbox cannot load again (a date past year 9999, an infinite balance).
 * Checked after each request's own schema, so the spec's own limits (5,000 recipients) keep their
 * messages.
 */
export const BOUNDS = {
  /**
   * Any number in a body or a query: counts, amounts. Not an id (`id`, `…Id`, `…Ids`, a path's
   * ids), which is only looked up (an unknown one is a 404), nor a page number (past the end, an
   * empty page), whatever the spec allows.
   */
  maxMagnitude: 1_000_000_000,
  /** Any text. The longest field of the interface (a letter's text) is a few thousand characters. */
  maxStringLength: 10_000,
  /** Any list, beyond the spec's own (5,000 recipients or conversions a request). */
  maxArrayLength: 10_000,
  /** Any object's properties (custom fields, records). */
  maxObjectKeys: 1_000,
  /** Per field (by name, wherever it stands), tighter than the above: [least, most]. */
  fields: {
    /** Neighbours a proximity request asks for around one address: discovery inserts each. */
    DesiredCount: [1, 1_000],
    /** One clock step of the control API: ten years. */
    seconds: [0, 10 * 365 * 24 * 3600],
    /** A delay fault: ten minutes, longer than any client waits. */
    delayMs: [0, 600_000],
    /** A fault's count. */
    times: [1, 1_000_000],
    /** A 429 fault's Retry-After. */
    retryAfterSeconds: [0, 86_400],
  } as Readonly<Record<string, readonly [number, number]>>,
};

/**
 * The most recipients one proximity request may discover over all its addresses. Discovery is one
 * piece of timed work: 1,000 neighbours take about 30 ms, 5,000 held the server 150 ms.
 */
export const MAX_DISCOVERED_PER_REQUEST = 1_000;

/** The latest instant the sandbox clock may reach: far past any test, well inside JavaScript dates. */
export const CLOCK_LIMIT_MS = Date.parse("2999-12-31T23:59:59Z");

/**
 * Order statuses are the client's (`ORDER_STATUS` of provider/api/schemas/order.ts). After Paid (not
 * shown by the spec): Paid -> Ready For Production (at once, or at the hold date) -> In Production
 * (+1 h) -> Mailed (at the production estimate of the chosen speed) -> Complete (when the last
 * piece's delivery window has passed). "Needs Edits" is stored as the one status "Edits Needed".
 */

/** Production time from "Ready For Production" to mailing, per speed (sandbox days). */
export const PRODUCTION_DAYS: Record<string, number> = {
  Normal: 3,
  ExpeditedFaster: 2,
  ExpeditedFastest: 1,
  HailTrace: 3,
};
export const IN_PRODUCTION_AFTER_MS = 60 * 60 * 1000;

/** Carrier transit, in days after mailing: the delivery window per postage type. */
export const TRANSIT_DAYS: Record<string, { min: number; max: number }> = {
  Standard: { min: 3, max: 5 },
  FirstClass: { min: 1, max: 3 },
};

/** Prices in dollars. Per piece unless named otherwise. */
export const PRICES = {
  /** Base price per piece by product; a product not listed costs `defaultBase`. */
  base: {
    "Handwritten Postcard": 2.5,
    "Handwritten Letter": 3.25,
    "Printed Postcard": 0.95,
  } as Record<string, number>,
  defaultBase: 1.5,
  doubleSided: 0,
  extraText: 0,
  postage: { Standard: 0, FirstClass: 0.2 } as Record<string, number>,
  speed: { Normal: 0, ExpeditedFaster: 0.1, ExpeditedFastest: 0.25 } as Record<string, number>,
};

/** Global handwriting styles of the service (the only fonts order creation accepts). */
export const HANDWRITING_STYLES = [
  "Casual Cursive",
  "Neat Print",
  "Bold Marker",
  "Elegant Script",
  "Quick Note",
];
/** Uploaded-font URLs expire after 7 days (spec limit). */
export const FONT_URL_TTL_MS = 7 * 24 * 3600 * 1000;

/** Asynchronous work, in sandbox seconds after the request that started it. */
export interface Timings {
  /** Checkout to settlement. Default 2: demos and end-to-end tests wait little. */
  settlementSeconds: number;
  /** `pollAfterSeconds` of the checkout result. */
  pollAfterSeconds: number;
  /** `settlementExpectedWithinSeconds` of the checkout result. */
  settlementExpectedWithinSeconds: number;
  /** QR scan records are applied this long after acceptance. */
  scanSeconds: number;
  /** Conversion uploads are matched (status leaves Processing) this long after upload. */
  conversionMatchSeconds: number;
  /** A conversion marked for deletion is gone this long after the delete. */
  conversionDeleteSeconds: number;
  /** Proximity discovery finishes this long after the request. */
  proximitySeconds: number;
}

export const DEFAULT_TIMINGS: Timings = {
  settlementSeconds: 2,
  pollAfterSeconds: 1,
  settlementExpectedWithinSeconds: 10,
  scanSeconds: 1,
  conversionMatchSeconds: 3,
  conversionDeleteSeconds: 3,
  proximitySeconds: 3,
};

/** The account tiers: `basic` lacks automations and conversions (403, no body). (brief) */
export type Tier = "basic" | "pro";
export type PaymentBehaviour = "succeed" | "fail" | "hang";
