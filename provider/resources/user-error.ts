/**
 * A refusal or failure that a hook reports on purpose. Its message is complete for the user (it
 * names the order, field or status and says what to do), so the provider boundary
 * (implementation.ts) sends the message alone, once, with no stack trace. Any other error is a bug
 * and is sent with its stack, to be reported.
 */
export class UserError extends Error {
  override name = "UserError";

  /**
   * `lines`: the message is several lines of its own (a list of a file's problems, each made with
   * text.ts's shown()); any other message is shown on one line, so that a service text it quotes
   * (a status, a name) cannot start a line that reads like the tool's.
   */
  constructor(
    message: string,
    readonly lines = false,
  ) {
    super(message);
  }
}

/**
 * A failure after the hook took effect at the service (a checkout that was charged): the engine
 * records `outputs` as the resource's state under `id`, and the update fails with the message, so
 * what happened is both kept and never taken for a success.
 */
export class FailedAfterEffect extends UserError {
  override name = "FailedAfterEffect";

  constructor(
    message: string,
    readonly id: string,
    readonly outputs: Record<string, unknown>,
  ) {
    super(message);
  }
}
