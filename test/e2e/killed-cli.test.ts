/**
 * A `pulumi up` killed with SIGKILL leaves no process behind: the language host, the program and
 * the dynamic provider notice that the engine is gone and exit within seconds. Every process of
 * the run is found through /proc by a marker in its environment (support/processes.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recipientsCsv } from "./support/campaign";
import { processesOfRun as processesOfRunMarked, spawnUp, waitFor } from "./support/processes";
import { createTestStack, type TestStack } from "./support/pulumi";

const MARKER = "DIRECTMAIL_E2E_RUN";

/** The live processes of this run. */
const processesOfRun = (run: string) => processesOfRunMarked(MARKER, run);

let sb: TestSandbox;
let t: TestStack | undefined;
const run = `killed-cli-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
});
afterAll(async () => {
  // A failed run must not leave its processes behind on the machine either.
  for (const p of processesOfRun(run)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  await t?.dispose();
  await sb?.close();
});

describe("pulumi up killed with SIGKILL", { timeout: 180_000 }, () => {
  it("leaves no language host, program or dynamic provider running", async () => {
    const { apiKey } = await sb.control.createAccount({ balance: 0 });
    const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
    t = await createTestStack("campaign", {
      config: {
        "directmail:baseUrl": { value: sb.url },
        "directmail:apiKey": { value: apiKey, secret: true },
        templateId: { value: String(templateId) },
        recipientsFile: { value: "recipients.csv" },
      },
      env: { [MARKER]: run },
    });
    fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([1, 2, 3]));
    // The order's creation hangs at the sandbox, so the update is surely under way when killed.
    await sb.control.addFault({
      method: "POST",
      path: "/v1/order",
      kind: "delay",
      delayMs: 30_000,
      times: 1,
    });

    const { cli, exited } = spawnUp(t);
    try {
      await waitFor("the order's creation to reach the sandbox", 120, async () =>
        (await sb.control.listFaults()).faults[0]?.fired === 1 ? true : undefined,
      );
      // The run's processes are found: the CLI, the language host and the program it runs, the
      // dynamic provider and the shell script that started it.
      const before = processesOfRun(run).map((p) => p.cmdline);
      const count = (pattern: RegExp) => before.filter((c) => pattern.test(c)).length;
      expect(count(/^pulumi up /), before.join("\n")).toBe(1);
      expect(count(/\/pulumi-language-nodejs /), before.join("\n")).toBe(1);
      expect(count(/^node .*\/@pulumi\/pulumi\/cmd\/run /), before.join("\n")).toBe(1);
      expect(count(/\/pulumi-resource-pulumi-nodejs /), before.join("\n")).toBe(1);
      expect(count(/^node .*\/@pulumi\/pulumi\/cmd\/dynamic-provider\//), before.join("\n")).toBe(1);
    } finally {
      cli.kill("SIGKILL");
      await exited;
    }

    const killedAt = Date.now();
    const left = await waitFor("the run's processes to exit", 5, async () => {
      const now = processesOfRun(run);
      return now.length === 0 ? now : undefined;
    }).catch(() => processesOfRun(run));
    expect(left.map((p) => p.cmdline)).toEqual([]);
    console.log(`every process of the killed run exited within ${Date.now() - killedAt} ms`);
  });
});
