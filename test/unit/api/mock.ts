/** A MockAgent-backed fake of the service for unit tests of the client. */
import { MockAgent } from "undici";
import { DirectMailClient, type DirectMailClientOptions } from "../../../provider/api/client";
import { API_KEY, ORIGIN } from "./fixtures";

export const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

export function mockService() {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const client = (options: Partial<DirectMailClientOptions> = {}) =>
    new DirectMailClient({
      baseUrl: ORIGIN,
      apiKey: API_KEY,
      dispatcher: agent,
      retry: { baseDelayMs: 1, maxDelayMs: 4 },
      ...options,
    });
  /** Intercepts `method path` (query ignored for matching). */
  const on = (method: string, path: string) =>
    pool.intercept({ method, path: (p: string) => p.split("?")[0] === path });
  const calls = () => agent.getCallHistory()?.calls() ?? [];
  return { agent, pool, client, on, calls, close: () => agent.close() };
}

/** An error as undici raises it for a connection problem, with a code. */
export function netError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}
