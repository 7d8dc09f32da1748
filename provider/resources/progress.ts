/**
 * What the user sees while a hook runs. Since Pulumi 3.146 the engine passes a dynamic provider's
 * stderr through to the user (the Pulumi log API does not reach the engine from the provider
 * process), so progress goes to stderr, one line each, never with a key or a recipient's details.
 */
export function progress(subject: string, message: string): void {
  process.stderr.write(`[directmail] ${subject}: ${message}\n`);
}
