/**
 * The provider boundary (providerFor): what a failing hook hands to @pulumi/pulumi's dynamic-provider
 * host. A refusal arrives as its message alone; a bug arrives with its stack, to be reported; and
 * the host's own `${e}: ${e.stack}` print of it is dropped, so the user reads it once.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configure } from "../../../provider/resources/context";
import { providerFor } from "../../../provider/resources/implementation";
import { resolveSettings } from "../../../provider/settings";
import { packageVersion } from "../../../provider/version";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, countingRequests } from "./support";

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What the host does with a hook's error (cmd/dynamic-provider/index.js, check/diff/read/delete). */
function printAsHost(error: any): void {
  console.error(`${error}: ${error.stack}`);
}

async function failure(run: () => Promise<unknown>): Promise<any> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the hook to fail");
}

const printed: unknown[][] = [];
const original = console.error;
let sb: TestSandbox;

beforeAll(async () => {
  // Before the first failure: the boundary wraps whatever console.error is then.
  console.error = (...args: unknown[]) => {
    printed.push(args);
  };
  sb = await startTestSandbox();
});
afterAll(async () => {
  console.error = original;
  await sb?.close();
});

describe("the provider boundary", () => {
  it("a refusal reaches the host as its message alone, and the host's print of it is dropped", async () => {
    const error = await failure(() => providerFor("Postcard").create({}));
    expect(error.message).toBe(
      'This version of pulumi-directmail has no resource kind "Postcard". Install the package version that ' +
        "created this resource, or remove it with `pulumi state delete`.",
    );
    expect(error.stack).toBe("");
    printAsHost(error);
    console.error("something else");
    expect(printed).toEqual([["something else"]]);
  });

  it("a service error reaches the host as its message alone", async () => {
    const { apiKey } = await sb.control.createAccount({});
    const order = await configuredProvider("Order", sb, apiKey);
    const error = await failure(() => order.create({ templateId: 999_999 }));
    expect(error.message).toBe(
      "POST /v1/order → 400 TEMPLATE_NOT_FOUND: templateId: 999999 is not a template of this account",
    );
    expect(error.stack).toBe("");
    printAsHost(error);
    expect(printed).toEqual([["something else"]]);
  });

  it("an unexpected error is a bug: it reaches the host with its stack and how to report it", async () => {
    printed.length = 0;
    // A state the hook cannot read (an index of null): the hook fails as a bug would.
    const error = await failure(() =>
      providerFor("OrderRecipients").diff(
        "7",
        { orderId: 7, identityField: "custom6", digest: "before", index: null },
        { orderId: 7, digest: "after" },
      ),
    );
    expect(error.message).toMatch(
      new RegExp(
        `^pulumi-directmail ${packageVersion().replace(/\./g, "\\.")} failed unexpectedly in OrderRecipients\\.diff\\. ` +
          "This is a bug; please report it with the text below\\.\\nTypeError: Cannot read properties of null",
      ),
    );
    expect(error.message).toMatch(/\n\s+at .*order-recipients/);
    printAsHost(error);
    expect(printed).toEqual([]);
  });

  it("a key from DIRECTMAIL_API_KEY that the service refuses fails the first hook naming that variable, and later hooks with a short line", async () => {
    configure(
      resolveSettings(undefined, { DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: "sbx_wrong_key" }),
    );
    const order = providerFor("Order");
    const first = await failure(() => order.check({}, { templateId: 1 }));
    expect(first.message).toBe(
      "GET /v1/me → 401 UNAUTHENTICATED: the API key is missing or invalid (GET /v1/me confirms a key). " +
        `The service at ${sb.url} refused the API key; the key came from DIRECTMAIL_API_KEY: set the right key ` +
        "there, or in the stack with `pulumi config set --secret directmail:apiKey <key>`, then run the command again.",
    );
    const later = await failure(() => order.check({}, { templateId: 1 }));
    expect(later.message).toBe(
      `Not sent: the check of ${sb.url} failed earlier in this run (see the first error about it).`,
    );
  });

  // Last: it configures the process's provider for an address where nothing listens.
  it("an unreachable service is reported once, saying how to start the sandbox; later hooks fail at once with a short line", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const order = await configuredProvider("Order", { url } as TestSandbox, "sbx_key");
    const first = await failure(() => order.create({ templateId: 1 }));
    expect(first.message).toBe(
      `GET /v1/me: could not connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}). Nothing ` +
        `answers at ${url} (directmail:baseUrl): start the local sandbox with \`npx directmail sandbox ` +
        `--port ${port}\`, then run the command again.`,
    );
    expect(first.stack).toBe("");
    const { result: later, requests } = await countingRequests(() =>
      failure(() => providerFor("OrderRecipients").delete("7", { orderId: 7, index: "v2." })),
    );
    expect(later.message).toBe(
      `Not sent: the check of ${url} failed earlier in this run (see the first error about it).`,
    );
    expect(requests).toEqual([]);
  });
});
