/**
 * Errors a caller can act on: one class per condition the spec names, and the factories that pick
 * the class and word the message (`fromResponse` for an error status, the outcome-unknown ones for
 * requests that are not safe to repeat). Every error carries the operation, method, path, status,
 * `errorCode`, the service's `errors` messages and the order id where there is one. None ever
 * contains the API key: every text from the service goes through the transport's `redact` first
 * (the service could echo the key back in a message). What a message quotes of the service is on
 * one line, its control characters escaped (text.ts oneLine).
 */
import type { z } from "zod";
import { oneLine } from "../../text";
import type { EndpointDef } from "../endpoints";
import * as S from "../schemas";
import type { Failure } from "./retry";

export interface ErrorDetails {
  operationId: string;
  method: string;
  /** Request path without query string, e.g. `/v1/order/12/checkout`. */
  path: string;
  status?: number | undefined;
  errorCode?: string | undefined;
  errors?: readonly string[] | undefined;
  orderId?: number | undefined;
  /** Attempts made, including the one that failed. */
  attempts?: number | undefined;
  cause?: unknown;
}

export class DirectMailError extends Error {
  override name = "DirectMailError";
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly errors: readonly string[];
  readonly orderId: number | undefined;
  readonly attempts: number;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.operationId = details.operationId;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.errorCode = details.errorCode;
    this.errors = details.errors ?? [];
    this.orderId = details.orderId;
    this.attempts = details.attempts ?? 1;
  }

  /** Whether repeating the same call later may succeed (rate limits, server and network errors of reads). */
  get retryable(): boolean {
    return false;
  }
}

/** Base of every error that comes from an HTTP response with an error status. */
export class DirectMailHttpError extends DirectMailError {
  override name = "DirectMailHttpError";
  declare readonly status: number;
}

/** 400: the request was invalid (the service's messages say which field). */
export class ValidationError extends DirectMailHttpError {
  override name = "ValidationError";
}

/**
 * The request failed validation in the client, before anything was sent. `issues` name each field
 * by its path (`recipients[3].address.zipCode: ...`). Nothing reached the service.
 */
export class RequestValidationError extends DirectMailError {
  override name = "RequestValidationError";
  constructor(
    readonly issues: readonly string[],
    details: ErrorDetails,
  ) {
    super(`${details.operationId}: invalid request: ${issues.join("; ")}`, { ...details, errors: issues });
  }
}

/** 400 on an order whose status does not allow the operation (append, deletes, preview, checkout). */
export class InvalidStatusError extends DirectMailHttpError {
  override name = "InvalidStatusError";
}

/** 401: the API key is missing or invalid. */
export class UnauthenticatedError extends DirectMailHttpError {
  override name = "UnauthenticatedError";
}

/** 402 `INSUFFICIENT_BALANCE`: `autoBill: false` and the balance does not cover the order. Nothing was charged. */
export class InsufficientBalanceError extends DirectMailHttpError {
  override name = "InsufficientBalanceError";
}

/** 403 (no body): the account's subscription tier lacks the feature this operation needs. */
export class ForbiddenError extends DirectMailHttpError {
  override name = "ForbiddenError";
  constructor(
    message: string,
    details: ErrorDetails,
    /** The feature the operation needs, when the endpoint table names one. */
    readonly feature: string | undefined,
  ) {
    super(message, details);
  }
}

/** 404: the id does not exist or is not accessible (a deleted order behaves as nonexistent). */
export class NotFoundError extends DirectMailHttpError {
  override name = "NotFoundError";
}

/** 422: the integration order rejected the recipient; `reasonCode` says why. */
export class IntegrationRecipientRejectedError extends DirectMailHttpError {
  override name = "IntegrationRecipientRejectedError";
  readonly reasonCode: string | undefined;
  constructor(
    message: string,
    details: ErrorDetails,
    readonly result: S.IntegrationRecipientResult | undefined,
  ) {
    super(message, details);
    this.reasonCode = result?.reasonCode ?? details.errorCode;
  }
}

/** 429: too many requests. `retryAfterMs` is the service's `Retry-After`, when it sent one. */
export class RateLimitedError extends DirectMailHttpError {
  override name = "RateLimitedError";
  constructor(
    message: string,
    details: ErrorDetails,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, details);
  }
  override get retryable(): boolean {
    return true;
  }
}

/** 5xx: the service failed. */
export class ServerError extends DirectMailHttpError {
  override name = "ServerError";
  override get retryable(): boolean {
    return true;
  }
}

/** Any other unexpected status (e.g. 405, 409), or a body that cannot be read as the envelope. */
export class UnexpectedResponseError extends DirectMailHttpError {
  override name = "UnexpectedResponseError";
}

