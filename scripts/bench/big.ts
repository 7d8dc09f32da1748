/**
 * Benchmark part `big` (not a test): a million recipients everywhere, not only in the provider. A
 * campaign folder of one campaign whose recipients file is a generated CSV of 1,000,000 rows and
 * seven columns (about 60 MB, keyed by `customerId`), in a git repository, driven through the real
 * `directmail` and `pulumi` CLIs against a sandbox in its own process. Figures, each against a
 * floor measured in the same run:
 * - bigValidateRatio: `directmail validate` / a bare streaming csv-parse read of the same file
 *   (each a process of its own, node's start included in both);
 * - bigValidatePeakMiB: the peak RSS of that validate;
 * - bigPreviewRatio: a first `pulumi preview` of a stack with that campaign / (that validate + the
 *   engine floor, the `pulumi preview` of a trivial program);
 * - bigPeakMiB: the largest peak RSS of a Node.js process (the CLI, the program, the provider) of
 *   validate, the first preview, the first `up`, and the preview, review and `up` of the change on
 *   the deployed list (the engine's own processes are reported apart);
 * - bigReviewRatio: `directmail review --base HEAD` of a change of that list (1,000 rows added,
 *   1,000 changed), deployed, / the `pulumi preview` of the same change, which the review runs too.
 * Each is one run (they are long: the part takes about two and a half minutes); the engine floor is
 * the best of two. `--smoke`: 2,000 rows, the engine floor once, no warm-up (sizes.ts).
 *
 *   npm run build && node dist/scripts/bench/big.js [--json] [--smoke]
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseCsv } from "csv-parse";
import { CAMPAIGN_API_VERSION } from "../../provider/campaign/schema";
import { campaignText } from "./engine-stack";
import { offlinePulumiEnv, peaksOf, programFolders, startSandbox } from "./processes";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

const repoRoot = path.resolve(__dirname, "../../..");
const directmail = path.join(repoRoot, "bin", "directmail.js");

const header = "customerId,firstName,lastName,address1,city,state,zipCode\n";
/** Row `n`; `changed` gives it another last name (the same customer, other details). */
const row = (n: number, changed = false) =>
  `C${String(n).padStart(7, "0")},Ada${n},${changed ? "Byron" : "Lovelace"},${n + 1} Main St,Springfield,IL,62701\n`;

/** A CSV of rows 0 to count - 1, every `changeEvery`th one changed, and `added` more after them. */
async function writeCsv(file: string, count: number, changeEvery = 0, added = 0): Promise<void> {
  const out = fs.createWriteStream(file);
  const write = (text: string) =>
    out.write(text) ? undefined : new Promise<void>((resolve) => out.once("drain", () => resolve()));
  await write(header);
  let chunk = "";
  for (let n = 0; n < count + added; n++) {
    chunk += row(n, changeEvery > 0 && n < count && n % changeEvery === changeEvery - 1);
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = "";
    }
  }
  await write(chunk);
  await new Promise((resolve) => out.end(resolve));
}

/** The floor of validate: the file read as a stream by csv-parse, each record taken, nothing kept. */
async function bareRead(file: string): Promise<void> {
  let records = 0;
  for await (const _ of fs.createReadStream(file).pipe(parseCsv())) records += 1;
  if (records === 0) throw new Error("no record read");
}

interface Run {
  seconds: number;
  /** Peak RSS (VmHWM) of each process of the run, by pid, in MiB. */
  peaks: Map<number, number>;
  /** What each process of the run is, by pid: `node` (the CLI, the program, the provider) or the engine's own. */
  names: Map<number, string>;
  /** CPU seconds (user and system) of each process of the run, by pid, as last seen. */
  cpu: Map<number, number>;
  output: string;
}

