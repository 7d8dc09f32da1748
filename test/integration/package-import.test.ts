/**
 * The README's three lines: `import { DirectMailClient } from "pulumi-directmail"` resolves to the
 * built package (as it does for a user's project) and calls `me()` against the sandbox.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

it('require("pulumi-directmail") gives the client, the resources and the campaign loader', async () => {
  const fromProject = createRequire(path.resolve(__dirname, "../../index.js"));
  const pkg = fromProject("pulumi-directmail");
  expect(fromProject.resolve("pulumi-directmail")).toMatch(/dist[/\\]provider[/\\]index\.js$/);
  for (const name of [
    "Order",
    "OrderRecipients",
    "Checkout",
    "AddressBookEntry",
    "Campaign",
    "loadCampaignsDir",
  ]) {
    expect(typeof pkg[name], name).toBe("function");
  }
  const { apiKey } = await sb.control.createAccount({ email: "readme@example.com" });
  const client = new pkg.DirectMailClient({ baseUrl: sb.url, apiKey });
  expect((await client.me()).email).toBe("readme@example.com");
  await client.close();
});
