/**
 * Benchmark part `sandbox` (not a test): the sandbox's throughput under concurrent load, on the
 * loopback, each measurement against a plain fastify route measured in the same run (the floor):
 *   - GET /v1/me (authentication, clock tick, envelope written through its schema) against a route
 *     answering the same JSON;
 *   - PUT /v1/order/{id}/recipients with 5,000 recipients a request (validation with the shared
 *     schemas, Publication 28 standardization, duplicates and do-not-mail, one SQLite transaction)
 *     against a route that parses the same body and answers a small JSON.
 * The servers run in a child process (one core: the sandbox is single-threaded), autocannon in
 * this one (the other core). Besides requests per wall second, each measurement reads the server
 * process's CPU time: on two cores the load generator can be the bottleneck (then both routes
 * show the same wall rate) and other work on the machine moves wall rates, while the server's
 * CPU time per request is what the server itself costs. Needs the build.
 *
 *   node dist/scripts/bench/sandbox.js [--seconds 5] [--json] [--smoke]
 */
import { fork } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Fastify from "fastify";
import { newOrderRecipient } from "../../provider/api/recipients";
import type { OrderRecipient } from "../../provider/api/schemas";
import { Sandbox } from "../../sandbox/sandbox";
import { type BenchFigure, benchOptions, reportFigures } from "./result";

const BATCH = 5000;

/** What the server process tells the parent once both servers listen. */
interface Serving {
  sandboxUrl: string;
  floorUrl: string;
  apiKey: string;
  orders: number[];
}

/** The few fields of autocannon's options and result this script uses (it ships no types). */
interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: Record<string, unknown>[];
}
interface CannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Cannon = (options: CannonOptions, done: (error: Error | null, result: CannonResult) => void) => void;

