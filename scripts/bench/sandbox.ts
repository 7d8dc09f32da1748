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
import { AppendRecipientsRequest, type OrderRecipient } from "../../provider/api/schemas";
import { Sandbox } from "../../sandbox/sandbox";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

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
  duration?: number;
  amount?: number;
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
    } else if (typeof message === "object" && message !== null && "store" in message) {
      // The appends without HTTP, JSON or schema parsing: the domain and the store alone.
      const { batch, times } = message.store as { batch: number; times: number };
      const parsed = AppendRecipientsRequest.parse({ recipients: recipients(batch) }).recipients;
      const append = () => {
        const order = sandbox.orders.create(account.id, { templateId: template.id }).orderId;
        sandbox.recipients.append(account.id, order, parsed);
      };
      append();
      const before = process.cpuUsage();
      for (let i = 0; i < times; i++) append();
      const { user, system } = process.cpuUsage(before);
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

/** What the rounds of one target added up to. */
interface Measured {
  requests: number;
  wallSeconds: number;
  cpuSeconds: number;
}

const perWallSecond = (m: Measured) => m.requests / m.wallSeconds;
const perCpuSecond = (m: Measured) => m.requests / m.cpuSeconds;

async function main(): Promise<void> {
  const options = benchOptions();
  const args = process.argv.slice(2);
  const sizes = sizesOf("sandbox", options);
  const seconds = options.smoke
    ? sizes.seconds
    : Number(args[args.indexOf("--seconds") + 1]) || sizes.seconds;
  // The sandbox and its floor take turns, so a change of load on the machine falls on both.
  const { rounds, batch } = sizes;
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
  /** One round against one target: a time (`duration`) or a number of requests (`amount`). */
  const once = async (name: string, cannonOptions: CannonOptions, into: Measured): Promise<void> => {
    const before = await cpu();
    const started = performance.now();
    const r = await new Promise<CannonResult>((resolve, reject) =>
      cannon(cannonOptions, (error, result) => (error ? reject(error) : resolve(result))),
    );
    into.wallSeconds += (performance.now() - started) / 1000;
    into.cpuSeconds += ((await cpu()) - before) / 1e6;
    const failed = r.non2xx + r.errors + r.timeouts;
    if (failed > 0 || r.requests.total === 0) {
      throw new Error(
        `${name}: ${failed} of ${r.requests.total} requests failed; the figures would mean nothing`,
      );
    }
    into.requests += r.requests.total;
  };
  const pair = async (
    name: string,
    sandbox: CannonOptions,
    floor: CannonOptions,
  ): Promise<{ sandbox: Measured; floor: Measured }> => {
    const result = {
      sandbox: { requests: 0, wallSeconds: 0, cpuSeconds: 0 },
      floor: { requests: 0, wallSeconds: 0, cpuSeconds: 0 },
    };
    // Rounds not counted first: the first requests also compile and optimize the code they run.
    const warmUp = { requests: 0, wallSeconds: 0, cpuSeconds: 0 };
    for (let round = 0; round < sizes.warmUpRounds; round++) {
      await once(`sandbox ${name}`, sandbox, warmUp);
      await once(`floor ${name}`, floor, warmUp);
    }
    for (let round = 0; round < rounds; round++) {
      await once(`sandbox ${name}`, sandbox, result.sandbox);
      await once(`floor ${name}`, floor, result.floor);
    }
    if (!options.json) {
      for (const [who, m] of Object.entries(result)) {
        console.log(
          `${`${who} ${name}`.padEnd(36)} ${perWallSecond(m).toFixed(1).padStart(9)} req/s ${perCpuSecond(m).toFixed(1).padStart(9)} req/cpu-s`,
        );
      }
    }
    return result;
  };

  const body = JSON.stringify({ recipients: recipients(batch) });
  try {
    const me = await pair(
      "GET /v1/me",
      {
        url: `${info.sandboxUrl}/v1/me`,
        connections: 20,
        duration: seconds / rounds,
        headers: { "x-api-key": info.apiKey },
      },
      { url: `${info.floorUrl}/me`, connections: 20, duration: seconds / rounds },
    );
    let order = 0;
    // A number of requests, not a time: the CPU time then counts only requests that completed.
    // A round's CPU time also holds a fixed part besides its appends (connections, the idle process
    // between requests): about 30 ms, fitted from rounds of 4 and of 16 requests. 16 requests make it
    // under 5% of a round. A round takes about a second of wall time either way, autocannon's shortest.
    const amount = sizes.appends;
    const append = await pair(
      `PUT recipients x${batch}`,
      {
        url: info.sandboxUrl,
        connections: 2,
        amount,
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
      },
      {
        url: `${info.floorUrl}/recipients`,
        connections: 2,
        amount: amount * 4,
        method: "PUT",
        headers: { "content-type": "application/json" },
        body,
      },
    );
    const storeTimes = sizes.storeAppends;
    child.send({ store: { batch, times: storeTimes } });
    const storeCpuSeconds = (await next<{ cpuMicros: number }>()).cpuMicros / 1e6;
    const storePerSec = Math.round((storeTimes * batch) / storeCpuSeconds);
    const round = (n: number, digits = 2) => Number(n.toFixed(digits));
    const appendPerSec = Math.round(perCpuSecond(append.sandbox) * batch);
    const floorPerSec = Math.round(perCpuSecond(append.floor) * batch);
    const appendRatio = round(appendPerSec / floorPerSec);
    const meRatio = round(perCpuSecond(me.sandbox) / perCpuSecond(me.floor));
    const figures: BenchFigure[] = [
      {
        key: "sandboxAppendRatio",
        what: `recipients a second of the sandbox's CPU time / of the floor's, PUT of ${batch} a request, file store (sandbox: ${appendPerSec} a CPU second, ${Math.round(perWallSecond(append.sandbox) * batch)} a wall second)`,
        value: appendRatio,
        unit: "x",
        floor: {
          what: "plain fastify parsing the same body",
          value: floorPerSec,
          unit: "recipients/cpu-s",
        },
        target: ">= 0.6",
        ok: appendRatio >= 0.6,
      },
      {
        key: "sandboxStoreAppendPerSec",
        what: `the same appends through the domain and the store alone (no HTTP, JSON or schema parsing), a CPU second`,
        value: storePerSec,
        unit: "recipients/s",
        target: ">= 100000",
        ok: storePerSec >= 100_000,
      },
      {
        key: "meRatio",
        what: `GET /v1/me requests a CPU second, sandbox / plain fastify (wall: ${round(perWallSecond(me.sandbox) / perWallSecond(me.floor))})`,
        value: meRatio,
        unit: "x",
        floor: { what: "plain fastify GET", value: Math.round(perCpuSecond(me.floor)), unit: "req/cpu-s" },
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
