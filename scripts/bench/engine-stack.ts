/**
 * What the engine parts (`engine`, `engine500`) share: a stack of campaign files (a TypeScript
 * program on the dynamic providers, and a Pulumi YAML program on the provider plugin) next to the
 * same shape of no-op dynamic resources, all run by the real `pulumi` CLI on a file backend against a
 * sandbox in its own process, and the timing of their commands.
 *
 * The campaign files are written from the campaign schema's own type (`CampaignDocument`, checked
 * with it before they are written), so they follow the format as it changes. The floor has the
 * campaigns' shape: the folder, a component per campaign, its order, its recipients (the same inline
 * rows) and, for a paid campaign, its checkout, each with the property names of the resource it
 * stands for. Pulumi's own cost grows with them: for every property of every resource the Node.js
 * SDK makes a promise and captures a stack trace.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import type { z } from "zod";
import { CAMPAIGN_API_VERSION, CampaignDocument } from "../../provider/campaign/schema";
import { CheckoutInputFields } from "../../provider/resources/checkout/inputs";
import { CheckoutOutputFields } from "../../provider/resources/checkout/outputs";
import { OrderInputFields } from "../../provider/resources/order/inputs";
import { OrderOutputFields } from "../../provider/resources/order/outputs";
import { OrderRecipientsInputFields } from "../../provider/resources/order-recipients/inputs";
import { OrderRecipientsOutputFields } from "../../provider/resources/order-recipients/outputs";
import { startSandboxProcess } from "../sandbox-process";
import { offlinePulumiEnv, programFolders } from "./processes";

export const repoRoot = path.resolve(__dirname, "../../..");
const run = promisify(execFile);

/** Inline recipients of each campaign. */
const ROWS = 10;

/** The bench's campaign `i`: named `campaign-<i>`; paid ones check out without waiting for settlement. */
export interface BenchCampaign {
  name: string;
  paid: boolean;
  /** custom1 of every recipient: a change of it is a change of the campaign's recipients. */
  greeting: string;
}

export function benchCampaigns(count: number, paidEvery: number): BenchCampaign[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `campaign-${i}`,
    paid: paidEvery > 0 && i % paidEvery === 0,
    greeting: "Hi",
  }));
}

function recipientRows(campaign: BenchCampaign) {
  return Array.from({ length: ROWS }, (_, r) => ({
    firstName: `Ada${r}`,
    lastName: campaign.name,
    address1: `${r + 1} Main St`,
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
    custom1: campaign.greeting,
  }));
}

/** A campaign document's text, checked with the campaign schema before it is written. */
export const campaignText = (document: z.input<typeof CampaignDocument>): string =>
  stringify(CampaignDocument.parse(document));

/** Its campaign file, checked with the campaign schema before it is written. */
export function campaignFile(campaign: BenchCampaign, templateId: number): string {
  const document: z.input<typeof CampaignDocument> = {
    apiVersion: CAMPAIGN_API_VERSION,
    kind: "Campaign",
    metadata: { name: campaign.name },
    spec: {
      order: { templateId },
      recipients: { inline: recipientRows(campaign) },
      ...(campaign.paid
        ? {
            checkout: {
              postageType: "Standard",
              productionSpeed: "Normal",
              // The sandbox settles on its clock, which the bench moves on once everything is deployed.
              settlementWaitSeconds: 0,
            },
          }
        : {}),
    },
  };
  return campaignText(document);
}

const campaignsProgram = `const { CampaignFolder } = require("pulumi-directmail");
new CampaignFolder("campaigns", { dir: "camps" });
`;

/**
 * The plugin path: the same folder declared by a Pulumi YAML program, served by the provider plugin
 * (`pulumi-resource-directmail`) that Pulumi finds in `pluginDir`, as a user's project finds it in
 * node_modules/.bin.
 */
const pluginProgram = (pluginDir: string) => `plugins:
  providers:
    - name: directmail
      path: ${JSON.stringify(pluginDir)}
resources:
  campaigns:
    type: directmail:index:CampaignFolder
    properties:
      dir: camps
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
 * The floor: the campaign folder's shape (components, resources, their properties, the inline
 * recipients, the dependencies), of dynamic resources whose provider does nothing.
 */
function noopProgram(campaigns: BenchCampaign[]): string {
  const declared = campaigns.map((c) => ({ name: c.name, paid: c.paid, rows: recipientRows(c) }));
  return `const pulumi = require("@pulumi/pulumi");
