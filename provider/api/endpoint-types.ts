/**
 * The type of an entry of the endpoint table (endpoints.ts), which explains each field: its
 * method and path, its retry class, what its `{id}` names, the feature it needs, its schemas and
 * its response.
 */
import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/**
 * How an operation may be retried (see docs/retry-policy.md for the reasons per operation).
 * - `read`: no side effect; retried on network errors, timeouts, 429 and 5xx.
 * - `idempotent`: repeating it leaves the same state (deletes); retried like a read.
 * - `retryable-500`: not idempotent, but the spec calls its 500 retryable (integration recipient
 *   add); retried on 429, 5xx and failures before the request was sent, never after a network
 *   failure once sent.
 * - `unsafe`: a repeat would create or count something twice; retried only on 429 and when the
 *   request certainly never reached the server (connection refused, DNS, connect timeout).
 * - `checkout`: charges money; retried only when the request certainly never reached the server.
 *   Any later failure (network, timeout, abort, 5xx) is reported as an unknown outcome.
 */
export type RetryClass = "read" | "idempotent" | "retryable-500" | "unsafe" | "checkout";

/** What the `{id}` of a path names; errors call it "Order 12", "Integration order 3", ... */
export type IdKind = "order" | "integration order" | "conversion";

/** Subscription feature an operation needs; a tier without it gets 403 with no body. */
export type Feature = "automations" | "conversions";

export type ResponseKind<P extends z.ZodType = z.ZodType, E extends z.ZodType = z.ZodType> =
  | { kind: "json"; payload: P; envelope: E }
  | { kind: "pdf" };

export interface EndpointDef {
  /** Entry number in the spec's endpoint table. */
  entry: number;
  operationId: string;
  method: HttpMethod;
  /** Path template; `{id}` and `{recipient}` are integers. */
  path: string;
  /** Further paths with identical behaviour. */
  aliases?: readonly string[];
  /** True where the spec does not show the path and the design brief's assumption is used. */
  assumedPath?: boolean;
  tag: string;
  summary: string;
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: ResponseKind;
  /** Every operation sends `X-API-KEY`; kept explicit for the OpenAPI security section. */
  auth: "apiKey";
  feature?: Feature;
  retry: RetryClass;
  /**
   * Error statuses the spec (or the design brief) names for this operation. {@link errorStatusesOf}
   * adds the ones that follow from its shape; the OpenAPI document lists that union.
   */
  errorStatuses: readonly number[];
  /** What the path's `{id}` names. An order id is also the `orderId` of the operation's errors. */
  idKind?: IdKind;
  /** The body's `orderId` is the `orderId` of the operation's errors (the path names no order). */
  orderIdInBody?: true;
  /**
   * A 400 of this operation may be the spec's "invalid status" error (the order's status does not
   * allow it), also when the service sends no `errorCode`.
   */
  statusSensitive?: true;
  /**
   * For an operation that is not safe to repeat (every class but `read` and `idempotent`): how to
   * find out whether a request whose outcome is unknown took effect. A unit test checks that each
   * such operation has it.
   */
  howToCheck?: (orderId: number | undefined) => string;
}