/**
 * A success response whose body does not match the schema. For an operation with side effects the
 * request did take effect; do not repeat it blindly.
 */
export class ResponseValidationError extends DirectMailError {
  override name = "ResponseValidationError";
  constructor(
    readonly issues: readonly string[],
    details: ErrorDetails,
  ) {
    super(
      `${details.method} ${details.path}: the ${details.status} response does not match the expected shape: ${issues.join("; ")}`,
      details,
    );
  }
}

/** The connection failed. `sent` says whether the request may have reached the service. */
export class NetworkError extends DirectMailError {
  override name = "NetworkError";
  constructor(
    message: string,
    details: ErrorDetails,
    /** False only when the request certainly never left (connection refused, DNS, connect timeout). */
    readonly sent: boolean,
    /** The system or undici error code (`ECONNRESET`, `UND_ERR_SOCKET`, ...). */
    readonly code: string | undefined,
  ) {
    super(message, details);
  }
  override get retryable(): boolean {
    return true;
  }
}

/** No complete response within the per-attempt timeout. */
export class TimeoutError extends NetworkError {
  override name = "TimeoutError";
}

/** The caller's `AbortSignal` cancelled the call. */
export class AbortedError extends DirectMailError {
  override name = "AbortedError";
}

/**
 * A request that is not safe to repeat may have reached the service, and no answer came back
 * (network failure, timeout, cancellation, or for a checkout a 5xx). It was not retried. Whether it
 * took effect is unknown: `howToCheck` says how to find out before trying again.
 */
export class OutcomeUnknownError extends DirectMailError {
  override name = "OutcomeUnknownError";
  constructor(
    message: string,
    details: ErrorDetails,
    readonly howToCheck: string,
  ) {
    super(message, details);
  }
}

/**
 * The checkout may have been accepted (and the account charged) without the answer reaching us.
 * Never send it again blindly: read the order's status first. `Payment Needed`, `Paid` or later
 * means it was accepted; `Draft` or `Edits Needed` means it was not (or its payment failed), and a
 * new checkout is safe.
 */
export class CheckoutOutcomeUnknownError extends OutcomeUnknownError {
  override name = "CheckoutOutcomeUnknownError";
}

/** What `fromResponse` needs to know about an error response whose body has been read. */
export interface ErrorResponse {
  def: EndpointDef;
  details: ErrorDetails & { status: number };
  /** The body as text ("" when there was none or it could not be read). */
  body: string;
  retryAfterMs: number | undefined;
  /** `errorCode`s that mean "invalid status for the operation" on a 400. */
  invalidStatusCodes: ReadonlySet<string>;
  /** Cuts the API key out of a text from the service. */
  redact: (text: string) => string;
}

/** The error for an error status: the one place that maps statuses to error classes and messages. */
export function fromResponse({
  def,
  details,
  body,
  retryAfterMs,
  invalidStatusCodes,
  redact,
}: ErrorResponse): DirectMailError {
  const status = details.status;
  let envelope: Partial<z.output<typeof S.ErrorEnvelope>> | undefined;
  if (body.trim() !== "") {
    try {
      const data: unknown = JSON.parse(body);
      const parsed = S.ErrorEnvelope.safeParse(data);
      // A body that is JSON but not a complete envelope still gives what it has.
      envelope = parsed.success ? parsed.data : lenientEnvelope(data);
    } catch {
      envelope = undefined;
    }
  }
  const errors = (envelope?.errors ?? []).map((m) => redact(String(m)));
  const errorCode = envelope?.errorCode ? oneLine(envelope.errorCode) : undefined;
  const full: ErrorDetails = { ...details, errorCode: errorCode ?? undefined, errors };
  const what = `${def.method} ${details.path}`;
  const said = errors.length
    ? oneLine(errors.join("; "))
    : envelope
      ? "no message"
      : body.trim()
        ? `body: ${snippet(redact(body))}`
        : "no body";
  const code = errorCode ? ` ${errorCode}` : "";
  const head = `${what} → ${status}${code}: ${said}`;
  const subject = describeId(def, details.path);

  switch (true) {
    case status === 400: {
      const invalidStatus =
        (errorCode !== undefined && invalidStatusCodes.has(errorCode)) ||
        (errorCode === undefined && def.statusSensitive === true && errors.some((m) => /status/i.test(m)));
      return invalidStatus
        ? new InvalidStatusError(
            `${head}. ${subject ?? "The order"} is in a status that does not allow ${def.operationId}; read its status (listOrders) and act on it.`,
            full,
          )
        : new ValidationError(head, full);
    }
    case status === 401:
      return new UnauthenticatedError(
        `${what} → 401${code}: the API key is missing or invalid (GET /v1/me confirms a key).`,
        full,
      );
    case status === 402:
      return new InsufficientBalanceError(
        `${head}. autoBill is false and the available balance does not cover ${subject ?? "the order"}; ` +
          "nothing was charged. Add funds or check out with autoBill true.",
        full,
      );
    case status === 403:
      return new ForbiddenError(
        def.feature
          ? `${what} → 403: the account's subscription tier lacks the '${def.feature}' feature that ${def.operationId} needs.`
          : `${what} → 403: the account's subscription tier does not allow ${def.operationId}.`,
        full,
        def.feature,
      );
    case status === 404:
      return new NotFoundError(
        `${head}${subject ? `. ${subject} does not exist or is not accessible` : ""}.`.replace(/\.\.$/, "."),
        full,
      );
    case status === 422: {
      const result = S.IntegrationRecipientResult.safeParse(envelope?.payload);
      const reason = result.success ? result.data.reasonCode : undefined;
      return new IntegrationRecipientRejectedError(
        `${what} → 422${reason ? ` ${reason}` : code}: ${result.success ? oneLine(redact(result.data.errorMessage)) : said}`,
        full,
        result.success ? result.data : undefined,
      );
    }
    case status === 429:
      return new RateLimitedError(
        `${head}${retryAfterMs !== undefined ? ` (retry after ${Math.ceil(retryAfterMs / 1000)} s)` : ""}`,
        full,
        retryAfterMs,
      );
    case status >= 500:
      return new ServerError(head, full);
    default:
      return new UnexpectedResponseError(head, full);
  }
}

