/**
 * Every choice the sandbox makes where the spec says "not shown", in one place. docs/sandbox.md
 * lists the same; the design brief fixes the ones marked (brief).
 */

/** (brief) Paging of `GET /v1/order` and the recipient listing. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

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
