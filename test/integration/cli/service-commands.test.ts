/** `directmail whoami` and `directmail proof` as a user runs them (the built bin against a sandbox). */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { newOrderRecipient } from "../../../provider/api/recipients";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";

const bin = path.resolve(__dirname, "../../../bin/directmail.js");
let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
let orderId: number;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-cli-"));

function run(...args: string[]) {
  return promisify(execFile)(process.execPath, [bin, ...args], { env, cwd: dir });
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  const { apiKey } = await sb.control.createAccount({ email: "reviewer@example.com" });
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  ({ orderId } = await client.createOrder({ templateId }));
  await client.appendRecipients(orderId, [
    newOrderRecipient({
      address: { address1: "1 Main St", city: "Springfield", state: "IL", zipCode: "62701" },
      personal: { firstName: "Ada", lastName: "Lovelace" },
    }),
  ]);
  await client.close();
  env = { ...process.env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: apiKey };
});
afterAll(async () => {
  await sb?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("directmail whoami and proof", () => {
  it("whoami names the key's account and the service, never the key", async () => {
    const { stdout } = await run("whoami");
    expect(stdout).toContain("reviewer@example.com");
    expect(stdout).toContain(sb.url);
    expect(stdout).not.toContain(env.DIRECTMAIL_API_KEY as string);
  });

  it("proof writes the order's proof PDF", async () => {
    const { stdout } = await run("proof", String(orderId), "--out", "draft.pdf");
    expect(stdout).toMatch(/wrote draft\.pdf \(\d+ bytes\)/);
    expect(fs.readFileSync(path.join(dir, "draft.pdf")).subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("proof writes into a folder that does not exist yet, creating it", async () => {
    const { stdout } = await run(
      "proof",
      String(orderId),
      "--out",
      path.join("proofs", "spring", "draft.pdf"),
    );
    expect(stdout).toMatch(/wrote proofs\/spring\/draft\.pdf \(\d+ bytes\)/);
    expect(fs.readFileSync(path.join(dir, "proofs/spring/draft.pdf")).subarray(0, 5).toString()).toBe(
      "%PDF-",
    );
  });

  it("fails with the service's reason and exit code 1 for an unknown order, and asks for a key when none is set", async () => {
    await expect(run("proof", "999999")).rejects.toMatchObject({ code: 1 });
    env = { ...env, DIRECTMAIL_API_KEY: "" };
    await expect(run("whoami")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("set DIRECTMAIL_API_KEY"),
    });
  });
});
