/**
 * How a failing hook reaches the user: once, as the error of its resource, with no stack trace for
 * a refusal or a service error, and with its stack (to be reported) for a bug. Every message and
 * every check failure passes through the text cleaner (text.ts) here, the one way out of the hooks:
 * on one line (oneLine), but for a refusal made of lines and a bug's stack (terminalSafe).
 */
import { DirectMailError } from "../api/errors";
import { SettingsError } from "../settings";
import { oneLine, terminalSafe } from "../text";
import { packageVersion } from "../version";
import { unreachableService } from "./context";
import { FailedAfterEffect, UserError } from "./user-error";

/**
 * What the engine is sent when a hook fails. The engine shows its message under the resource, and
 * that is the one place it should appear: @pulumi/pulumi's dynamic-provider host also prints every
 * error of check, diff, read and delete on stderr as `${e}: ${e.stack}`, which the engine passes
 * through to the user (the message twice more, and a stack trace full of machine paths). So the
 * error handed to the host prints as one fixed line, which `console.error` drops.
 */
class ReportedError extends Error {
  /** With `properties`: the resource exists with that state (the host sends an init failure). */
  id?: string;
  properties?: Record<string, unknown>;
  reasons?: string[];

  /**
   * `message` as the user reads it: what it quotes of the service or a file cannot drive the
   * terminal, and only a message of several lines by design (`lines`) keeps its line feeds.
   */
  constructor(message: string, lines = false) {
    super(lines ? terminalSafe(message) : oneLine(message));
    this.stack = "";
  }

  override toString(): string {
    return HOST_TEXT;
  }
}

const HOST_TEXT = "[directmail] failed; the error is shown under the resource";
/** What the host prints for a ReportedError. */
const HOST_LINE = `${HOST_TEXT}: `;

let hostLineDropped = false;

function dropHostLine(): void {
  if (hostLineDropped) return;
  hostLineDropped = true;
  const print = console.error;
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && args[0] === HOST_LINE) return;
    print(...args);
  };
}

/** Check failures as the user reads them: each reason on one line, cleaned as every error is. */
export function reportedFailures<F extends { reason: string }>(failures: readonly F[]): F[] {
  return failures.map((failure) => ({ ...failure, reason: oneLine(failure.reason) }));
}

/** A refusal (UserError), a setting that cannot be used or a service error: the message alone. Anything else is a bug: with its stack. */
export function reported(thrown: unknown, kind: string, hook: string): Error {
  dropHostLine();
  const error = unreachableService(thrown);
  if (error instanceof FailedAfterEffect) {
    // @pulumi/pulumi's host sends an error with an id as "created, but failed": the engine keeps
    // its properties in the state and fails the update.
    const failed = new ReportedError(error.message);
    failed.id = error.id;
    failed.properties = error.outputs;
    failed.reasons = [failed.message];
    return failed;
  }
  if (error instanceof UserError) return new ReportedError(error.message, error.lines);
  if (error instanceof DirectMailError || error instanceof SettingsError)
    return new ReportedError(error.message);
  const detail = error instanceof Error ? (error.stack ?? `${error}`) : String(error);
  return new ReportedError(
    `pulumi-directmail ${packageVersion()} failed unexpectedly in ${kind}.${hook}. This is a bug; please ` +
      `report it with the text below.\n${detail}`,
    true,
  );
}
