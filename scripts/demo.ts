/**
 * The README's main job (`npm run demo`): applies the project's Pulumi program with `pulumi up`
 * on a local file backend in a temporary folder, offline, prints a short summary, then destroys
 * what it made and removes the temporary state.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand } from "@pulumi/pulumi/automation";

const repoRoot = path.resolve(__dirname, "../..");

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-demo-"));
  const stackFile = path.join(repoRoot, "Pulumi.demo.yaml");
  try {
    const pulumiBin = process.env.PATH?.split(path.delimiter)
      .map((dir) => path.join(dir, "pulumi"))
      .find((candidate) => fs.existsSync(candidate));
    if (!pulumiBin) throw new Error("the pulumi CLI is not on PATH: run the demo with `npm run demo`");
    const pulumiCommand = await PulumiCommand.get({ root: path.dirname(path.dirname(pulumiBin)) });
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "demo", workDir: repoRoot },
      {
        pulumiCommand,
        envVars: {
          PULUMI_BACKEND_URL: `file://${scratch}`,
          PULUMI_HOME: path.join(scratch, "home"),
          PULUMI_CONFIG_PASSPHRASE: "directmail-demo",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        },
      },
    );
    console.log(`== pulumi up (pulumi ${pulumiCommand.version?.toString()}, state in ${scratch})`);
    const up = await stack.up({ onOutput: (out) => process.stdout.write(out) });
    console.log("\n== summary");
    console.log(`result: ${up.summary.result}`);
    for (const [name, output] of Object.entries(up.outputs)) {
      console.log(`  ${name}: ${output.secret ? "[secret]" : JSON.stringify(output.value)}`);
    }
    console.log("\n== pulumi destroy");
    const destroy = await stack.destroy();
    console.log(`result: ${destroy.summary.result}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(stackFile, { force: true });
  }
}

main().catch((error) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
