/**
 * The `directmail sandbox` command as a user runs it: the compiled CLI (dist/, built by
 * `npm run build` before the tests) in a child process, over real HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { DEFAULT_SANDBOX_PORT } from "../../cli/commands/sandbox";
import { DEFAULT_SANDBOX_URL } from "../../provider/settings";
import { type CliSandbox, ROOT, spawnCliSandbox } from "../support/cli-sandbox";
import { controlClient } from "../support/sandbox";
import { CHECKOUT } from "./fixtures";
import { http, recipients } from "./http";

const BIN = path.join(ROOT, "bin/directmail.js");
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-sandbox-"));
  dirs.push(dir);
  return dir;
}

interface Started extends CliSandbox {
  /** The CPU time the process took to start (user and system): a busy machine stretches its wall time, not this. */
  cpuMs: number;
}

/** The CPU time process `pid` has used so far, from Linux's /proc/PID/stat (utime and stime, in clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function start(args: string[]): Promise<Started> {
  const sandbox = await spawnCliSandbox(args);
  children.push(sandbox.child);
  return { ...sandbox, cpuMs: cpuMsOf(sandbox.child.pid ?? 0) };
}

describe("directmail sandbox", () => {
  test("the default port is the provider's default target", () => {
    expect(new URL(DEFAULT_SANDBOX_URL).port).toBe(String(DEFAULT_SANDBOX_PORT));
    expect(DEFAULT_SANDBOX_PORT).toBe(4010);
  });

  test("--seed demo starts in under 2 seconds and prints URL, key and template ids as the first stdout line", async () => {
    const s = await start(["--port", "0", "--data", tempDir(), "--seed", "demo"]);
    expect(s.cpuMs).toBeGreaterThan(0);
    expect(s.cpuMs).toBeLessThan(2000);
    expect(s.first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.first.apiKey).toBe("sbx_demo_key");
    expect(s.first.templates).toEqual({ postcard: expect.any(Number), letter: expect.any(Number) });
    const me = await http(s.first.url, "GET", "/v1/me", { apiKey: s.first.apiKey });
    expect(me.status).toBe(200);
    const templates = await http(s.first.url, "GET", "/v1/templates", { apiKey: s.first.apiKey });
    expect(templates.json.payload.map((t: any) => t.id)).toEqual([
      s.first.templates.postcard,
      s.first.templates.letter,
    ]);
    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  test("one log line per request on stderr, never the key; SIGINT stops it cleanly", async () => {
    const s = await start(["--port", "0", "--data", ":memory:", "--seed", "demo"]);
    await http(s.first.url, "GET", "/v1/me", { apiKey: s.first.apiKey });
    await http(s.first.url, "GET", "/v1/order", { apiKey: "wrong-key-123" });
    await http(s.first.url, "GET", `/_sandbox/ledger?apiKey=${s.first.apiKey}`);
    await new Promise((r) => setTimeout(r, 100));
    const lines = s.stderr().trim().split("\n");
    expect(lines.filter((l) => / GET \/v1\/me 200 /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / GET \/v1\/order 401 /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /\/_sandbox\/ledger\?apiKey=\*\*\* 200/.test(l))).toHaveLength(1);
    expect(s.stderr()).not.toContain(s.first.apiKey);
    expect(s.stderr()).not.toContain("wrong-key-123");
    s.child.kill("SIGINT");
    expect((await s.exited).code).toBe(0);
  });

  test("data survives SIGKILL: written, killed, restarted, still there; timed work resumes", async () => {
    const data = tempDir();
    const args = ["--port", "0", "--data", data, "--seed", "demo", "--quiet", "--settlement-seconds", "30"];
    const one = await start(args);
    const key = one.first.apiKey as string;
    const control = controlClient(one.first.url);
    await control.advanceClock(600);
    const second = await control.createAccount({ email: "second@shop.test", balance: 9 });
    const created = await http(one.first.url, "POST", "/v1/order", {
      apiKey: key,
      body: { templateId: one.first.templates.postcard },
    });
    const orderId = created.json.payload.orderId as number;
    await http(one.first.url, "PUT", `/v1/order/${orderId}/recipients`, {
      apiKey: key,
      body: { recipients: recipients(25) },
    });
    const draft = (
      await http(one.first.url, "POST", "/v1/order", {
        apiKey: key,
        body: { templateId: one.first.templates.letter },
      })
    ).json.payload.orderId;
    const checkout = await http(one.first.url, "POST", `/v1/order/${orderId}/checkout`, {
      apiKey: key,
      body: CHECKOUT,
    });
    expect(checkout.json.payload.orderStatus).toBe("Payment Needed");
    one.child.kill("SIGKILL");
    expect((await one.exited).signal).toBe("SIGKILL");

    const two = await start(args);
    expect(two.first.apiKey).toBe(key);
    expect(two.first.templates).toEqual(one.first.templates);
    const control2 = controlClient(two.first.url);
    const list = await http(two.first.url, "GET", "/v1/order", { apiKey: key });
    expect(list.json.payload.orders.map((o: any) => o.orderId)).toEqual([orderId, draft]);
    expect(list.json.payload.orders[0]).toMatchObject({ recipientCount: 25, orderStatus: "Payment Needed" });
    // The clock kept its advance across the kill.
    expect(Date.parse((await control2.clock()).now) - Date.now()).toBeGreaterThan(590_000);
    // The pending settlement was persisted as due work and runs in the new process, once.
    await control2.advanceClock(30);
    const settled = (await http(two.first.url, "GET", `/v1/order?id=${orderId}`, { apiKey: key })).json
      .payload.orders[0];
    expect(settled.orderStatus).toBe("Ready For Production");
    expect(settled.paidDate).not.toBeNull();
    const ledger = await control2.ledger(key);
    // The demo balance (100) covers 25 postcards: one balance charge.
    expect(
      ledger.entries
        .filter((e) => e.kind === "charge" && e.orderId === orderId)
        .map((e) => [e.method, e.outcome]),
    ).toEqual([["balance", "succeeded"]]);
    expect((await http(two.first.url, "GET", "/v1/me", { apiKey: second.apiKey })).json.payload.email).toBe(
      "second@shop.test",
    );
    // Seeding again found the demo account: still one demo account and two templates.
    const templates = await http(two.first.url, "GET", "/v1/templates", { apiKey: key });
    expect(templates.json.payload).toHaveLength(2);
    two.child.kill("SIGTERM");
    expect((await two.exited).code).toBe(0);
  });

  test("an acknowledged append of thousands survives SIGKILL, each recipient under the id it was given", async () => {
    // Rows are written a hundred to a statement: 4,321 is 43 full statements and a short one.
    const args = ["--port", "0", "--data", tempDir(), "--seed", "demo", "--quiet"];
    const one = await start(args);
    const key = one.first.apiKey as string;
    // One address of the batch is on the do-not-mail list: the append answers with its id.
    await controlClient(one.first.url).addDoNotMail({
      apiKey: key,
      address1: "150 Oak Avenue",
      city: "Springfield",
      state: "IL",
      zip: "62701",
    });
    const orderId = (
      await http(one.first.url, "POST", "/v1/order", {
        apiKey: key,
        body: { templateId: one.first.templates.postcard },
      })
    ).json.payload.orderId as number;
    const batch = recipients(4321);
    const appended = await http(one.first.url, "PUT", `/v1/order/${orderId}/recipients`, {
      apiKey: key,
      body: { recipients: batch },
    });
    expect(appended.status).toBe(200);
    expect(appended.json.payload.totalRecipients).toBe(4321);
    const marked = appended.json.payload.undeliverable.undeliverableRecipients as any[];
    expect(marked.map((r) => [r.personal.firstName, r.reason.split(":")[0]])).toEqual([
      ["R150", "DO_NOT_MAIL"],
    ]);
    // Killed right after the answer: what was acknowledged is in the WAL file.
    one.child.kill("SIGKILL");
    expect((await one.exited).signal).toBe("SIGKILL");

    const two = await start(args);
    const listed: any[] = [];
    for (let page = 1; ; page++) {
      const rows = (
        await http(two.first.url, "GET", `/v1/order/${orderId}/recipients?pageNumber=${page}&pageSize=1000`, {
          apiKey: key,
        })
      ).json.payload.recipients as any[];
      listed.push(...rows);
      if (rows.length < 1000) break;
    }
    expect(listed.map((r) => r.personal.firstName)).toEqual(batch.map((r) => r.personal.firstName));
    expect(listed.map((r) => r.address.address1)).toEqual(batch.map((_, i) => `${i + 1} OAK AVE`));
    // Consecutive ids, and the marked recipient's id is the one the append reported.
    expect(listed.map((r) => r.id - listed[0].id)).toEqual(listed.map((_, i) => i));
    expect(listed.find((r) => r.id === marked[0].id)?.personal.firstName).toBe("R150");
    two.child.kill("SIGTERM");
    expect((await two.exited).code).toBe(0);
  });

  test("a port in use is refused with advice, exit code 1", async () => {
    const first = await start(["--port", "0", "--data", ":memory:", "--quiet"]);
    const port = new URL(first.first.url).port;
    const child = spawn(process.execPath, [BIN, "sandbox", "--port", port, "--data", ":memory:"], {
      cwd: ROOT,
    });
    children.push(child);
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(err).toContain(`port ${port} on 127.0.0.1 is in use: pass --port 0`);
    first.child.kill("SIGTERM");
    await first.exited;
  });

  test("bad options are refused with a message", async () => {
    const child = spawn(process.execPath, [BIN, "sandbox", "--port", "99999"], { cwd: ROOT });
    children.push(child);
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(err).toMatch(/port/);
  });
});
