/**
 * Benchmark part `engine` (not a test): the time of a no-change `pulumi preview` and `pulumi up`
 * of a campaign folder of 20 campaigns (each a Campaign component with its Order, OrderRecipients
 * of ten inline recipients, and Checkout: 4 resources), against the floor: the same program shape
 * (one folder component, 20 components, each with 3 chained resources with the same properties and
 * inline recipients, of a trivial `pulumi.dynamic` provider that does nothing). The engine's own
 * work (a promise and a stack trace per property of each resource, the plan, the state) is in
 * both; what the ratio shows is this package's cost on top: loading it, reading the campaign
 * files, starting and configuring its provider, its check and diff hooks. Both are JavaScript programs run by the real
 * `pulumi` CLI on a file backend, against a sandbox in its own process; each command runs
 * `rounds` times, alternating the two programs so load on the machine falls on both alike, and
 * the median counts. `--expect-no-changes` makes any change a failure.
 *
 *   node dist/scripts/bench/engine.js [--json] [--smoke] [--rounds 3]
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { CheckoutInputFields } from "../../provider/resources/checkout/inputs";
import { CheckoutOutputFields } from "../../provider/resources/checkout/outputs";
import { OrderInputFields } from "../../provider/resources/order/inputs";
import { OrderOutputFields } from "../../provider/resources/order/outputs";
import { OrderRecipientsInputFields } from "../../provider/resources/order-recipients/inputs";
import { OrderRecipientsOutputFields } from "../../provider/resources/order-recipients/outputs";
import { offlinePulumiEnv, programFolders, startSandbox } from "./processes";
import { type BenchFigure, benchOptions, reportFigures } from "./result";

const run = promisify(execFile);

function campaignYaml(name: string, templateId: number): string {
  const rows = Array.from(
    { length: 10 },
    (_, i) =>
      `      - { firstName: Ada${i}, lastName: ${name}, address1: ${i + 1} Main St, city: Springfield, state: IL, zipCode: "62701", custom1: Hi }`,
  );
  return [
    "apiVersion: directmail/v1",
    "kind: Campaign",
    "metadata:",
    `  name: ${name}`,
    "spec:",
    "  order:",
    `    templateId: ${templateId}`,
    "  recipients:",
    "    inline:",
    ...rows,
    "  checkout:",
    "    postageType: Standard",
    "    productionSpeed: Normal",
    "",
  ].join("\n");
}

const campaignsProgram = `const { CampaignFolder } = require("pulumi-directmail");
new CampaignFolder("campaigns", { dir: "camps" });
`;

/** The properties (inputs and outputs) of each resource of a campaign, so the floor has the same. */
function shapes(): Record<"order" | "recipients" | "checkout", string[]> {
  const keys = (...fields: object[]) => [...new Set(fields.flatMap((f) => Object.keys(f)))];
  return {
    order: keys(OrderInputFields, OrderOutputFields),
    recipients: keys(OrderRecipientsInputFields, OrderRecipientsOutputFields),
    checkout: keys(CheckoutInputFields, CheckoutOutputFields),
  };
}

/**
 * The floor: the campaign folder's shape (components, resources, their properties, the ten inline
 * recipients, the dependencies), of dynamic resources whose provider does nothing.
 */
function noopProgram(count: number): string {
  return `const pulumi = require("@pulumi/pulumi");
const shapes = ${JSON.stringify(shapes())};
const provider = {
  async create(inputs) {
    const outs = { ...inputs };
    for (const key of Object.keys(outs)) if (outs[key] === undefined) outs[key] = key === "orderId" ? 1 : "x";
    return { id: "1", outs };
  },
  async diff() { return { changes: false }; },
};
class Noop extends pulumi.dynamic.Resource {
  constructor(kind, name, args, opts) {
    const props = Object.fromEntries(shapes[kind].map((key) => [key, undefined]));
    super(provider, name, { ...props, ...args }, opts);
  }
}
const folder = new pulumi.ComponentResource("bench:index:Folder", "campaigns", {});
for (let i = 0; i < ${count}; i++) {
  const name = "campaign-" + i;
  const campaign = new pulumi.ComponentResource("bench:index:Campaign", name, {}, { parent: folder });
  const order = new Noop("order", name, { templateId: 1 }, { parent: campaign });
  const rows = Array.from({ length: 10 }, (_, r) => ({ firstName: "Ada" + r, lastName: name, address1: r + 1 + " Main St", city: "Springfield", state: "IL", zipCode: "62701", custom1: "Hi" }));
  const recipients = new Noop("recipients", name + "-recipients", { orderId: order.orderId, recipients: rows }, { parent: campaign });
  new Noop("checkout", name + "-checkout", { orderId: order.orderId, postageType: "Standard", productionSpeed: "Normal" }, { parent: campaign, dependsOn: [recipients] });
}
`;
}

