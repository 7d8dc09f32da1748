/**
 * The transport's contract: its options, a call's options and input, the event of one attempt,
 * the envelope fields besides the payload, and the reader of a 2xx response (transport.ts).
 */
import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { OperationId } from "../endpoints";
import type { ErrorDetails } from "./errors";
import type { RetryOptions } from "./retry";

export interface TransportOptions {
  /** Service base address, e.g. `http://127.0.0.1:4010` (paths start with `/v1`). */
  baseUrl: string;
  /** Sent as `X-API-KEY` on every call. Never logged, never part of an error message. */
  apiKey: string;
  /** Per-attempt timeout for JSON calls, connect to last body byte. Default 30 s. */
  timeoutMs?: number;
  /** Connect timeout. Default 10 s. */
  connectTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Most open connections per origin. Default 8. */
  connections?: number;
  /** A dispatcher to use instead of the client's own `Agent` (e.g. undici's `MockAgent`); not closed by `close()`. */
  dispatcher?: Dispatcher;
  /**
   * Path templates replacing the endpoint table's, per operation. Meant for the three the spec
   * does not show (`listTemplates`, `listFonts`, `getDeliveryStatus`), where a real deployment may differ.
   */
  paths?: Partial<Record<OperationId, string>>;
  /**
   * `errorCode`s that mean "invalid status for the operation" on a 400. The spec names none (it
   * speaks of "the standard 400 invalid-status error"); default `INVALID_ORDER_STATUS` (the
   * sandbox's, for every refusal by status, order delete included), `INVALID_STATUS`, and
   * `ORDER_NOT_DELETABLE_STATUS` (the reason code the spec lists for a refused delete, should a
   * deployment send it as `errorCode`).
   */
  invalidStatusErrorCodes?: readonly string[];
  /** Receives one event per attempt. Events never carry headers or the key. */
  onEvent?: (event: RequestEvent) => void;
  /** Extra `User-Agent` text. */
  userAgent?: string;
  /** Jitter source, for tests. */
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
}

/** One attempt of one operation, for logs and metrics. */
export interface RequestEvent {
  operationId: string;
  method: string;
  path: string;
  attempt: number;
  /** HTTP status, when a response arrived. */
  status?: number;
  durationMs: number;
  /** Error class name when the attempt failed. */
  error?: string;
  /** Milliseconds until the next attempt, when one follows. */
  retryInMs?: number;
}

/** The envelope fields besides `payload` that some callers need (warnings of a checkout, conversion validation). */
export interface EnvelopeInfo {
  errorCode: string | null | undefined;
  errors: string[];
  warnings: string[];
  hasErrors: boolean;
  hasWarnings: boolean;
  /** The envelope's free-form map (e.g. an id the service reports beside the payload). */
  metadata: Record<string, unknown>;
  /** The service's clock when it answered (its `Date` header); undefined when it gave none. */
  answeredAt: Date | undefined;
}

export interface CallInput {
  pathParams?: Record<string, string | number>;
  query?: Record<string, unknown>;
  /** Wire names of query parameters whose name differs from the schema's (`{ search: "q" }`). */
  queryNames?: Record<string, string>;
  body?: unknown;
  /** Validates the body with this instead of the endpoint table's schema. */
  bodySchema?: z.ZodType;
  /**
   * The body as JSON text (or its UTF-8 bytes), sent as is instead of `body`: for a large body the
   * caller built from values valid by construction, so that it is not copied by validation and
   * serialized again.
   */
  serializedBody?: string | Uint8Array;
  /** A path template instead of the endpoint table's (e.g. one of its `aliases`). */
  path?: string;
}

/** Turns a 2xx response into the result; it must consume the body. */
export type Reader<T> = (response: Dispatcher.ResponseData, details: ErrorDetails) => Promise<T>;
