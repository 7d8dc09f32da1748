/**
 * Benchmark part `recipients` (see scripts/bench.ts): syncs a CSV list through the OrderRecipients
 * provider hooks (check, then create) and has the bare client make the same calls (append in
 * batches of 5,000, then read the listing for the ids), against one sandbox in its own process.
 * Each case runs in a process of its own, so that its peak RSS is its own. Figures:
 * - recipientsRatio: provider time / bare client time at 100,000, both syncing the same CSV file
 *   (best of five runs each);
 * - oneChangeRequests: requests of an update that replaces one recipient of those 100,000;
 * - peakRssMiB100k and peakRssMiB1MHooks: peak RSS of a process running the provider hooks alone,
 *   syncing 100,000 and 1,000,000 recipients;
 * - peakRssMiB1M: peak RSS of the dynamic-provider process the `pulumi` CLI starts, syncing
 *   1,000,000 recipients in a `pulumi up` (the hooks, and the Pulumi SDK's gRPC around them).
 * `--smoke`: 1,000 and 6,000 recipients, one run each (sizes.ts).
 *
 *   npm run build && node dist/scripts/bench/recipients.js [--json] [--smoke]
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseCsv } from "csv-parse";
import { DirectMailClient } from "../../provider/api/client";
import { newOrderRecipient } from "../../provider/api/recipients";
import type { OrderRecipient } from "../../provider/api/schemas";
import { observeRequests, providerFor } from "../../provider/resources/implementation";
import { offlinePulumiEnv, peaksOf, startSandbox } from "./processes";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

const repoRoot = path.resolve(__dirname, "../../..");

interface Target {
  url: string;
  apiKey: string;
  templateId: number;
  file: string;
  count: number;
  /** A copy of `file` with one recipient replaced: the case then measures that update too. */
  changedFile?: string | undefined;
}

interface CaseResult {
  /** The order the case synced (the timed one). */
  orderId: number;
  ms: number;
  peakRssMiB: number;
  change?: { requests: number; ms: number } | undefined;
}

const header = "firstName,lastName,address1,city,state,zipCode\n";
const line = (n: number) => `Ada${n},Lovelace,${n} Main St,Springfield,IL,62701\n`;

/** A CSV of the recipients numbered `from` to `to` (excluded), and `extra` ones after them. */
async function writeCsv(file: string, from: number, to: number, extra: number[] = []) {
  const out = fs.createWriteStream(file);
  const write = (text: string) =>
    out.write(text) ? undefined : new Promise<void>((resolve) => out.once("drain", () => resolve()));
  await write(header);
  let chunk = "";
  for (const n of [...range(from, to), ...extra]) {
    chunk += line(n);
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = "";
    }
  }
  await write(chunk);
  await new Promise((resolve) => out.end(resolve));
}

function* range(from: number, to: number) {
  for (let n = from; n < to; n++) yield n;
}

async function control<T>(url: string, p: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}/_sandbox${p}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * The bare client, syncing the same file: its rows read with csv-parse and built into the wire
 * shape (a number in custom6 to find each one's id again), appended in batches of 5,000, then
 * listed for their ids. What any program syncing a CSV through the client does, once.
 */
async function bareClient(client: DirectMailClient, orderId: number, file: string, count: number) {
  const wire: OrderRecipient[] = [];
  const rows = fs.createReadStream(file).pipe(parseCsv({ columns: true }));
  for await (const row of rows as AsyncIterable<Record<string, string>>) {
    const { firstName, lastName, address1, city, state, zipCode } = row;
    wire.push(
      newOrderRecipient({
        address: { address1, city, state, zipCode },
        personal: { firstName, lastName },
        metadata: { custom6: wire.length.toString(16).padStart(16, "0") },
      }),
    );
  }
  const report = await client.appendRecipientsInBatches(orderId, wire);
  if (!report.ok) throw new Error("an append failed");
  const ids = new Map<string, number>();
  for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 }))
    ids.set(String(r.metadata.custom6), r.id);
  if (ids.size !== count) throw new Error(`listed ${ids.size} of ${count}`);
}

