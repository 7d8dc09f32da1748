/**
 * State compatibility under the real pulumi CLI: a stack deployed by the package as it was before
 * its resources were laid out a folder each (commit RELEASE, built from git) keeps working once the
 * project has the current package: its stored providers load
 * `pulumi-directmail/dist/provider/resources/implementation.js` from the project, and `refresh`,
 * `up` (no change) and `destroy` run on the state the earlier package wrote.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recipientsCsv } from "./support/campaign";
import { createTestStack, type TestStack } from "./support/pulumi";

/** The last commit with the earlier layout (every resource one file beside implementation.ts). */
const RELEASE = "664f12f6a9360d123100b18ff99d275b63c86382";
const repoRoot = path.resolve(__dirname, "../..");
const IMPLEMENTATION = "pulumi-directmail/dist/provider/resources/implementation.js";

/**
 * The package at RELEASE, built under .pulumi-test/ (once): its dependencies resolve to this
 * repository's node_modules, so the program and both packages share one @pulumi/pulumi.
 */
function buildRelease(): string {
  const dir = path.join(repoRoot, ".pulumi-test", `release-${RELEASE.slice(0, 12)}`);
  if (fs.existsSync(path.join(dir, "dist/provider/resources/implementation.js"))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const archive = execFileSync(
    "git",
    ["archive", RELEASE, "package.json", "tsconfig.json", "provider", "sandbox"],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, stdio: "inherit" });
  return dir;
}

let sb: TestSandbox;
let apiKey: string;
let client: DirectMailClient;
let t: TestStack;
let release: string;
let orderId: number;

/**
 * What the stored providers load: the package as the project resolves it, as thin-provider.ts does,
 * in a process of its own (this one caches resolutions).
 */
const installed = () =>
  execFileSync(
    process.execPath,
    [
      "-e",
      `const m = require("node:module"); const fs = require("node:fs");
       process.stdout.write(fs.realpathSync(m.createRequire(process.cwd() + "/x.js").resolve(${JSON.stringify(IMPLEMENTATION)})));`,
    ],
    { cwd: t.workDir, encoding: "utf8" },
  );

/** Installs `dir` as the project's pulumi-directmail. */
function install(dir: string): void {
  const link = path.join(t.workDir, "node_modules", "pulumi-directmail");
  fs.rmSync(link, { force: true });
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(dir, link, "dir");
}
const nonSame = (summary: Record<string, number> | undefined) =>
  Object.keys(summary ?? {}).filter((op) => op !== "same");

beforeAll(async () => {
  release = buildRelease();
  sb = await startTestSandbox({ log: () => {} });
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  const { id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });
  t = await createTestStack("campaign", {
    config: {
      "directmail:baseUrl": { value: sb.url },
      "directmail:apiKey": { value: apiKey, secret: true },
      templateId: { value: String(templateId) },
      recipientsFile: { value: "recipients.csv" },
      keyColumn: { value: "firstName" },
      checkout: { value: "true" },
    },
  });
  fs.writeFileSync(path.join(t.workDir, "recipients.csv"), recipientsCsv([1, 2, 3]));
  // A project of its own, as a user's is (inside this repository the package would otherwise
  // resolve to this repository itself), which installs the earlier package.
  fs.writeFileSync(path.join(t.workDir, "package.json"), '{ "name": "state-compat", "private": true }\n');
  install(release);
}, 300_000);

afterAll(async () => {
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("a stack deployed by the earlier layout, served by the current package", {
  timeout: 300_000,
}, () => {
  it("the earlier package deploys an order, its recipients and a paid checkout", async () => {
    expect(installed()).toBe(path.join(release, "dist/provider/resources/implementation.js"));
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    orderId = up.outputs.orderId?.value;
    expect(up.outputs.accepted?.value).toBe(3);
    expect(["Paid", "Ready For Production"]).toContain(up.outputs.checkoutStatus?.value);
    const providers = t
      .readStateFile()
      .checkpoint.checkpoint.latest.resources.filter((r: any) => r.type.startsWith("pulumi-nodejs:dynamic/"))
      .map((r: any) => r.inputs.__provider as string);
    expect(providers).toHaveLength(3);
    for (const provider of providers) expect(provider).toContain(IMPLEMENTATION);
  });

  it("with the current package installed, refresh finds nothing changed", async () => {
    install(repoRoot);
    expect(installed()).toBe(path.join(repoRoot, "dist/provider/resources/implementation.js"));
    expect(fs.existsSync(path.join(repoRoot, "dist/provider/resources/registry.js"))).toBe(true);
    const refresh = await t.stack.refresh();
    expect(refresh.summary.result).toBe("succeeded");
    expect(nonSame(refresh.summary.resourceChanges)).toEqual([]);
  });

  it("preview and up show no change, and nothing is sent that changes the order", async () => {
    const preview = await t.stack.preview();
    expect(nonSame(preview.changeSummary)).toEqual([]);
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(nonSame(up.summary.resourceChanges)).toEqual([]);
    expect(await client.getOrder(orderId)).toMatchObject({ recipientCount: 3 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
  });

  it("destroy finishes: the paid order leaves the stack and stays at the service, paid once", async () => {
    const status = (await client.getOrder(orderId))?.orderStatus;
    const destroy = await t.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.stdout).toContain(`[directmail] Order ${orderId} is "${status}": it stays at the service`);
    expect(await client.getOrder(orderId)).toMatchObject({ orderStatus: status, recipientCount: 3 });
    expect(paidCheckouts(await sb.control.ledger(apiKey), orderId)).toBe(1);
    expect(t.readStateFile().checkpoint.checkpoint.latest.resources ?? []).toEqual([]);
  });
});
