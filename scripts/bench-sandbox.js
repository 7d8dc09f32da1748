#!/usr/bin/env node
"use strict";
/**
 * Sandbox throughput under concurrent load, on the loopback only, bounded in time:
 *   - GET /v1/me (authentication, clock tick, envelope) against a plain fastify route returning the
 *     same JSON (the floor: what fastify alone costs on this machine);
 *   - PUT /v1/order/{id}/recipients with 5,000 recipients per request (validation with the shared
 *     schemas, standardization, SQLite writes in one transaction) against a plain fastify route that
 *     parses the same body and answers a small JSON (the floor for body transfer and JSON parsing).
 * The servers run in a child process (one core), autocannon in this one (the other core). Needs
 * the build (`npm run build`). Usage: node scripts/bench-sandbox.js [--seconds 5] [--json]
 */
const { fork } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");

if (process.argv[2] === "--serve") {
  serve().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}

/** Child: the sandbox (file-backed, as `directmail sandbox` runs it) and the floor server. */
async function serve() {
  const { Sandbox } = require(path.join(ROOT, "dist/sandbox/sandbox.js"));
  const Fastify = require("fastify");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-bench-"));
  // No request log: one stderr line per request would measure the terminal, not the sandbox.
  const sandbox = new Sandbox({ storage: path.join(dir, "sandbox.db"), requestLog: false });
  const sandboxUrl = await sandbox.listen(0);
  const { apiKey, account } = sandbox.accounts.create({ email: "bench@sandbox.test" });
  const template = sandbox.templates.create(account.id, {
    name: "Bench",
    product: "Handwritten Postcard",
  });
  const orders = Array.from(
    { length: 64 },
    () => sandbox.orders.create(account.id, { templateId: template.id }).orderId,
  );
  const meBody = JSON.stringify({
    profile: sandbox.accounts.profile(account),
    payload: sandbox.accounts.profile(account),
  });

  const floor = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  floor.get("/me", async (_request, reply) => reply.header("content-type", "application/json").send(meBody));
  floor.put("/recipients", async (request) => ({ received: request.body.recipients.length }));
  await floor.listen({ port: 0, host: "127.0.0.1" });
  const floorUrl = `http://127.0.0.1:${floor.server.address().port}`;
  process.send({ sandboxUrl, floorUrl, apiKey, orders });
  process.on("message", async (message) => {
    if (message === "stop") {
      await floor.close();
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

function recipients(n, offset) {
  const { newOrderRecipient } = require(path.join(ROOT, "dist/provider/api/recipients.js"));
  return Array.from({ length: n }, (_, i) =>
    newOrderRecipient({
      address: {
        address1: `${offset + i + 1} Oak Avenue`,
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

function run(options) {
  const autocannon = require("autocannon");
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function main() {
  const args = process.argv.slice(2);
  const seconds = Number(args[args.indexOf("--seconds") + 1]) || 5;
  const asJson = args.includes("--json");
  if (!fs.existsSync(path.join(ROOT, "dist/sandbox/sandbox.js")))
    throw new Error("run `npm run build` first");
  const child = fork(__filename, ["--serve"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const info = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  const body = JSON.stringify({ recipients: recipients(5000, 0) });
  const rows = [];
  const measure = async (name, options) => {
    const r = await run({ ...options, duration: seconds });
    const row = {
      name,
      requestsPerSecond: r.requests.average,
      p50ms: r.latency.p50,
      p99ms: r.latency.p99,
      non2xx: r.non2xx + r.errors + r.timeouts,
      total: r.requests.total,
    };
    rows.push(row);
    return row;
  };
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
    let next = 0;
    const append = await measure("sandbox PUT recipients x5000", {
      url: info.sandboxUrl,
      connections: 2,
      requests: [
        {
          method: "PUT",
          // Spread the appends over many orders: each request is a fresh batch of 5,000 rows.
          setupRequest: (request) => ({
            ...request,
            path: `/v1/order/${info.orders[next++ % info.orders.length]}/recipients`,
          }),
          headers: { "x-api-key": info.apiKey, "content-type": "application/json" },
          body,
        },
      ],
    });
    const appendFloor = await measure("floor   PUT x5000 (plain fastify)", {
      url: `${info.floorUrl}/recipients`,
      connections: 2,
      method: "PUT",
      headers: { "content-type": "application/json" },
      body,
    });
    const ratios = {
      meVsFloor: me.requestsPerSecond / meFloor.requestsPerSecond,
      appendVsFloor: append.requestsPerSecond / appendFloor.requestsPerSecond,
      appendRecipientsPerSecond: append.requestsPerSecond * 5000,
    };
    if (asJson) {
      console.log(JSON.stringify({ seconds, rows, ratios }, null, 2));
    } else {
      console.log(
        `sandbox benchmark: ${seconds} s per measurement, loopback, ${os.cpus().length} cores, node ${process.version}`,
      );
      console.log("name                                  req/s     p50 ms   p99 ms   errors");
      for (const r of rows) {
        console.log(
          `${r.name.padEnd(36)} ${r.requestsPerSecond.toFixed(1).padStart(8)} ${String(r.p50ms).padStart(9)} ${String(r.p99ms).padStart(8)} ${String(r.non2xx).padStart(8)}`,
        );
      }
      console.log(`GET /v1/me: ${(ratios.meVsFloor * 100).toFixed(1)}% of the plain fastify floor`);
      console.log(
        `append 5,000: ${(ratios.appendVsFloor * 100).toFixed(1)}% of the floor; ${Math.round(ratios.appendRecipientsPerSecond)} recipients/s`,
      );
    }
    if (rows.some((r) => r.non2xx > 0)) {
      console.error("some requests failed: the numbers above are not valid");
      process.exitCode = 1;
    }
  } finally {
    child.send("stop");
  }
}
