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
import { unsafeCharsIn } from "../../support/unsafe-chars";

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

  it("proof --recipient takes a name or an address line, as status does, and refuses one the order lacks", async () => {
    for (const who of ["Ada Lovelace", "1 Main St"]) {
      const { stdout } = await run("proof", String(orderId), "--recipient", who, "--out", "named.pdf");
      expect(stdout).toMatch(/^wrote named\.pdf \(\d+ bytes\)\n/);
      expect(fs.readFileSync(path.join(dir, "named.pdf")).subarray(0, 5).toString()).toBe("%PDF-");
    }
    await expect(run("proof", String(orderId), "--recipient", "Grace Hopper")).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        `directmail: order ${orderId} has no recipient "Grace Hopper": give a recipient's id, "First Last" as on ` +
        "the list, or its address line\n",
    });
  });

  it("a refused key and a service that does not answer say where the key and the address came from", async () => {
    const as = (extra: NodeJS.ProcessEnv) =>
      promisify(execFile)(process.execPath, [bin, "whoami"], { env: { ...env, ...extra }, cwd: dir });
    await expect(as({ DIRECTMAIL_API_KEY: "sbx_wrong" })).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "directmail: GET /v1/me → 401 UNAUTHENTICATED: the API key is missing or invalid (GET /v1/me confirms a key). " +
        `The service at ${sb.url} refused the API key from DIRECTMAIL_API_KEY. To use another key, set ` +
        "DIRECTMAIL_API_KEY=<key>; then run the command again.\n",
    });
    await expect(as({ DIRECTMAIL_BASE_URL: sb.url.replace("http://", "") })).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        `directmail: DIRECTMAIL_BASE_URL "${sb.url.replace("http://", "")}" has no scheme (http:// or https://): ` +
        `set DIRECTMAIL_BASE_URL=${sb.url}\n`,
    });
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

  it("prints what the service and the files say with the terminal's control characters shown as escapes", async () => {
    // A window title (OSC), a colour and a screen clear (CSI, also as C1), DEL, NUL and a bell.
    const hostile = (word: string) => `\u001b]0;owned\u0007\u001b[31m${word}\u009b2J\u007f\u0000\u0007`;
    // What the user reads instead: each control character as its escape, and nothing else changed.
    const shown = (word: string) => `\\u001b]0;owned\\u0007\\u001b[31m${word}\\u009b2J\\u007f\\u0000\\u0007`;
    const mallory = "\\u001b]8;;https://evil.example\\u001b\\Mallory\\u001b]8;;\\u001b\\";
    const { apiKey } = await sb.control.createAccount({
      email: "hostile@example.com",
      firstName: hostile("Eve"),
      lastName: "\u001b]8;;https://evil.example\u001b\\Mallory\u001b]8;;\u001b\\",
      company: hostile("Evil Corp"),
    });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: hostile("Postcard") });
    const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
    const order = await client.createOrder({ templateId });
    await client.appendRecipients(order.orderId, [
      newOrderRecipient({
        address: { address1: "7 Elm St", city: "Springfield", state: "IL", zipCode: "62701" },
        personal: { firstName: hostile("Ada"), lastName: "Lovelace" },
      }),
    ]);
    await client.close();
    const as = { ...env, DIRECTMAIL_BASE_URL: sb.url, DIRECTMAIL_API_KEY: apiKey };
    const runAs = (...args: string[]) =>
      promisify(execFile)(process.execPath, [bin, ...args], { env: as, cwd: dir });

    const whoami = await runAs("whoami");
    expect(whoami.stdout.split("\n")[0]).toBe(
      `hostile@example.com (${shown("Eve")} ${mallory}, ${shown("Evil Corp")}) at ${sb.url}`,
    );
    expect(unsafeCharsIn(whoami.stdout)).toEqual([]);

    const status = await runAs("status", String(order.orderId), "--recipient", "7 Elm St");
    const { recipients } = await new DirectMailClient({ baseUrl: sb.url, apiKey }).listRecipients(
      order.orderId,
    );
    expect(status.stdout).toBe(
      [
        "ORDER  CAMPAIGN  STATUS  PAID  SCANS  CHARGED   TRANSACTIONS  DELIVERY",
        `${order.orderId}  -         Draft   -     0      0.00 USD  0             1 piece, not mailed`,
        `order ${order.orderId}, recipient ${recipients[0]?.id} (${shown("Ada")} Lovelace): not mailed yet`,
        "",
      ].join("\n"),
    );

    // A template's name, quoted in a problem of a campaign file.
    fs.writeFileSync(
      path.join(dir, "hostile.yaml"),
      [
        "apiVersion: directmail/v1",
        "kind: Campaign",
        "metadata: { name: hostile }",
        "spec:",
        "  order: { templateId: 1 }",
        "  recipients:",
        '    inline: [{ firstName: Ada, lastName: Lovelace, address1: 1 Main St, city: Springfield, state: IL, zipCode: "62701" }]',
        "",
      ].join("\n"),
    );
    await expect(runAs("validate", "--online", "hostile.yaml")).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        `hostile.yaml:5:24: spec.order.templateId: 1 is not a template of this account; use one of the account's templates: ${templateId} "${shown("Postcard")}"\n` +
        `checked 1 campaign file: 0 valid, 1 with problems (1 problem), against the account at ${sb.url}\n`,
    });
    // A failure's one line, quoting what it was given.
    const named = "\u001b]0;owned\u0007\u001b[31mtaken\u009b2J\u007f";
    fs.writeFileSync(path.join(dir, named), "");
    await expect(runAs("init", named)).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr: `directmail: ${"\\u001b]0;owned\\u0007\\u001b[31mtaken\\u009b2J\\u007f"} is a file; give a folder for the campaign repository\n`,
    });
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
