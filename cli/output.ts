/**
 * Where the commands' messages go. A message may quote the service (a profile, a template's name,
 * an error) or a file (a campaign's name, a value): each line is written through `terminalSafe`,
 * so that what it quotes cannot drive the user's terminal.
 */
import { terminalSafe } from "../provider/text";

/** A result, on stdout. */
export function say(text: string): void {
  process.stdout.write(`${terminalSafe(text)}\n`);
}

/** A problem, progress or where the settings came from, on stderr. */
export function note(text: string): void {
  process.stderr.write(`${terminalSafe(text)}\n`);
}
