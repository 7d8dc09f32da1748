/**
 * The stack's settings as a Pulumi program sees them: where a mistake in them is first found, and
 * shown as the SDK shows a RunError, its message alone, once, without a stack trace.
 */
import * as pulumi from "@pulumi/pulumi";
import { SettingsError, unknownSettingKey } from "../settings";

/** The running stack's name, for the commands a message gives; undefined outside a Pulumi program. */
export function runningStack(): string | undefined {
  try {
    return pulumi.getStack() || undefined;
  } catch {
    return undefined;
  }
}

/** `error` as the program shows it: a SettingsError becomes a RunError of its message alone. */
export function asProgramError(error: unknown): unknown {
  if (!(error instanceof SettingsError)) return error;
  const failure = new pulumi.RunError(error.message);
  // A failure after the program returned is printed as its stack: the message alone, then too.
  failure.stack = error.message;
  return failure;
}

/** The keys of the running stack's configuration; none outside a program or for a stack with no key. */
function stackKeys(): string[] {
  try {
    return Object.keys(pulumi.runtime.allConfig());
  } catch {
    // The SDK's config parsing throws when the stack sets no key at all: then no key is unknown.
    return [];
  }
}

let keysChecked = false;

/**
 * Fails the program when the stack sets a `directmail:` key that is not a setting (a misspelled
 * `directmail:monthlyBudget` would otherwise be no budget at all). Once a process: every resource
 * and data function calls it, and the stack's keys do not change while the program runs.
 */
export function checkProgramSettingKeys(): void {
  if (keysChecked) return;
  keysChecked = true;
  const unknown = unknownSettingKey(stackKeys(), { stack: runningStack() });
  if (unknown) throw asProgramError(unknown);
}
