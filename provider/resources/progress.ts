import { oneLine } from "../text";

/**
 * What the user sees while a hook runs. Since Pulumi 3.146 the engine passes a dynamic provider's
 * stderr through to the user (the Pulumi log API does not reach the engine from the provider
 * process), so progress goes to stderr, one line each, never with an API key, a name or an address
 * (a plan names a recipient by its key column value or its row only). A line is one line: what it
 * quotes of the service (a status, a name) cannot drive the terminal or start a line of its own.
 */
export function progress(subject: string, message: string): void {
  shown(`${PREFIX}${oneLine(subject)}: ${oneLine(message)}`);
}

/** Where progress lines go: stderr, unless the process serving the hooks shows them another way. */
let shown = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * Sends every progress line to `show` instead of stderr. The provider plugin does: the engine hides
 * a plugin's stderr (it shows only a dynamic provider's), so the plugin logs each line to the
 * engine under the resource it is about (plugin/engine-log.ts).
 */
export function showProgressWith(show: (line: string) => void): void {
  shown = show;
}

const PREFIX = "[directmail] ";

/**
 * The order a progress line is about, or undefined. The engine gives the lines of a dynamic
 * provider's stderr no URN (its hooks are not told theirs), so each line about an order names it
 * in its subject, as `order <id>` in any case ("Recipients of order 12", "Order 12 is \"Paid\"");
 * the review ties such a line to the campaign of that order by this, the one reading of the
 * format `progress` writes.
 */
export function orderOfProgress(line: string): number | undefined {
  if (!line.startsWith(PREFIX)) return undefined;
  const end = line.indexOf(": ", PREFIX.length);
  const subject = line.slice(PREFIX.length, end === -1 ? undefined : end);
  const id = /\border (\d+)\b/i.exec(subject)?.[1];
  return id === undefined ? undefined : Number(id);
}

/**
 * Says that a resource of an order past draft leaves the stack while the order stays at the service
 * as it is. Such an order is history (paid, in production): the service cannot delete it, and
 * removing it from the stack costs nothing and changes nothing. `what` completes the sentence.
 */
export function retired(orderId: number, status: string, what: string): void {
  progress(`Order ${orderId} is "${status}"`, what);
}
