/**
 * A refusal or failure that a hook reports on purpose. Its message is complete for the user (it
 * names the order, field or status and says what to do), so the provider boundary
 * (implementation.ts) sends the message alone, once, with no stack trace. Any other error is a bug
 * and is sent with its stack, to be reported.
 */
export class UserError extends Error {
  override name = "UserError";
}
