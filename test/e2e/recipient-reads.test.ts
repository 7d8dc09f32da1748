/**
 * How often a run reads a campaign's recipients file. A CampaignFolder's program reads it once (the
 * loader checks it and tells the online check what it needs) and hands what it found to the
 * provider's `check` with the file's signature (`programRead`): a no-change `pulumi preview` reads
 * it in the program alone, whatever the list's size; an `up` that changes the list reads it twice
 * in the provider: to plan, and to send the rows it appends. Counted by a test-only preload
 * (support/count-opens.cjs) in every process the run starts, through NODE_OPTIONS.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml, recipientsCsv } from "./support/campaign";
import { upOnce } from "./support/one-command";
import { createTestStack, type TestStack } from "./support/pulumi";

let sb: TestSandbox;
let t: TestStack;
let apiKey: string;
let logDir: string;
let log: string;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-e2e-opens-"));
  log = path.join(logDir, "opens.log");
  t = await createTestStack("campaign-folder", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
    },
    env: {
      NODE_OPTIONS: `--require ${path.join(__dirname, "support", "count-opens.cjs")}`,
      DIRECTMAIL_COUNT_OPENS_OF: `${path.sep}people.csv`,
      DIRECTMAIL_COUNT_OPENS_LOG: log,
    },
  });
  fs.mkdirSync(path.join(t.workDir, "camps"));
  fs.writeFileSync(path.join(t.workDir, "camps", "people.csv"), recipientsCsv([1, 2, 3, 4, 5]));
  fs.writeFileSync(
    path.join(t.workDir, "camps", "spring.yaml"),
    campaignYaml("spring", templateId, { file: "people.csv" }),
  );
}, 120_000);

afterAll(async () => {
  await t?.dispose();
  await sb?.close();
  if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
});

/** The reads of people.csv logged since the last call, per process: "program" or "provider", and how many. */
function readsByProcess(): string[] {
  const lines = fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [];
  fs.rmSync(log, { force: true });
  const byPid = new Map<string, { kind: string; reads: number }>();
  for (const line of lines) {
    const [pid = "", ...command] = line.split(" ");
    const kind = command.join(" ").includes("dynamic-provider") ? "provider" : "program";
    const entry = byPid.get(pid) ?? { kind, reads: 0 };
    entry.reads += 1;
    byPid.set(pid, entry);
  }
  return [...byPid.values()].map((e) => `${e.kind} ${e.reads}`).sort();
}

it("a no-change preview reads the recipients file once, in the program; an up of a changed list twice more, in the provider", {
  timeout: 240_000,
}, async () => {
  const up = await upOnce(t);
  expect(up.summary.result).toBe("succeeded");
  readsByProcess();
  const preview = await t.stack.preview({ expectNoChanges: true });
  expect(preview.changeSummary).toEqual({ same: 5 });
  expect(readsByProcess()).toEqual(["program 1"]);

  // One more row: the provider reads the file for the plan (its diff; the update takes that read),
  // and again as it sends the rows to append (it holds no row).
  fs.writeFileSync(path.join(t.workDir, "camps", "people.csv"), recipientsCsv([1, 2, 3, 4, 5, 6]));
  const changed = await upOnce(t);
  expect(changed.summary.resourceChanges).toMatchObject({ update: 1 });
  expect(readsByProcess()).toEqual(["program 1", "provider 2"]);
  // The service holds the six: the update sent what the provider read.
  const stateFile = t.readStateFile();
  // What the program read is for check alone: its figures and its signature, which names the
  // file's absolute path, are in no resource's inputs or outputs (the state file as stored).
  const text = JSON.stringify(stateFile.checkpoint);
  expect(text).not.toMatch(/"programRead":\{/);
  expect(text).not.toContain(JSON.stringify(path.join(t.workDir, "camps", "people.csv")).slice(1, -1));
  const resources = stateFile.checkpoint.checkpoint.latest.resources as {
    type: string;
    outputs?: { orderId?: number };
  }[];
  const orderId = resources.find((r) => r.type.endsWith(":Order"))?.outputs?.orderId as number;
  const client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  const live: unknown[] = [];
  for await (const r of client.iterateRecipients(orderId)) live.push(r);
  await client.close();
  expect(live).toHaveLength(6);
});
