/**
 * Where the transport gets undici from: loaded with the first request, through the lighter loader
 * the process's entry installs (provider/runtime/undici.ts), else whole.
 */
import type { Dispatcher } from "undici";

/** What the transport uses of undici: its `Agent`, and a request through a dispatcher. */
export interface UndiciParts {
  Agent: typeof import("undici").Agent;
  request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}

/**
 * undici, loaded with the first request rather than with the package: a program that only
 * declares resources, and a provider process whose plan sends nothing, never pay for loading it.
 * The process's entry installs a lighter loader (provider/runtime/undici.ts: the two modules used,
 * not undici's index); without it, or where it finds undici laid out otherwise, undici is loaded whole.
 */
let undici: UndiciParts | undefined;
let lighterLoader: (() => UndiciParts | undefined) | undefined;

/** Called once by provider/runtime/ at the process's entry. */
export function loadUndiciWith(load: () => UndiciParts | undefined): void {
  lighterLoader ??= load;
}

/** undici, loaded now if it was not yet. */
export const undiciParts = (): UndiciParts => {
  if (undici) return undici;
  undici = lighterLoader?.() ?? wholeUndici();
  return undici;
};

function wholeUndici(): UndiciParts {
  const whole = require("undici") as typeof import("undici");
  return { Agent: whole.Agent, request: (dispatcher, options) => dispatcher.request(options) };
}
