/**
 * Benchmark part `object-store` (not a test): what keeping the state in an S3-compatible object
 * store costs a no-change `pulumi preview`, against the floor: the same stack on the file backend.
 * A campaign folder of 20 draft campaigns (an Order and its OrderRecipients of ten inline recipients
 * each) is deployed once on the file backend; its state is exported and imported into a stack of
 * the same name in a bucket of SeaweedFS (scripts/object-store-process.ts, on loopback), so both
 * hold the same checkpoint. Two identical copies of the project then run `pulumi preview
 * --expect-no-changes` in alternating rounds, one a backend, and the medians count. Both read the
 * service the same way (a sandbox in its own process); what differs is only where the engine reads
 * and writes the stack: the object store's requests (list, read, the checkpoint's history) in
 * place of files.
 *
 *   node dist/scripts/bench/object-store.js [--json] [--smoke] [--rounds 3]
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startObjectStore } from "../object-store-process";
import { benchCampaigns, campaignFile, median, type Program, repoRoot, timed } from "./engine-stack";
import { offlinePulumiEnv, startSandbox } from "./processes";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

const TARGET = 1.3;

const timedPulumi = (program: Program, args: string[]) =>
  timed(program, "pulumi", [...args, "--non-interactive", "--color", "never"]);

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const sizes = sizesOf("object-store", options);
  const count = sizes.campaigns;
  const rounds = options.smoke ? sizes.rounds : Number(args[args.indexOf("--rounds") + 1]) || sizes.rounds;
  // The store starts (about 7 s, most of it SeaweedFS's first volume allocation) while the file
  // backend's stack is deployed.
  const storeStarting = startObjectStore();
  storeStarting.catch(() => {}); // awaited below; a failure to start is thrown there
  const started = await startSandbox(["--seed", "demo"]);
  const sandbox = {
    url: started.url,
    apiKey: started.first.apiKey as string,
    templateId: started.first.templates.postcard as number,
  };
  // Under the repository, as the e2e programs are: `pulumi-directmail` resolves to this package.
  fs.mkdirSync(path.join(repoRoot, ".pulumi-test"), { recursive: true });
  const root = fs.mkdtempSync(path.join(repoRoot, ".pulumi-test", "bench-object-store-"));
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-object-store-"));
  const cleanUp = async () => {
    started.child.kill();
    await (await storeStarting.catch(() => undefined))?.stop();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(state, { recursive: true, force: true });
  };
  // Interrupted: the sandbox, the store and the folders go too.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void cleanUp().finally(() => process.exit(130));
    });
  }
  try {
    const fileEnv = offlinePulumiEnv(state, sandbox);
    const copy = (name: string, env: NodeJS.ProcessEnv): Program => {
      const dir = path.join(root, name);
      fs.mkdirSync(path.join(dir, "camps"), { recursive: true });
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        "name: bench-object-store\nruntime: nodejs\nmain: index.js\n",
      );
      fs.writeFileSync(
        path.join(dir, "index.js"),
        'const { CampaignFolder } = require("pulumi-directmail");\nnew CampaignFolder("campaigns", { dir: "camps" });\n',
      );
      for (const campaign of benchCampaigns(count, 0)) {
        fs.writeFileSync(
          path.join(dir, "camps", `${campaign.name}.yaml`),
          campaignFile(campaign, sandbox.templateId),
        );
      }
      return { name, dir, env };
    };
    const file = copy("file", fileEnv);
    await timedPulumi(file, ["stack", "init", "bench"]);
    await timedPulumi(file, ["up", "--yes", "--skip-preview"]);
    const exported = path.join(state, "bench.json");
    fs.writeFileSync(exported, (await timedPulumi(file, ["stack", "export", "--stack", "bench"])).stdout);
    const store = await storeStarting;
    const s3 = copy("object-store", {
      ...fileEnv,
      ...store.env,
      PULUMI_BACKEND_URL: store.backendUrl,
      PULUMI_HOME: path.join(state, "home-s3"),
    });
    await timedPulumi(s3, ["stack", "init", "bench"]);
    await timedPulumi(s3, ["stack", "import", "--file", exported, "--stack", "bench"]);

    const times: Record<string, number[]> = { [file.name]: [], [s3.name]: [] };
    for (let round = 0; round < rounds; round++) {
      // Alternating, and which goes first alternates too, so load on the machine falls on both alike.
      const order = round % 2 === 0 ? [s3, file] : [file, s3];
      for (const c of order) {
        times[c.name]?.push(
          (await timedPulumi(c, ["preview", "--expect-no-changes", "--stack", "bench"])).seconds,
        );
      }
    }
    const mine = median(times[s3.name] ?? []);
    const floor = median(times[file.name] ?? []);
    const ratio = Number((mine / floor).toFixed(2));
    const figure: BenchFigure = {
      key: "objectStoreNoChangeRatio",
      what: `no-change pulumi preview of ${count} campaigns with the state in an S3 bucket (SeaweedFS on loopback, ${mine.toFixed(1)} s) / the same stack on the file backend`,
      value: ratio,
      unit: "x",
      floor: { what: `the file backend, median of ${rounds}`, value: Number(floor.toFixed(1)), unit: "s" },
      target: `<= ${TARGET}`,
      ok: ratio <= TARGET,
    };
    reportFigures([figure], options);
  } finally {
    await cleanUp();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
