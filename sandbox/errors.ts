import { MAX_BODY_BYTES } from "./assumptions";

/**
 * Errors a handler throws to end a request with a given status. The server's error handler turns
 * them into the envelope (or into an empty body for 403, which the spec gives no body).
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    readonly messages: string[],
    /** Carried as the envelope's payload (422 integration rejections, order-delete reason codes). */
    readonly payload: unknown = null,
    readonly errorDetails: unknown[] = [],
    /** Headers of the answer besides the envelope's (the `Allow` of a 405). */
    readonly headers: Record<string, string> = {},
  ) {
    super(messages.join("; "));
  }
}

export const badRequest = (errorCode: string, ...messages: string[]) =>
  new ApiError(400, errorCode, messages);

export const notFound = (what: string, id: string | number) =>
  new ApiError(404, "NOT_FOUND", [`${what} ${id} was not found`]);

/**
 * The "standard 400 invalid-status error" of the spec's state table, for every operation refused by
 * the order's status (an order delete carries its reason code in `payload` besides).
 */
export const invalidStatus = (
  orderId: number,
  status: string,
  operation: string,
  allowed: string,
  payload: unknown = null,
) =>
  new ApiError(
    400,
    "INVALID_ORDER_STATUS",
    [`order ${orderId} is in status '${status}'; ${operation} is allowed only in ${allowed}`],
    payload,
    [{ field: "status", value: status, message: `${operation} is allowed only in ${allowed}` }],
  );

/** An empty 403: the spec gives entitlement failures no body. */
export class ForbiddenNoBody extends Error {
  readonly statusCode = 403;
}

/**
 * The `errorCode` of each status the HTTP layer answers by itself, before an operation runs. Every
 * error uses the envelope and one of these or an operation's own code: fastify's internal codes
 * (`FST_ERR_*`) never reach a client.
 */
export const HTTP_ERROR_CODES = {
  400: "INVALID_REQUEST",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  431: "HEADERS_TOO_LARGE",
} as const;

/** A body that is not JSON (the spec's only body format), naming the Content-Type it came with. */
export function unsupportedMediaType(contentType: string | undefined): ApiError {
  const shown = contentType ? `'${contentType.slice(0, 100)}'` : "missing";
  return new ApiError(415, HTTP_ERROR_CODES[415], [
    `Content-Type ${shown}: a body must be JSON, sent with Content-Type: application/json`,
  ]);
}

/** What the HTTP layer's own errors mean, by their code: the status and a message saying what to send. */
const HTTP_LAYER_ERRORS = new Map<string, [status: keyof typeof HTTP_ERROR_CODES, message: string]>([
  [
    "FST_ERR_CTP_BODY_TOO_LARGE",
    [413, `body: larger than ${MAX_BODY_BYTES} bytes, the most the service reads in one request`],
  ],
  ["FST_ERR_CTP_INVALID_CONTENT_LENGTH", [400, "body: its size does not match the Content-Length header"]],
  [
    "FST_ERR_BAD_URL",
    [400, "the path is not valid: each '%' must start the escape of a UTF-8 character (e.g. %20)"],
  ],
  ["HPE_HEADER_OVERFLOW", [431, "the request line and headers are larger than the service reads (16 KiB)"]],
  ["ERR_HTTP_REQUEST_TIMEOUT", [408, "the request did not arrive completely in time"]],
]);

/**
 * An error of the HTTP layer (fastify's body parsing and routing, Node's request parser) in the
 * envelope's terms: a documented code and a message that says what to send instead. An error it
 * does not know is a 400 `INVALID_REQUEST` quoting the parser.
 */
export function httpLayerError(error: { code?: string; message?: string }, contentType?: string): ApiError {
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return unsupportedMediaType(contentType);
  const [status, message] = HTTP_LAYER_ERRORS.get(error.code ?? "") ?? [
    400,
    `the request cannot be read: ${error.message || "malformed HTTP"}`,
  ];
  return new ApiError(status, HTTP_ERROR_CODES[status], [message]);
}
