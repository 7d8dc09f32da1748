/**
 * The README's main job (`npm run demo`): starts the sandbox with a seeded demo account on a free
 * port, applies the example campaigns (examples/campaigns) with `pulumi up` on a local file backend
 * in a temporary folder, prints a short summary, writes one proof PDF, and shuts the sandbox down.
 * Offline and free: nothing leaves the machine.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";
import { DirectMailClient } from "../provider/api/client";
import type { CampaignOutputs } from "../provider/campaign/folder";
import { startSandboxProcess } from "./sandbox-process";

const repoRoot = path.resolve(__dirname, "../..");

interface SeededSandbox {
  url: string;
  apiKey: string;
  child: ChildProcess;
}

async function startSandbox(dataDir: string): Promise<SeededSandbox> {
  const { url, first, child } = await startSandboxProcess(["--seed", "demo", "--data", dataDir]);
  return { url, apiKey: first.apiKey as string, child };
}

function pulumiOnPath(): string {
  const bin = (process.env.PATH ?? "")
    .split(path.delimiter)
    .map((dir) => path.join(dir, "pulumi"))
    .find((candidate) => fs.existsSync(candidate));
  if (!bin) throw new Error("the pulumi CLI is not on PATH: run the demo with `npm run demo`");
  return bin;
}

/** A campaign's stack output, as the project's program (a CampaignFolder) exports it. */
type CampaignSummary = CampaignOutputs;

function printSummary(outputs: Record<string, { value: unknown }>): void {
  console.log("\n== summary");
  for (const [name, { value }] of Object.entries(outputs)) {
    const c = value as CampaignSummary;
    console.log(`${name}: order ${c.orderId}, ${c.orderStatus}`);
    console.log(`  recipients: ${c.accepted} accepted, ${c.dropped} dropped`);
    for (const [reason, count] of Object.entries(c.dropReasons ?? {})) {
      const rows = (c.droppedSample ?? []).filter((d) => d.reason === reason).map((d) => d.row);
      console.log(`    ${count} × ${reason}${rows.length ? ` (row ${rows.join(", ")})` : ""}`);
    }
    if (c.checkoutStatus) {
      console.log(
        `  checkout: charged ${c.totalCharges ?? "nothing (an earlier checkout recorded)"}; the order is now ${c.checkoutStatus}`,
      );
    } else {
      console.log("  checkout: none yet (a draft for review; add `checkout:` to the file to pay)");
    }
  }
}

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-demo-"));
  const stackFile = path.join(repoRoot, "Pulumi.demo.yaml");
  console.log("== starting the sandbox with the demo account");
  const sandbox = await startSandbox(path.join(scratch, "sandbox"));
  console.log(`sandbox at ${sandbox.url}`);
  const client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
  try {
    const pulumiCommand = await PulumiCommand.get({ root: path.dirname(path.dirname(pulumiOnPath())) });
    fs.mkdirSync(path.join(scratch, "state"), { recursive: true });
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "demo", workDir: repoRoot },
      {
        pulumiCommand,
        envVars: {
          PULUMI_BACKEND_URL: `file://${path.join(scratch, "state")}`,
          PULUMI_HOME: path.join(scratch, "home"),
          PULUMI_CONFIG_PASSPHRASE: "directmail-demo",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        },
      },
    );
    await stack.setAllConfig({
      "directmail:baseUrl": { value: sandbox.url },
      "directmail:apiKey": { value: sandbox.apiKey, secret: true },
    });
    console.log(`\n== pulumi up of examples/campaigns (pulumi ${pulumiCommand.version?.toString()})`);
    const up = await stack.up({ onOutput: (out) => process.stdout.write(out) });
    printSummary(up.outputs as Record<string, { value: unknown }>);

    const first = Object.values(up.outputs)[0]?.value as CampaignSummary | undefined;
    if (first) {
      const proof = path.join(repoRoot, "out", "demo-proof.pdf");
      fs.mkdirSync(path.dirname(proof), { recursive: true });
      const { bytes } = await client.downloadProof(first.orderId, proof);
      console.log(
        `\nproof of order ${first.orderId} (first mailable recipient): ${path.relative(process.cwd(), proof)} (${bytes} bytes)`,
      );
    }
  } finally {
    await client.close();
    sandbox.child.kill("SIGTERM");
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(stackFile, { force: true });
  }
}

main().catch((error) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