/** The provider hooks: check, then create (and the update to `changedFile`, not timed with them). */
async function providerHooks(target: Target, orderId: number): Promise<CaseResult["change"]> {
  const provider = providerFor("OrderRecipients");
  const values: Record<string, string> = {
    "directmail:baseUrl": target.url,
    "directmail:apiKey": target.apiKey,
  };
  await provider.configure({
    config: { get: (k: string) => values[k], require: (k: string) => values[k] as string },
  });
  const checked = await provider.check({}, { orderId, file: target.file });
  if (checked.failures?.length) throw new Error(JSON.stringify(checked.failures));
  const { outs } = await provider.create(checked.inputs);
  if (outs.acceptedCount !== target.count) throw new Error(`accepted ${outs.acceptedCount}`);
  if (target.changedFile === undefined) return undefined;
  // One recipient replaced, the rest of the list unchanged: the requests of the update.
  const news = (await provider.check(outs, { orderId, file: target.changedFile })).inputs;
  await provider.diff(String(orderId), outs, news);
  let requests = 0;
  const stop = observeRequests(() => requests++);
  const started = performance.now();
  const updated = await provider.update(String(orderId), outs, news);
  const ms = Math.round(performance.now() - started);
  stop();
  if (updated.outs.acceptedCount !== target.count) throw new Error(`accepted ${updated.outs.acceptedCount}`);
  return { requests, ms };
}

/** One case, in this process: prints one JSON line (CaseResult). */
async function runCase(kind: "provider" | "client", target: Target) {
  const client = new DirectMailClient({ baseUrl: target.url, apiKey: target.apiKey, timeoutMs: 600_000 });
  const { orderId } = await client.createOrder({ templateId: target.templateId });
  const started = performance.now();
  let change: CaseResult["change"];
  let ms: number;
  if (kind === "client") {
    await bareClient(client, orderId, target.file, target.count);
    ms = Math.round(performance.now() - started);
  } else {
    // The update is timed apart: the ratio compares the same calls.
    const timed = { ...target, changedFile: undefined };
    await providerHooks(timed, orderId);
    ms = Math.round(performance.now() - started);
    if (target.changedFile) {
      const { orderId: second } = await client.createOrder({ templateId: target.templateId });
      change = await providerHooks(target, second);
    }
  }
  await client.close();
  const result: CaseResult = {
    orderId,
    ms,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    change,
  };
  console.log(JSON.stringify(result));
}

/**
 * A case in a process of its own; its progress lines are not shown (a failure shows them). It runs
 * in the folder of the recipients file: the provider reads only files inside its project folder.
 */
