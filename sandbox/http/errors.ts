import { MAX_BODY_BYTES } from "../assumptions";
import { ApiError } from "../domain/errors";
import { allowedMethods } from "./paths";

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

/** The 405 of a path the table has with other methods (with `Allow`), or the 404 of any other. */
export function unknownRoute(method: string, url: string): ApiError {
  const path = (url.split("?")[0] ?? "").slice(0, 200);
  const allowed = allowedMethods(path);
  if (allowed.length === 0)
    return new ApiError(404, HTTP_ERROR_CODES[404], [`no operation at ${method} ${path}`]);
  return new ApiError(
    405,
    HTTP_ERROR_CODES[405],
    [`${method} is not an operation of ${path}; it answers ${allowed.join(", ")}`],
    null,
    [],
    { allow: allowed.join(", ") },
  );
}