interface Program {
  name: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

async function pulumi(program: Program, args: string[]): Promise<number> {
  const started = performance.now();
  try {
    await run("pulumi", [...args, "--non-interactive", "--color", "never"], {
      cwd: program.dir,
      env: program.env,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `pulumi ${args.join(" ")} of ${program.name} failed: ${e.stdout ?? ""}${e.stderr ?? e.message}`,
    );
  }
  return (performance.now() - started) / 1000;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
    : (sorted[Math.floor(middle)] as number);
};

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const count = options.smoke ? 1 : 20;
  const rounds = options.smoke ? 1 : Number(args[args.indexOf("--rounds") + 1]) || 3;
  const started = await startSandbox(["--seed", "demo"]);
  const sandbox = {
    child: started.child,
    url: started.url,
    apiKey: started.first.apiKey as string,
    templateId: started.first.templates.postcard as number,
  };
  const { root, state, cleanUp } = programFolders("engine", sandbox.child);
  try {
    const env = offlinePulumiEnv(state, sandbox);
    const make = (name: string, source: string): Program => {
      const dir = path.join(root, name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\nmain: index.js\n`);
      fs.writeFileSync(path.join(dir, "index.js"), source);
      return { name, dir, env };
    };
    const campaigns = make("bench-campaigns", campaignsProgram);
    fs.mkdirSync(path.join(campaigns.dir, "camps"));
    for (let i = 0; i < count; i++) {
      const name = `campaign-${i}`;
      fs.writeFileSync(
        path.join(campaigns.dir, "camps", `${name}.yaml`),
        campaignYaml(name, sandbox.templateId),
      );
    }
    const noop = make("bench-noop", noopProgram(count));
    const programs = [campaigns, noop];
    for (const program of programs) {
      await pulumi(program, ["stack", "init", "bench"]);
      await pulumi(program, ["up", "--yes", "--skip-preview"]);
    }
    const times: Record<string, Record<string, number[]>> = {
      preview: { [campaigns.name]: [], [noop.name]: [] },
      up: { [campaigns.name]: [], [noop.name]: [] },
    };
    for (let round = 0; round < rounds; round++) {
      for (const program of programs) {
        times.preview?.[program.name]?.push(await pulumi(program, ["preview", "--expect-no-changes"]));
        times.up?.[program.name]?.push(
          await pulumi(program, ["up", "--yes", "--skip-preview", "--expect-no-changes"]),
        );
      }
    }
    const figure = (command: "preview" | "up", key: string): BenchFigure => {
      const mine = median(times[command]?.[campaigns.name] ?? []);
      const floor = median(times[command]?.[noop.name] ?? []);
      const ratio = Number((mine / floor).toFixed(2));
      return {
        key,
        what: `no-change pulumi ${command} of ${count} campaigns (${mine.toFixed(1)} s) / the same shape of no-op dynamic resources`,
        value: ratio,
        unit: "x",
        floor: { what: `${count} x 4 no-op resources`, value: Number(floor.toFixed(1)), unit: "s" },
        target: "<= 1.5",
        ok: ratio <= 1.5,
      };
    };
    reportFigures([figure("preview", "engineRatioPreview"), figure("up", "engineRatioUp")], options);
  } finally {
    cleanUp();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
