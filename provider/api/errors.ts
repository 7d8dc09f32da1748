/**
 * The error classes a caller can catch, under the path the package has always exported them from
 * (`dist/provider/api/errors.js`). They are defined, with the factories that choose among them, in
 * core/errors.ts; the factories stay internal.
 */
export {
  AbortedError,
  CheckoutOutcomeUnknownError,
  DirectMailError,
  DirectMailHttpError,
  type ErrorDetails,
  ForbiddenError,
  InsufficientBalanceError,
  IntegrationRecipientRejectedError,
  InvalidStatusError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthenticatedError,
  UnexpectedResponseError,
  ValidationError,
} from "./core/errors";
