/**
 * What the user sees while a hook runs. Since Pulumi 3.146 the engine passes a dynamic provider's
 * stderr through to the user (the Pulumi log API does not reach the engine from the provider
 * process), so progress goes to stderr, one line each, never with an API key, a name or an address
 * (a plan names a recipient by its key column value or its row only).
 */
export function progress(subject: string, message: string): void {
  process.stderr.write(`[directmail] ${subject}: ${message}\n`);
}

/**
 * Says that a resource of an order past draft leaves the stack while the order stays at the service
 * as it is. Such an order is history (paid, in production): the service cannot delete it, and
 * removing it from the stack costs nothing and changes nothing. `what` completes the sentence.
 */
export function retired(orderId: number, status: string, what: string): void {
  progress(`Order ${orderId} is "${status}"`, what);
}
