/**
 * Refusals of the service: a status, the spec's `errorCode` and messages that name what to fix. The
 * HTTP layer's error handler writes them as the envelope.
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
