/**
 * Benchmark (not a test): syncs 100,000 recipients through the OrderRecipients provider hooks and
 * through the bare client making the same calls (append in batches of 5,000, then read the listing
 * for the ids), against a sandbox in its own process. Prints the time of each, their ratio (the
 * bare client is the floor), each one's peak memory, the size of what the state keeps, and the
 * requests and time of a one-recipient change.
 *
 *   npm run build && node dist/scripts/bench-recipients.js [count]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { DirectMailClient } from "../provider/api/client";
import { newOrderRecipient } from "../provider/api/recipients";
import type { OrderRecipient } from "../provider/api/schemas";
import { observeRequests, providerFor } from "../provider/resources/implementation";

const repoRoot = path.resolve(__dirname, "../..");

interface Target {
  url: string;
  apiKey: string;
  templateId: number;
  file: string;
  count: number;
}

function row(n: number) {
  return {
    firstName: `Ada${n}`,
    lastName: "Lovelace",
    address1: `${n} Main St`,
    city: "Springfield",
    state: "IL",
    zipCode: "62701",
  };
}

function writeCsv(file: string, ns: number[]) {
  const out = fs.createWriteStream(file);
  out.write("firstName,lastName,address1,city,state,zipCode\n");
  for (const n of ns) out.write(`Ada${n},Lovelace,${n} Main St,Springfield,IL,62701\n`);
  return new Promise((resolve) => out.end(resolve));
}

async function startSandbox(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "bin/directmail.js"), "sandbox", "--port", "0", "--data", ":memory:", "--quiet"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { url: JSON.parse(first).url, child };
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

/** One case, in this process: prints one JSON line of figures. */
async function runCase(kind: "provider" | "client", target: Target) {
  const client = new DirectMailClient({ baseUrl: target.url, apiKey: target.apiKey, timeoutMs: 300_000 });
  const { orderId } = await client.createOrder({ templateId: target.templateId });
  const started = performance.now();
  let stateBytes = 0;
  let change = { requests: 0, ms: 0 };
  if (kind === "client") {
    const wire: OrderRecipient[] = [];
    for (let n = 0; n < target.count; n++) {
      const r = row(n);
      wire.push(
        newOrderRecipient({
          address: { address1: r.address1, city: r.city, state: r.state, zipCode: r.zipCode },
          personal: { firstName: r.firstName, lastName: r.lastName },
          metadata: { custom6: n.toString(16).padStart(16, "0") },
        }),
      );
    }
    await client.appendRecipientsInBatches(orderId, wire);
    const ids = new Map<string, number>();
    for await (const r of client.iterateRecipients(orderId, { pageSize: 1000 }))
      ids.set(String(r.metadata.custom6), r.id);
    if (ids.size !== target.count) throw new Error(`listed ${ids.size} of ${target.count}`);
  } else {
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
    stateBytes = Buffer.byteLength(JSON.stringify({ inputs: checked.inputs, outputs: outs }));
    // One recipient replaced: the rest of the list unchanged.
    const changedFile = `${target.file}.changed.csv`;
    await writeCsv(changedFile, [
      ...Array.from({ length: target.count - 1 }, (_, i) => i + 1),
      target.count + 7,
    ]);
    const news = (await provider.check({}, { orderId, file: changedFile })).inputs;
    let requests = 0;
    const stop = observeRequests(() => requests++);
    const t0 = performance.now();
    await provider.update(String(orderId), outs, news);
    change = { requests, ms: Math.round(performance.now() - t0) };
    stop();
  }
  const ms = Math.round(performance.now() - started);
  await client.close();
  const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify({ kind, ms, peakRssMiB, stateBytes, change }));
}

async function main() {
  const [mode, json] = process.argv.slice(2);
  if (mode === "--case") {
    const { kind, target } = JSON.parse(json as string);
    await runCase(kind, target);
    return;
  }
  const count = Number(mode ?? 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-"));
  const sandbox = await startSandbox();
  try {
    const { apiKey } = await control<{ apiKey: string }>(sandbox.url, "/accounts", {});
    const { id: templateId } = await control<{ id: number }>(sandbox.url, "/templates", {
      apiKey,
      name: "Bench",
    });
    const file = path.join(dir, "recipients.csv");
    await writeCsv(
      file,
      Array.from({ length: count }, (_, i) => i),
    );
    const target: Target = { url: sandbox.url, apiKey, templateId, file, count };
    const results: Record<string, any> = {};
    // Each case in a process of its own, so that peak memory is that case's alone.
    for (const kind of ["client", "provider", "client", "provider"] as const) {
      const out = execFileSync(process.execPath, [__filename, "--case", JSON.stringify({ kind, target })], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: 16 * 1024 * 1024,
      });
      const figures = JSON.parse(out.trim().split("\n").pop() as string);
      // Keep the better of two runs: the machine is shared and noisy.
      if (!results[kind] || figures.ms < results[kind].ms) results[kind] = figures;
    }
    const { client, provider } = results;
    console.log(`recipients: ${count}`);
    console.log(`bare client (floor):   ${client.ms} ms, peak RSS ${client.peakRssMiB} MiB`);
    console.log(`provider hooks:        ${provider.ms} ms, peak RSS ${provider.peakRssMiB} MiB`);
    console.log(`ratio provider/client: ${(provider.ms / client.ms).toFixed(2)}`);
    console.log(
      `state kept (inputs + outputs JSON): ${(provider.stateBytes / 1024).toFixed(0)} KiB (${(provider.stateBytes / count).toFixed(1)} bytes a recipient)`,
    );
    console.log(`one-recipient change: ${provider.change.requests} requests, ${provider.change.ms} ms`);
  } finally {
    sandbox.child.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