const shapes = ${JSON.stringify(shapes())};
const campaigns = ${JSON.stringify(declared)};
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
for (const { name, paid, rows } of campaigns) {
  const campaign = new pulumi.ComponentResource("bench:index:Campaign", name, {}, { parent: folder });
  const order = new Noop("order", name, { templateId: 1 }, { parent: campaign });
  const recipients = new Noop("recipients", name + "-recipients", { orderId: order.orderId, recipients: rows }, { parent: campaign });
  if (paid) new Noop("checkout", name + "-checkout", { orderId: order.orderId, postageType: "Standard", productionSpeed: "Normal", settlementWaitSeconds: 0 }, { parent: campaign, dependsOn: [recipients] });
}
`;
}

export interface Program {
  name: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs a command in the program's folder: its time in seconds and its output. An exit code other
 * than 0 (or one of `allowedCodes`) fails, with what the command printed.
 */
export async function timed(
  program: Program,
  command: string,
  args: string[],
  allowedCodes: number[] = [],
): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  let stdout: string;
  try {
    ({ stdout } = await run(command, args, {
      cwd: program.dir,
      env: program.env,
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== "number" || !allowedCodes.includes(e.code))
      throw new Error(
        `${command} ${args.join(" ")} in ${program.name} failed: ${e.stdout ?? ""}${e.stderr ?? e.message}`,
      );
    stdout = e.stdout ?? "";
  }
  return { seconds: (performance.now() - started) / 1000, stdout };
}

/** A `pulumi` command's time in seconds. */
export const pulumi = async (program: Program, args: string[]) =>
  (await timed(program, "pulumi", [...args, "--non-interactive", "--color", "never"])).seconds;

/** A command's wall time, and the CPU time (user and system) of it and every process it started. */
export interface Times {
  wall: number;
  cpu: number;
}

/**
 * Runs a command under bash, whose `times` then prints the CPU time of its children: the command
 * and everything it waited for (for `pulumi`, the engine, the program's language host and node, the
 * dynamic provider's process). On a shared machine the CPU time is what the command itself costs;
 * the wall time also holds whatever else the machine ran meanwhile.
 */
export async function cpuTimed(
  program: Program,
  command: string[],
  allowedCodes: number[] = [],
): Promise<Times & { stdout: string }> {
  const script = `"$@" > "$OUT"; code=$?; times >&2; exit $code`;
  const out = path.join(os.tmpdir(), `directmail-bench-out-${process.pid}-${Date.now()}`);
  const started = performance.now();
  let stderr = "";
  try {
    ({ stderr } = await run("bash", ["-c", script, "bash", ...command], {
      cwd: program.dir,
      env: { ...program.env, OUT: out },
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    const e = error as { code?: unknown; stderr?: string; message: string };
    if (typeof e.code !== "number" || !allowedCodes.includes(e.code)) {
      const stdout = fs.existsSync(out) ? fs.readFileSync(out, "utf8") : "";
      fs.rmSync(out, { force: true });
      throw new Error(`${command.join(" ")} in ${program.name} failed: ${stdout}${e.stderr ?? e.message}`);
    }
    stderr = e.stderr ?? "";
  }
  const wall = (performance.now() - started) / 1000;
  const stdout = fs.readFileSync(out, "utf8");
  fs.rmSync(out, { force: true });
  // `times`: the shell's own user and system time, then its children's (`0m25.130s 0m2.304s`).
  const children = stderr.trim().split("\n").at(-1) ?? "";
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (seconds.length !== 2) throw new Error(`no CPU times from bash's times: ${children}`);
  return { wall, cpu: (seconds[0] as number) + (seconds[1] as number), stdout };
}

/** A `pulumi` command's wall and CPU time. */
export const pulumiTimes = (program: Program, args: string[]) =>
  cpuTimed(program, ["pulumi", ...args, "--non-interactive", "--color", "never"]);

/**
 * The first `pulumi up` of a program: not timed into any figure, so the engine skips its checkpoint
 * after each step (PULUMI_SKIP_CHECKPOINTS, the state written once at the end). At 1,500 resources
 * the checkpoints, the whole state written after each of 1,500 steps, took about 7 minutes of
 * the engine's CPU; without them the campaigns deploy in about a minute.
 */
export const deploy = async (program: Program) =>
  (
    await timed({ ...program, env: { ...program.env, PULUMI_SKIP_CHECKPOINTS: "true" } }, "pulumi", [
      "up",
      "--yes",
      "--skip-preview",
      "--non-interactive",
      "--color",
      "never",
    ])
  ).seconds;

/** The `directmail` command of this checkout. */
export const directmailBin = path.join(repoRoot, "bin/directmail.js");

/** `directmail` of this checkout, run in the program's folder. */
export const directmail = (program: Program, args: string[], allowedCodes: number[] = []) =>
  timed(program, process.execPath, [directmailBin, ...args], allowedCodes);

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle)
    ? ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
    : (sorted[Math.floor(middle)] as number);
};

