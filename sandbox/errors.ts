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
  ) {
    super(messages.join("; "));
  }
}

export const badRequest = (errorCode: string, ...messages: string[]) =>
  new ApiError(400, errorCode, messages);

export const notFound = (what: string, id: string | number) =>
  new ApiError(404, "NOT_FOUND", [`${what} ${id} was not found`]);

/** The "standard 400 invalid-status error" of the spec's state table. */
export const invalidStatus = (orderId: number, status: string, operation: string, allowed: string) =>
  new ApiError(
    400,
    "INVALID_ORDER_STATUS",
    [`order ${orderId} is in status '${status}'; ${operation} is allowed only in ${allowed}`],
    null,
    [{ field: "status", value: status, message: `${operation} is allowed only in ${allowed}` }],
  );

/** An empty 403: the spec gives entitlement failures no body. */
export class ForbiddenNoBody extends Error {
  readonly statusCode = 403;
}
