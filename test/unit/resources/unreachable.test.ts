/**
 * An unreachable service, as the provider reports it: the first connection that never reached the
 * service says so with what to do (for a local address, how to start the sandbox); every later
 * one, and every later client, fails at once with a short line. Other errors pass unchanged.
 */
import { describe, expect, it } from "vitest";
import { NetworkError } from "../../../provider/api/errors";
import { configure, context, unreachableService } from "../../../provider/resources/context";
import { resolveSettings } from "../../../provider/settings";

const refused = (sent = false) =>
  new NetworkError(
    "POST /v1/order: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4010)",
    { operationId: "createOrder", method: "POST", path: "/v1/order" },
    sent,
    "ECONNREFUSED",
  );

describe("an unreachable service", () => {
  it("at the default local address: once with how to start the sandbox, then a short line, and no client", () => {
    configure(resolveSettings(undefined, { DIRECTMAIL_API_KEY: "sbx_key" }));
    expect((unreachableService(refused()) as Error).message).toBe(
      "POST /v1/order: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:4010). Nothing answers " +
        "at http://127.0.0.1:4010 (the default base URL): start the local sandbox with `npx directmail sandbox --seed demo`, " +
        "then run the command again.",
    );
    const short =
      "Not sent: http://127.0.0.1:4010 did not answer earlier in this run (see the first error about it).";
    expect((unreachableService(refused()) as Error).message).toBe(short);
    expect(() => context.client()).toThrow(short);
  });

  it("at a remote address: what to check", () => {
    const config = new Map([["directmail:baseUrl", "https://api.directmail.example"]]);
    configure(resolveSettings({ get: (key) => config.get(key) }, { DIRECTMAIL_API_KEY: "key" }));
    expect((unreachableService(refused()) as Error).message).toMatch(
      /\. Nothing answers at https:\/\/api\.directmail\.example \(directmail:baseUrl\): check directmail:baseUrl and this machine's network, then run the command again\.$/,
    );
  });

  it("a connection that failed after the request was sent, or any other error, is not this", () => {
    configure(
      resolveSettings(undefined, { DIRECTMAIL_BASE_URL: "http://localhost:4999", DIRECTMAIL_API_KEY: "k" }),
    );
    const sent = refused(true);
    expect(unreachableService(sent)).toBe(sent);
    const other = new Error("boom");
    expect(unreachableService(other)).toBe(other);
    expect(context.client()).toBeDefined();
  });
});