/** The CPU seconds of each process in `pids` so far, from /proc/<pid>/stat (utime + stime, in ticks of 1/100 s). */
function cpuOf(pids: Iterable<number>, cpu: Map<number, number>): void {
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      if (seconds > (cpu.get(pid) ?? 0)) cpu.set(pid, seconds);
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Runs a command in `cwd` to its end; every process working in `cwd` meanwhile (the command, and
 * the program and provider a `pulumi` command starts there) is watched through /proc for its peak.
 */
function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const peaks = new Map<number, number>();
    const names = new Map<number, string>();
    const cpu = new Map<number, number>();
    const started = performance.now();
    const child = spawn(command, args, { cwd, env });
    let output = "";
    const keep = (data: Buffer) => {
      output = (output + data).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const watch = setInterval(() => {
      peaksOf("", cwd, peaks);
      cpuOf(peaks.keys(), cpu);
      for (const pid of peaks.keys()) if (!names.has(pid)) names.set(pid, nameOf(pid));
    }, 50);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearInterval(watch);
      const seconds = (performance.now() - started) / 1000;
      const mib = new Map([...peaks].map(([pid, kib]) => [pid, Math.round(kib / 1024)]));
      if (code === 0) resolve({ seconds, peaks: mib, names, cpu, output });
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output}`));
    });
  });
}

/** The name of the executable of process `pid`: `node`, `pulumi`, `pulumi-language-nodejs`, `git`. */
function nameOf(pid: number): string {
  try {
    return path.basename(fs.readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return "gone";
  }
}

/**
 * The largest peak of the run's Node.js processes: the CLI, the program and the provider, the
 * processes this package runs. The engine's own (`pulumi`, its language host), in Go, hold the
 * state and are reported apart (`enginePeakOf`).
 */
const peakWhere = (run: Run, node: boolean) =>
  Math.max(
    0,
    ...[...run.peaks].filter(([pid]) => (run.names.get(pid) === "node") === node).map(([, mib]) => mib),
  );
const peakOf = (run: Run) => peakWhere(run, true);
const enginePeakOf = (run: Run) => peakWhere(run, false);
/** The run's time, and the CPU time of its processes: the machine may be shared, and CPU time moves less. */
const said = (run: Run) => {
  const cpu = [...run.cpu.values()].reduce((a, b) => a + b, 0);
  const each = [...run.peaks].map(([pid, mib]) => `${run.names.get(pid)} ${mib}`).join(", ");
  return `${run.seconds.toFixed(1)} s (CPU ${cpu.toFixed(1)} s in ${run.cpu.size} processes), peak ${peakOf(run)} MiB (${each})`;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--bare") {
    await bareRead(args[1] as string);
    return;
  }
  if (!fs.existsSync("/proc/self/status")) throw new Error("peak RSS is read from /proc (Linux)");
  const options = benchOptions(args);
  const sizes = sizesOf("big", options);
  const { changes } = sizes;
  const count = sizes.rows;
  const log = (text: string) => process.stderr.write(`big: ${text}\n`);
  const started = await startSandbox();
  // An account of its own, with a template that prints no merge field.
  const control = async <T>(at: string, body: unknown): Promise<T> => {
    const res = await fetch(`${started.url}/_sandbox${at}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`control ${at}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const { apiKey } = await control<{ apiKey: string }>("/accounts", {});
  const { id: templateId } = await control<{ id: number }>("/templates", { apiKey, name: "Bench" });
  const sandbox = { url: started.url, apiKey, templateId };
  const { root, state, cleanUp } = programFolders("big", started.child);
  try {
    const env = offlinePulumiEnv(state, sandbox);
    const project = (name: string, program: string) => {
      const dir = path.join(root, name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\nmain: index.js\n`);
      fs.writeFileSync(path.join(dir, "index.js"), program);
      return dir;
    };
    const pulumi = (dir: string, more: string[]) =>
      timed("pulumi", [...more, "--non-interactive", "--color", "never"], dir, env);

    // The campaign, its list at the base committed, the change in the working tree.
    const dir = project(
      "bench-big",
      'const { CampaignFolder } = require("pulumi-directmail");\nnew CampaignFolder("campaigns", { dir: "campaigns" });\n',
    );
    const campaigns = path.join(dir, "campaigns");
    fs.mkdirSync(campaigns);
    fs.writeFileSync(
      path.join(campaigns, "big.yaml"),
      campaignText({
        apiVersion: CAMPAIGN_API_VERSION,
        kind: "Campaign",
        metadata: { name: "big" },
        spec: {
          order: { templateId: sandbox.templateId },
          recipients: { file: "people.csv", keyColumn: "customerId" },
        },
      }),
    );
    const file = path.join(campaigns, "people.csv");
    await writeCsv(file, count);
    log(`${count} rows, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB`);
    const git = (...more: string[]) => execFileSync("git", more, { cwd: dir, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "base");

    // Warm-up: node's compile cache and the disk cache hold the CLI and the file for both.
    if (sizes.warmUp) await timed(process.execPath, [directmail, "--version"], dir, env);
    const bare = await timed(process.execPath, [__filename, "--bare", file], dir, env);
    log(`bare csv-parse read ${said(bare)}`);
    const validate = await timed(process.execPath, [directmail, "validate", "campaigns"], dir, env);
    log(`validate ${said(validate)}`);

    const trivial = project("bench-trivial", "module.exports = {};\n");
    await pulumi(trivial, ["stack", "init", "bench"]);
    const floors: Run[] = [];
    for (let i = 0; i < sizes.floorPreviews; i++) floors.push(await pulumi(trivial, ["preview"]));
    const engineFloor = Math.min(...floors.map((r) => r.seconds));
    log(
      `engine floor (preview of a trivial program) ${engineFloor.toFixed(1)} s; ${said(floors.at(-1) as Run)}`,
    );

    await pulumi(dir, ["stack", "init", "bench"]);
    const preview = await pulumi(dir, ["preview"]);
    log(`first preview ${said(preview)}`);
    // The list deployed: the change is then reviewed and applied as a team's would be, with the
    // stack's state holding the list's index (about 31 MB at 1,000,000 recipients, a secret).
    const deploy = await pulumi(dir, ["up", "--yes", "--skip-preview"]);
    log(`first up ${said(deploy)}`);

    // The change: every 1,000th row another last name, 1,000 rows added.
    await writeCsv(file, count, Math.floor(count / changes), changes);
    const changePreview = await pulumi(dir, ["preview"]);
    log(`preview of the change ${said(changePreview)}`);
    const out = path.join(root, "review");
    const review = await timed(
      process.execPath,
      [directmail, "review", "--base", "HEAD", "--out", out, "--stack", "bench"],
      dir,
      env,
    );
    const reviewed = JSON.parse(fs.readFileSync(path.join(out, "review.json"), "utf8"));
    const changed = reviewed.campaigns?.[0]?.recipients;
    if (changed?.added !== changes || changed?.changed !== changes)
      throw new Error(
        `the review found ${JSON.stringify({ added: changed?.added, changed: changed?.changed })}`,
      );
    log(`review ${said(review)}`);
    const changeUp = await pulumi(dir, ["up", "--yes", "--skip-preview"]);
    log(`up of the change ${said(changeUp)}`);

    const ratio = (value: number) => Number(value.toFixed(2));
    const validateRatio = ratio(validate.seconds / bare.seconds);
    const previewRatio = ratio(preview.seconds / (validate.seconds + engineFloor));
    const reviewRatio = ratio(review.seconds / changePreview.seconds);
    const runs = [validate, preview, deploy, changePreview, review, changeUp];
    const peaks = {
      validate: peakOf(validate),
      preview: peakOf(preview),
      deploy: peakOf(deploy),
      changePreview: peakOf(changePreview),
      review: peakOf(review),
      changeUp: peakOf(changeUp),
    };
    const largest = Math.max(...Object.values(peaks));
    const figures: BenchFigure[] = [
      {
        key: "bigValidateRatio",
        what: `directmail validate of ${count} recipients (${validate.seconds.toFixed(1)} s) / a bare csv-parse read of the file`,
        value: validateRatio,
        unit: "x",
        floor: { what: "bare csv-parse read", value: ratio(bare.seconds), unit: "s" },
        target: "<= 3",
        ok: validateRatio <= 3,
      },
      {
        key: "bigValidatePeakMiB",
        what: `peak RSS of directmail validate of ${count} recipients`,
        value: peaks.validate,
        unit: "MiB",
        floor: { what: "bare csv-parse read", value: peakOf(bare), unit: "MiB" },
        target: "<= 300",
        ok: peaks.validate <= 300,
      },
      {
        key: "bigPreviewRatio",
        what: `first pulumi preview of the campaign (${preview.seconds.toFixed(1)} s) / (validate + the engine floor)`,
        value: previewRatio,
        unit: "x",
        floor: { what: "preview of a trivial program", value: ratio(engineFloor), unit: "s" },
        target: "<= 1.5",
        ok: previewRatio <= 1.5,
      },
      {
        key: "bigPeakMiB",
        what: `largest peak RSS of a Node.js process (the CLI, the program, the provider) of validate (${peaks.validate}), the first preview (${peaks.preview}), the first up (${peaks.deploy}), the preview of the change (${peaks.changePreview}), the review (${peaks.review}) and the up of the change (${peaks.changeUp}); the engine's own processes: ${Math.max(...runs.map(enginePeakOf))} MiB`,
        value: largest,
        unit: "MiB",
        floor: { what: "bare csv-parse read", value: peakOf(bare), unit: "MiB" },
        target: "<= 400",
        ok: largest <= 400,
      },
      {
        key: "bigReviewRatio",
        what: `directmail review of ${changes} rows added and ${changes} changed (${review.seconds.toFixed(1)} s) / the preview of that change`,
        value: reviewRatio,
        unit: "x",
        floor: { what: "pulumi preview of the change", value: ratio(changePreview.seconds), unit: "s" },
        target: "<= 2",
        ok: reviewRatio <= 2,
      },
    ];
    reportFigures(figures, options);
  } finally {
    cleanUp();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
