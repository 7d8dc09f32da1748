/**
 * Benchmark part `sandbox-time` (not a test): how long `GET /v1/me` waits while the sandbox's long
 * control operations run, against the same probe on the idle sandbox in the same run (the floor).
 * docs/sandbox.md promises an answer within 100 ms whatever the number of orders:
 *   - during `POST /_sandbox/deliver` of 5,000 paid orders whose steps fall at 20,000 instants;
 *   - during a clock step that makes the steps of 5,000 other orders due at once.
 * The sandbox (file-backed, `--speed 0`, the orders written in before it starts) runs in a child
 * process; the probes, one after another 20 ms apart, in this one. A loaded machine slows every
 * answer: the target is 100 ms above the slowest answer of the idle sandbox (a few ms when quiet).
 * Needs the build.
 *
 *   node dist/scripts/bench/sandbox-time.js [--json] [--smoke]
 */
import { fork } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Sandbox } from "../../sandbox/sandbox";
import { seedCheckedOutOrders } from "./paid-orders";
import { type BenchFigure, benchOptions, reportFigures } from "./result";
import { sizesOf } from "./sizes";

const TARGET_MS = 100;
const DAY_S = 86_400;

interface Serving {
  url: string;
  delivered: string;
  stepped: string;
}

/** The child: the orders written into a fresh folder, then the sandbox serving it. */
async function serve(orders: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-time-"));
  const [delivered, stepped] = await seedCheckedOutOrders(dir, [
    { count: orders, holdAfterDays: 10 },
    { count: orders, holdAfterDays: 400 },
  ]);
  const sandbox = new Sandbox({ storage: path.join(dir, "sandbox.db"), speed: 0, requestLog: false });
  const url = await sandbox.listen(0);
  const serving: Serving = { url, delivered: delivered?.apiKey ?? "", stepped: stepped?.apiKey ?? "" };
  process.send?.(serving);
  process.on("message", async () => {
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/** `GET /v1/me` one after another, 20 ms apart, until `running` settles (or `count` probes); the slowest. */
async function slowestProbe(
  url: string,
  apiKey: string,
  running: Promise<unknown> | number,
): Promise<number> {
  let done = false;
  if (typeof running !== "number") running.finally(() => (done = true)).catch(() => {});
  let slowest = 0;
  for (let i = 0; typeof running === "number" ? i < running : !done; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/me`, { headers: { "x-api-key": apiKey } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET /v1/me: ${response.status}`);
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await running;
  return slowest;
}

async function main(): Promise<void> {
  const options = benchOptions();
  const { orders, idleProbes } = sizesOf("sandbox-time", options);
  const child = fork(__filename, ["--serve", String(orders)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const serving = await new Promise<Serving>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
    child.once("message", (message) => resolve(message as Serving));
  });
  try {
    const { url } = serving;
    const idle = await slowestProbe(url, serving.delivered, idleProbes);
    let started = performance.now();
    const duringDeliver = await slowestProbe(
      url,
      serving.delivered,
      post(`${url}/_sandbox/deliver`, { apiKey: serving.delivered }),
    );
    const deliverSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const duringStep = await slowestProbe(
      url,
      serving.stepped,
      post(`${url}/_sandbox/clock/advance`, { seconds: 420 * DAY_S }),
    );
    const stepSeconds = (performance.now() - started) / 1000;
    const round = (n: number) => Math.round(n * 10) / 10;
    const floor = { what: "slowest GET /v1/me of the idle sandbox", value: round(idle), unit: "ms" };
    const figures: BenchFigure[] = [
      {
        key: "deliverMeSlowestMs",
        what: `slowest GET /v1/me during one deliver of ${orders} orders (${4 * orders} step instants, ${round(deliverSeconds)} s)`,
        value: round(duringDeliver),
        unit: "ms",
        floor,
        target: `<= floor + ${TARGET_MS}`,
        ok: duringDeliver <= idle + TARGET_MS,
      },
      {
        key: "clockStepMeSlowestMs",
        what: `slowest GET /v1/me during a clock step making the steps of ${orders} orders due (${round(stepSeconds)} s)`,
        value: round(duringStep),
        unit: "ms",
        floor,
        target: `<= floor + ${TARGET_MS}`,
        ok: duringStep <= idle + TARGET_MS,
      },
    ];
    reportFigures(figures, options);
  } finally {
    child.send("stop");
  }
}

const run = process.argv[2] === "--serve" ? () => serve(Number(process.argv[3])) : main;
run().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