function runInChild(kind: "provider" | "client", target: Target): CaseResult {
  const out = execFileSync(process.execPath, [__filename, "--case", JSON.stringify({ kind, target })], {
    cwd: path.dirname(target.file),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split("\n").pop() as string) as CaseResult;
}

/**
 * A `pulumi up` of an Order and an OrderRecipients of `file`, by the real CLI on a file backend; the
 * dynamic-provider process is watched through /proc (Linux) for its peak RSS.
 */
async function underEngine(target: Target): Promise<{ ms: number; peakRssMiB: number }> {
  if (!fs.existsSync("/proc/self/status"))
    throw new Error("the peak RSS under the engine is read from /proc (Linux)");
  // Under the repository, as the e2e programs are: `pulumi-directmail` resolves to this package.
  fs.mkdirSync(path.join(repoRoot, ".pulumi-test"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(repoRoot, ".pulumi-test", "bench-recipients-"));
  try {
    // The provider reads only files inside the project folder: a link would be followed out of it.
    const file = path.join(dir, path.basename(target.file));
    fs.copyFileSync(target.file, file);
    fs.writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      "name: bench-recipients\nruntime: nodejs\nmain: index.js\n",
    );
    fs.writeFileSync(
      path.join(dir, "index.js"),
      [
        'const { Order, OrderRecipients } = require("pulumi-directmail");',
        `const order = new Order("order", { templateId: ${target.templateId} });`,
        `const recipients = new OrderRecipients("recipients", { orderId: order.orderId, file: ${JSON.stringify(path.basename(file))} });`,
        "exports.accepted = recipients.acceptedCount;",
        "",
      ].join("\n"),
    );
    const env = offlinePulumiEnv(path.join(dir, ".pulumi"), target);
    const pulumi = (args: string[]) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn("pulumi", [...args, "--non-interactive", "--color", "never"], { cwd: dir, env });
        let output = "";
        child.stdout.on("data", (d) => {
          output = (output + d).slice(-4000);
        });
        child.stderr.on("data", (d) => {
          output = (output + d).slice(-4000);
        });
        child.once("error", reject);
        child.once("exit", (code) =>
          code === 0 ? resolve() : reject(new Error(`pulumi ${args.join(" ")} failed:\n${output}`)),
        );
      });
    await pulumi(["stack", "init", "bench"]);
    const peaks = new Map<number, number>();
    // The provider process of this program only (the engine starts it in the program's folder).
    const watch = setInterval(() => peaksOf("cmd/dynamic-provider", dir, peaks), 100);
    const started = performance.now();
    try {
      await pulumi(["up", "--yes", "--skip-preview"]);
    } finally {
      clearInterval(watch);
    }
    const ms = Math.round(performance.now() - started);
    if (peaks.size === 0) throw new Error("no dynamic-provider process was seen");
    return { ms, peakRssMiB: Math.round(Math.max(...peaks.values()) / 1024) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--case") {
    const { kind, target } = JSON.parse(args[1] as string);
    await runCase(kind, target);
    return;
  }
  const options = benchOptions(args);
  const { count, large, runs } = sizesOf("recipients", options);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-recipients-"));
  const sandbox = await startSandbox();
  const log = (text: string) => process.stderr.write(`recipients: ${text}\n`);
  try {
    const { apiKey } = await control<{ apiKey: string }>(sandbox.url, "/accounts", {});
    const { id: templateId } = await control<{ id: number }>(sandbox.url, "/templates", {
      apiKey,
      name: "Bench",
    });
    const file = path.join(dir, "recipients.csv");
    const changedFile = path.join(dir, "changed.csv");
    const largeFile = path.join(dir, "large.csv");
    await writeCsv(file, 0, count);
    await writeCsv(changedFile, 1, count, [count + 7]);
    await writeCsv(largeFile, 0, large);
    const target: Target = { url: sandbox.url, apiKey, templateId, file, count };

    // Alternating runs; the best of each, as the machine may be shared and noisy.
    let client: CaseResult | undefined;
    let provider: CaseResult | undefined;
    let providerRss = 0;
    for (let run = 1; run <= runs; run++) {
      const c = runInChild("client", target);
      const p = runInChild("provider", run === 1 ? { ...target, changedFile } : target);
      log(`run ${run}: bare client ${c.ms} ms, provider ${p.ms} ms`);
      if (!client || c.ms < client.ms) client = c;
      if (!provider || p.ms < provider.ms) provider = { ...p, change: p.change ?? provider?.change };
      providerRss = Math.max(providerRss, p.peakRssMiB);
    }
    if (!client || !provider?.change) throw new Error("no run finished");
    const largeRun = runInChild("provider", { ...target, file: largeFile, count: large });
    log(`${large}: provider hooks ${largeRun.ms} ms, peak RSS ${largeRun.peakRssMiB} MiB`);
    const engineRun = await underEngine({ ...target, file: largeFile, count: large });
    log(`${large}: pulumi up ${engineRun.ms} ms, provider process peak RSS ${engineRun.peakRssMiB} MiB`);

    const ratio = Math.round((provider.ms / client.ms) * 100) / 100;
    const figures: BenchFigure[] = [
      {
        key: "recipientsRatio",
        what: `syncing ${count} recipients from CSV: provider hooks (check, create) / the bare client syncing the same file`,
        value: ratio,
        unit: "x",
        floor: { what: `bare client, ${count} recipients`, value: client.ms, unit: "ms" },
        target: "<= 1.15",
        ok: ratio <= 1.15,
      },
      {
        key: "oneChangeRequests",
        what: `requests (reads and writes) of the update replacing one recipient of ${count}`,
        value: provider.change.requests,
        unit: "requests",
        target: "<= 5",
        ok: provider.change.requests <= 5,
      },
      {
        key: "peakRssMiB100k",
        what: `peak RSS of a process running the provider hooks alone, syncing ${count} recipients`,
        value: providerRss,
        unit: "MiB",
        target: `stated (${large}: ${largeRun.peakRssMiB} MiB)`,
        ok: true,
      },
      {
        key: "peakRssMiB1M",
        what: `peak RSS of the dynamic-provider process of a pulumi up syncing ${large} recipients from CSV`,
        value: engineRun.peakRssMiB,
        unit: "MiB",
        target: "<= 400",
        ok: engineRun.peakRssMiB <= 400,
      },
      {
        key: "peakRssMiB1MHooks",
        what: `peak RSS of a process running the provider hooks alone, syncing ${large} recipients from CSV`,
        value: largeRun.peakRssMiB,
        unit: "MiB",
        target: "stated",
        ok: true,
      },
    ];
    reportFigures(figures, options);
  } finally {
    sandbox.child.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
