/**
 * OrderRecipients at scale: a large list read in bounded memory, and a one-recipient change to a
 * list of many pages in a handful of requests. The memory test runs the compiled provider (dist/)
 * in a child process under a small heap limit, which a provider holding a full object per
 * recipient runs out of.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../../support/sandbox";
import { configuredProvider, countingRequests, type Provider, projectFolder } from "./support";

const repoRoot = path.resolve(__dirname, "../../..");
const implementation = path.join(repoRoot, "dist/provider/resources/implementation.js");

let sb: TestSandbox;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let recipients: Provider;
const dir = projectFolder("directmail-recipients-scale-");

beforeAll(async () => {
  sb = await startTestSandbox();
  ({ apiKey } = await sb.control.createAccount({ balance: 1000 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  recipients = await configuredProvider("OrderRecipients", sb, apiKey);
});
afterAll(async () => {
  await client?.close();
  await sb?.close();
});

/** A CSV of the recipients numbered in `ns`, each one accepted by the sandbox. */
function csv(name: string, ns: Iterable<number>): string {
  const lines = ["firstName,lastName,address1,city,state,zipCode"];
  for (const n of ns) lines.push(`Ada${n},Lovelace,${n} Main St,Springfield,IL,62701`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("OrderRecipients at scale", () => {
  it("a one-recipient change to a list of 12,000 (13 listing pages) takes at most 5 requests", async () => {
    const orderId = (await client.createOrder({ templateId })).orderId;
    const before = await recipients.check({}, { orderId, file: csv("12k.csv", range(0, 12_000)) });
    const { outs } = await recipients.create(before.inputs);
    expect(outs.acceptedCount).toBe(12_000);
    const after = await recipients.check(outs, {
      orderId,
      file: csv("12k-changed.csv", [...range(1, 12_000), 50_000]),
    });
    expect(await recipients.diff(String(orderId), outs, after.inputs)).toEqual({
      changes: true,
      deleteBeforeReplace: true,
    });
    const { result, requests } = await countingRequests(() =>
      recipients.update(String(orderId), outs, after.inputs),
    );
    expect(result.outs).toMatchObject({ declaredCount: 12_000, acceptedCount: 12_000 });
    const ops = requests.map((r) => r.operationId);
    expect(ops.filter((op) => op === "appendRecipients")).toHaveLength(1);
    expect(ops.filter((op) => op === "deleteRecipients")).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(5);
    const live = [];
    for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 }))
      live.push(r.personal.firstName);
    expect(live).toHaveLength(12_000);
    expect(live).not.toContain("Ada0");
    expect(live).toContain("Ada50000");
  }, 120_000);

  it("checks a CSV file of 100,000 recipients in a provider process whose heap is limited to 40 MiB", async () => {
    // The engine's form of the inputs holds the count as __declaredCount (engine-inputs.ts).
    // A check that kept a full object per recipient (as the provider once did) runs out of heap.
    const file = csv("100k.csv", range(0, 100_000));
    const script = [
      `const provider = require(${JSON.stringify(implementation)}).providerFor("OrderRecipients");`,
      `provider.check({}, { orderId: 1, file: ${JSON.stringify(file)} })`,
      "  .then((r) => console.log(JSON.stringify({ failures: r.failures, declaredCount: r.inputs.__declaredCount })));",
    ].join("\n");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--max-old-space-size=40", "-e", script],
      {
        encoding: "utf8",
      },
    );
    expect(JSON.parse(stdout)).toEqual({ declaredCount: 100_000 });
  }, 180_000);

  it("keeps V8's young generation at its size while it reads a list of 100,000 recipients", async () => {
    // Left to itself, V8 grows the young generation of a process that allocates this long to its
    // limit (a semi-space of 32 MiB here) and keeps it committed: a fifth of the peak RSS of a
    // 1,000,000 sync. The engine starts the provider without flags, so the provider sets the growth.
    const file = csv("100k-young.csv", range(0, 100_000));
    const script = [
      'const v8 = require("node:v8");',
      'const youngBytes = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;',
      `const provider = require(${JSON.stringify(implementation)}).providerFor("OrderRecipients");`,
      "const before = youngBytes();",
      `provider.check({}, { orderId: 1, file: ${JSON.stringify(file)} })`,
      "  .then((r) => console.log(JSON.stringify({ before, after: youngBytes(), declaredCount: r.inputs.__declaredCount })));",
    ].join("\n");
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { encoding: "utf8" });
    const { before, after, declaredCount } = JSON.parse(stdout);
    expect(declaredCount).toBe(100_000);
    expect(after).toBeLessThanOrEqual(before);
    expect(after).toBeLessThan(32 * 1024 * 1024);
  }, 180_000);
});