/** The child: the sandbox (file-backed, as `directmail sandbox` runs it) and the floor server. */
async function serve(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-"));
  // No request log: one stderr line per request would measure the terminal, not the sandbox.
  const sandbox = new Sandbox({ storage: path.join(dir, "sandbox.db"), requestLog: false });
  const sandboxUrl = await sandbox.listen(0);
  const { apiKey, account } = sandbox.accounts.create({ email: "bench@sandbox.test" });
  const template = sandbox.templates.create(account.id, { name: "Bench", product: "Handwritten Postcard" });
  const orders = Array.from(
    { length: 64 },
    () => sandbox.orders.create(account.id, { templateId: template.id }).orderId,
  );
  const profile = sandbox.accounts.profile(account);
  const meBody = JSON.stringify({ profile, payload: profile });

  const floor = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  floor.get("/me", async (_request, reply) => reply.header("content-type", "application/json").send(meBody));
  floor.put("/recipients", async (request) => ({
    received: (request.body as { recipients: unknown[] }).recipients.length,
  }));
  await floor.listen({ port: 0, host: "127.0.0.1" });
  const address = floor.server.address() as { port: number };
  const serving: Serving = { sandboxUrl, floorUrl: `http://127.0.0.1:${address.port}`, apiKey, orders };
  process.send?.(serving);
  process.on("message", async (message) => {
    if (message === "cpu") {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    } else if (message === "stop") {
      await floor.close();
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

function recipients(n: number): OrderRecipient[] {
  return Array.from({ length: n }, (_, i) =>
    newOrderRecipient({
      address: {
        address1: `${i + 1} Oak Avenue`,
        city: "Springfield",
        state: "IL",
        zipCode: "62701",
        country: "US",
      },
      personal: { firstName: `R${i}`, lastName: "Bench" },
      metadata: { custom1: "Gold", text: "Thanks for being a customer!" },
    }),
  );
}

interface Measured {
  /** Requests a wall second. */
  perSecond: number;
  /** Requests a second of the server process's CPU time. */
  perCpuSecond: number;
}

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const seconds = options.smoke ? 1 : Number(args[args.indexOf("--seconds") + 1]) || 5;
  const child = fork(__filename, ["--serve"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the server exited with ${code}`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        resolve(message as T);
      });
    });
  const info = await next<Serving>();
  const cpu = async () => {
    child.send("cpu");
    return (await next<{ cpuMicros: number }>()).cpuMicros;
  };
  const cannon = require("autocannon") as Cannon;
  const measure = async (name: string, cannonOptions: Omit<CannonOptions, "duration">): Promise<Measured> => {
    const before = await cpu();
    const r = await new Promise<CannonResult>((resolve, reject) =>
      cannon({ ...cannonOptions, duration: seconds }, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
    const cpuSeconds = ((await cpu()) - before) / 1e6;
    const failed = r.non2xx + r.errors + r.timeouts;
    if (failed > 0 || r.requests.total === 0) {
      throw new Error(
        `${name}: ${failed} of ${r.requests.total} requests failed; the figures would mean nothing`,
      );
    }
    if (!options.json) {
      console.log(
        `${name.padEnd(34)} ${r.requests.average.toFixed(1).padStart(9)} req/s ${(r.requests.total / cpuSeconds).toFixed(1).padStart(9)} req/cpu-s`,
      );
    }
    return { perSecond: r.requests.average, perCpuSecond: r.requests.total / cpuSeconds };
  };

  const body = JSON.stringify({ recipients: recipients(options.smoke ? 50 : BATCH) });
  const batch = options.smoke ? 50 : BATCH;
  try {
    const me = await measure("sandbox GET /v1/me", {
      url: `${info.sandboxUrl}/v1/me`,
      connections: 20,
      headers: { "x-api-key": info.apiKey },
    });
    const meFloor = await measure("floor   GET /me (plain fastify)", {
      url: `${info.floorUrl}/me`,
      connections: 20,
    });
    let order = 0;
    const append = await measure(`sandbox PUT recipients x${batch}`, {
      url: info.sandboxUrl,
      connections: 2,
      requests: [
        {
          method: "PUT",
          // Spread the appends over many orders: each request is a fresh batch.
          setupRequest: (request: Record<string, unknown>) => ({
            ...request,
            path: `/v1/order/${info.orders[order++ % info.orders.length]}/recipients`,
          }),
          headers: { "x-api-key": info.apiKey, "content-type": "application/json" },
          body,
        },
      ],
    });
    const appendFloor = await measure(`floor   PUT x${batch} (plain fastify)`, {
      url: `${info.floorUrl}/recipients`,
      connections: 2,
      method: "PUT",
      headers: { "content-type": "application/json" },
      body,
    });
    const round = (n: number, digits = 2) => Number(n.toFixed(digits));
    const appendPerSec = Math.round(append.perCpuSecond * batch);
    const meRatio = round(me.perCpuSecond / meFloor.perCpuSecond);
    const figures: BenchFigure[] = [
      {
        key: "sandboxAppendPerSec",
        what: `recipients a second of the sandbox's CPU time, PUT of ${batch} a request, file store (${Math.round(append.perSecond * batch)} a wall second)`,
        value: appendPerSec,
        unit: "recipients/s",
        floor: {
          what: "plain fastify parsing the same body",
          value: Math.round(appendFloor.perCpuSecond * batch),
          unit: "recipients/s",
        },
        target: ">= 100000",
        ok: appendPerSec >= 100_000,
      },
      {
        key: "meRatio",
        what: `GET /v1/me requests a CPU second, sandbox / plain fastify (wall: ${round(me.perSecond / meFloor.perSecond)})`,
        value: meRatio,
        unit: "x",
        floor: { what: "plain fastify GET", value: Math.round(meFloor.perCpuSecond), unit: "req/cpu-s" },
        target: ">= 0.6",
        ok: meRatio >= 0.6,
      },
    ];
    reportFigures(figures, options);
  } finally {
    child.send("stop");
  }
}

const run = process.argv[2] === "--serve" ? serve : main;
run().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
