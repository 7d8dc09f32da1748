/**
 * Errors a caller can act on: one class per condition the spec names. Every error carries the
 * operation, method, path, status, `errorCode`, the service's `errors` messages and the order id
 * where there is one. None ever contains the API key: the client redacts it from every text it
 * puts in an error (the service could echo it back in a message).
 */
import type { IntegrationRecipientResult } from "./schemas";

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
    readonly result: IntegrationRecipientResult | undefined,
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