export interface EngineStacks {
  sandbox: { url: string; apiKey: string; templateId: number };
  campaigns: Program;
  /** The same campaign files through the provider plugin: a Pulumi YAML program. */
  plugin: Program;
  noop: Program;
  declared: BenchCampaign[];
  /** Requests the sandbox has served to the v1 interface so far (its request log). */
  requests(): number;
  /** Writes the campaign's file again (after a change of `declared`). */
  writeCampaign(campaign: BenchCampaign): void;
  cleanUp(): void;
}

/**
 * A sandbox (its request log counted), and the two programs of `declared`, each with a stack `bench`
 * (nothing deployed yet). The campaign program's folder is a git repository with its files
 * committed, so a review can compare a change with `HEAD`.
 */
export async function engineStacks(name: string, declared: BenchCampaign[]): Promise<EngineStacks> {
  let requests = 0;
  const started = await startSandboxProcess(["--data", ":memory:", "--seed", "demo"], {
    requestLog: (line) => {
      if (/ (GET|POST|PUT|DELETE) \/v1\//.test(line)) requests++;
    },
  });
  const sandbox = {
    url: started.url,
    apiKey: started.first.apiKey as string,
    templateId: started.first.templates.postcard as number,
  };
  const { root, state, cleanUp } = programFolders(name, started.child);
  try {
    const env = offlinePulumiEnv(state, sandbox);
    const make = (programName: string, source: string, runtime = "nodejs"): Program => {
      const dir = path.join(root, programName);
      fs.mkdirSync(dir);
      const project = `name: ${programName}\nruntime: ${runtime}\n`;
      if (runtime === "yaml") fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${project}${source}`);
      else {
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${project}main: index.js\n`);
        fs.writeFileSync(path.join(dir, "index.js"), source);
      }
      return { name: programName, dir, env };
    };
    const pluginDir = path.join(root, "plugin");
    fs.mkdirSync(pluginDir);
    fs.symlinkSync(
      path.join(repoRoot, "bin/pulumi-resource-directmail.js"),
      path.join(pluginDir, "pulumi-resource-directmail"),
    );
    const campaigns = make("bench-campaigns", campaignsProgram);
    const plugin = make("bench-plugin", pluginProgram(pluginDir), "yaml");
    for (const program of [campaigns, plugin]) fs.mkdirSync(path.join(program.dir, "camps"));
    const writeCampaign = (campaign: BenchCampaign) => {
      for (const program of [campaigns, plugin])
        fs.writeFileSync(
          path.join(program.dir, "camps", `${campaign.name}.yaml`),
          campaignFile(campaign, sandbox.templateId),
        );
    };
    for (const campaign of declared) writeCampaign(campaign);
    const git = (...args: string[]) => timed(campaigns, "git", args);
    await git("init", "--quiet");
    await git("add", ".");
    await git(
      "-c",
      "user.name=bench",
      "-c",
      "user.email=bench@example.com",
      "commit",
      "--quiet",
      "-m",
      "campaigns",
    );
    const noop = make("bench-noop", noopProgram(declared));
    for (const program of [campaigns, plugin, noop]) await pulumi(program, ["stack", "init", "bench"]);
    return { sandbox, campaigns, plugin, noop, declared, requests: () => requests, writeCampaign, cleanUp };
  } catch (error) {
    cleanUp();
    throw error;
  }
}

/**
 * The medians of `rounds` no-change `pulumi preview` and `pulumi up` of each program (wall and CPU
 * time, each its own median), taking turns so that load on the machine falls on both alike;
 * `--expect-no-changes` makes any change a failure.
 */
export async function noChangeTimes(
  programs: Program[],
  rounds: number,
): Promise<Record<"preview" | "up", Map<Program, Times>>> {
  const times = { preview: new Map<Program, Times[]>(), up: new Map<Program, Times[]>() };
  for (const program of programs) {
    times.preview.set(program, []);
    times.up.set(program, []);
  }
  for (let round = 0; round < rounds; round++) {
    for (const program of programs) {
      times.preview.get(program)?.push(await pulumiTimes(program, ["preview", "--expect-no-changes"]));
      times.up
        .get(program)
        ?.push(await pulumiTimes(program, ["up", "--yes", "--skip-preview", "--expect-no-changes"]));
    }
  }
  return { preview: medianTimes(times.preview), up: medianTimes(times.up) };
}

/** Each program's median wall and CPU time. */
export const medianTimes = (m: Map<Program, Times[]>) =>
  new Map(
    [...m].map(([p, t]) => [p, { wall: median(t.map((x) => x.wall)), cpu: median(t.map((x) => x.cpu)) }]),
  );
