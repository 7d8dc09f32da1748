/**
 * Personal data stays out of what people read and what the stack stores, under the real pulumi CLI
 * with the repository's own program (a CampaignFolder) against the sandbox:
 *
 * - a `keyColumn` of personal data (`lastName`) fails `directmail validate` and `pulumi preview`
 *   once, with the exact message at its line, and nothing is created at the service;
 * - a recipients file with a bad ZIP code (`5974O`), and a name typed into the state column: after
 *   `pulumi up` the service has dropped both, and the state (`pulumi stack export`), the stack's
 *   outputs, `directmail status` and the review (review.md, review.json) give the reasons with the
 *   field named and the value left out, summed by code in the review's summary; the state keeps
 *   the index of key hashes encrypted (a secret output), which the review still reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Review } from "../../cli/review/model";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { directmailIn, gitIn } from "./support/commands";
import { upOnce } from "./support/one-command";
import { createCampaignsStack, type TestStack } from "./support/pulumi";

const CSV = [
  "customerId,firstName,lastName,address1,city,state,zipCode",
  "C-1,Grace,Hopper,1 Compiler Way,Arlington,VA,22202",
  "C-2,Alan,Turing,7 Enigma Road,Portland,OR,5974O",
  // The last name typed into the state column, and the ZIP code again: one reason quotes both.
  "C-3,Katherine,Johnson,3 Orbit Drive,Madison,Johnson,5974O",
  "",
].join("\n");
/** The values the service rejected and quoted in its reasons. */
const REJECTED = ["5974O", "Johnson"];
const ZIP_REASON = "ADDRESS_NOT_VALID: address.zipCode: not a ZIP or ZIP+4 code";
/** Read in full: the provider checked each quoted value against the recipient the service echoed. */
const STATE_REASON =
  "ADDRESS_NOT_VALID: address.state: not a US state or territory; address.zipCode: not a ZIP or ZIP+4 code";
const PERSONAL_KEY =
  '"lastName" is personal data and would show in reviews and state; ' +
  "use a column that identifies the customer, such as a customer id";

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let t: TestStack;
let env: Record<string, string>;

const campaign = (keyColumn: string) => campaignYaml("spring", templateId, { file: "spring.csv", keyColumn });
const write = (file: string, text: string) => fs.writeFileSync(path.join(t.workDir, file), text);
const read = (file: string) => fs.readFileSync(path.join(t.workDir, file), "utf8");
const directmail = (...args: string[]) => directmailIn({ cwd: t.workDir, env }, ...args);
const git = (...args: string[]) => gitIn(t.workDir, ...args);

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ email: "personal-data@example.com" }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createCampaignsStack("personal-data", { baseUrl: sb.url, apiKey });
  // The environment names no service: the CLI reads the stack's configuration.
  env = { ...t.env, DIRECTMAIL_BASE_URL: "http://127.0.0.1:9", DIRECTMAIL_API_KEY: "" };
  write("campaigns/spring.csv", CSV);
  write(".gitignore", "review-*/\n");
}, 120_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("personal data under the pulumi CLI", { timeout: 300_000 }, () => {
  it("a keyColumn of personal data fails validate and the preview once, at its line; nothing is created", async () => {
    write("campaigns/spring.yaml", campaign("lastName"));
    const problem = `campaigns/spring.yaml:10:16: spec.recipients.keyColumn: ${PERSONAL_KEY}`;

    expect(await directmail("validate", "campaigns")).toEqual({
      code: 1,
      stdout: "",
      stderr: `${problem}\nchecked 1 campaign file: 0 valid, 1 with problems (1 problem)\n`,
    });

    let output = "";
    await expect(t.stack.preview({ onOutput: (text) => (output += text) })).rejects.toThrow();
    const diagnostics = output.slice(output.indexOf("Diagnostics:"), output.indexOf("\nResources:"));
    expect(diagnostics.trim().split("\n")).toEqual([
      "Diagnostics:",
      "  pulumi:pulumi:Stack (directmail-campaigns-e2e):",
      "    error: the campaign files have problems; nothing was changed:",
      `    ${problem}`,
    ]);
    expect(output.split(PERSONAL_KEY)).toHaveLength(2);
    expect((await client.listOrders()).totalCount).toBe(0);
  });

  it("the service's reasons for a bad ZIP code and a name in the state column never show the values", async () => {
    write("campaigns/spring.yaml", campaign("customerId"));
    const up = await upOnce(t);
    const orderId = up.outputs.spring?.value.orderId as number;

    // The service dropped both: only Grace Hopper is on the order.
    const listed = (await client.listRecipients(orderId)).recipients;
    expect(listed.map((r) => r.personal.lastName)).toEqual(["Hopper"]);

    const reasons = { [STATE_REASON]: 1, [ZIP_REASON]: 1 };
    const sample = [
      { row: 3, reason: ZIP_REASON },
      { row: 4, reason: STATE_REASON },
    ];
    // What the up left in the state file: the program's outputs, each resource's, as stored.
    const stored = t.readStateFile();
    expect(up.outputs.spring?.value).toMatchObject({
      accepted: 1,
      dropped: 2,
      dropReasons: reasons,
      droppedSample: sample,
    });
    const recipientsState = stored.checkpoint.checkpoint.latest.resources.find(
      (r: { type: string }) => r.type === "pulumi-nodejs:dynamic/directmail:OrderRecipients",
    );
    expect(recipientsState.outputs).toMatchObject({ dropReasons: reasons, droppedSample: sample });
    // The index of the recipients' key hashes is a secret output, encrypted with the stack's
    // passphrase: without it, nobody can test guessed customer ids against the state.
    expect(recipientsState.outputs.index).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: expect.any(String),
    });
    // An index in clear is its version, then gzip's bytes in base64 (`H4sI`).
    expect(stored.text).not.toMatch(/"v\d\.H4sI/);

    const status = await directmail("status");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${orderId}  spring    Draft`);

    await git("init", "-q", "-b", "main");
    await git("add", "-A");
    await git("commit", "-q", "-m", "spring as a draft");
    const review = await directmail("review", "--base", "main", "--out", "review-1");
    expect(review.code).toBe(0);
    const markdown = read("review-1/review.md");
    const json = JSON.parse(read("review-1/review.json")) as Review;
    expect(markdown.split("\n").filter((line) => line.startsWith("| **"))).toEqual([
      "| **spring** | no change | +0 −0 ~0 | 1 / 2 (ADDRESS_NOT_VALID 2) after the change; now 1 / 2 (ADDRESS_NOT_VALID 2) | — |  |",
    ]);
    expect(markdown).toContain(
      `- On the draft now (current): 1 accepted, 2 dropped (\`${STATE_REASON}\` 1, \`${ZIP_REASON}\` 1)`,
    );
    expect(json.campaigns[0]?.drops).toEqual({
      accepted: 1,
      dropped: 2,
      reasons: [
        { reason: STATE_REASON, count: 1 },
        { reason: ZIP_REASON, count: 1 },
      ],
    });

    const shown = {
      // What `pulumi stack export` and `pulumi stack output` read: every resource's and the stack's outputs.
      "the stack's state file": stored.text,
      "directmail status": status.stdout + status.stderr,
      "directmail review": review.stdout + review.stderr,
      "review.md": markdown,
      "review.json": read("review-1/review.json"),
    };
    for (const [where, text] of Object.entries(shown))
      for (const value of REJECTED)
        expect(text.includes(`'${value}'`) || text.includes(value), where).toBe(false);
  });
});