/**
 * The error for a request that is not safe to repeat and whose outcome is unknown (the retry
 * policy's `outcomeUnknown` decided so): it says what happened and how to check.
 */
export function outcomeUnknownError(
  def: EndpointDef,
  failure: Failure,
  cause: DirectMailError,
  details: ErrorDetails,
): OutcomeUnknownError {
  const how = howToCheck(def, details);
  const happened =
    failure.kind === "status"
      ? `the service answered ${failure.status}, which does not say whether it took effect`
      : "the request may have reached the service, but no answer came back";
  const full = { ...details, status: cause.status, errorCode: cause.errorCode, errors: cause.errors, cause };
  if (def.retry === "checkout") {
    return new CheckoutOutcomeUnknownError(
      `checkout of order ${details.orderId}: outcome unknown: ${happened} (${cause.message}). ${how}`,
      full,
      how,
    );
  }
  return new OutcomeUnknownError(
    `${def.method} ${details.path}: outcome unknown: ${happened}, and it is not safe to repeat blindly (${cause.message}). ${how}`,
    full,
    how,
  );
}

/**
 * The error for a 2xx whose body cannot be read. For a checkout it still means accepted: say so,
 * and never invite a repeat.
 */
export function unreadableSuccessError(
  def: EndpointDef,
  details: ErrorDetails,
  issues: string[],
): DirectMailError {
  const error = new ResponseValidationError(issues, details);
  if (def.retry !== "checkout") return error;
  const how = howToCheck(def, details);
  return new CheckoutOutcomeUnknownError(
    `checkout of order ${details.orderId}: the service answered ${details.status} (accepted) but the response ` +
      `could not be read. ${how}`,
    { ...details, cause: error },
    how,
  );
}

/** Whitespace-flattened start of a body, for a message. */
export function snippet(text: string): string {
  const flat = oneLine(text.replace(/\s+/g, " ").trim());
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function howToCheck(def: EndpointDef, details: ErrorDetails): string {
  return def.howToCheck?.(details.orderId) ?? "Check the service before repeating the request.";
}

/** "Order 12", "Integration order 3", ...: the id the path names, for a message. */
function describeId(def: EndpointDef, path: string): string | undefined {
  if (!def.idKind) return undefined;
  const id = path.match(/\/(\d+)(?:-by-proximity)?(?:\/|$)/)?.[1];
  return id ? `${def.idKind[0]?.toUpperCase()}${def.idKind.slice(1)} ${id}` : undefined;
}

function lenientEnvelope(data: unknown): Partial<z.output<typeof S.ErrorEnvelope>> | undefined {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const o = data as Record<string, unknown>;
  return {
    errorCode: typeof o.errorCode === "string" ? o.errorCode : undefined,
    errors: Array.isArray(o.errors) ? o.errors.filter((m): m is string => typeof m === "string") : [],
    payload: o.payload,
  };
}
