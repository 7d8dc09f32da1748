/**
 * Pulumi state in a shared object store, as two CI runners keep it: an S3-compatible server
 * (SeaweedFS, scripts/object-store-process.ts) holds the stack, and two clones of one campaign
 * repository, each with a Pulumi home of its own, run the real `pulumi` CLI against it with the
 * credentials in AWS_* variables and the passphrase in PULUMI_CONFIG_PASSPHRASE. The sandbox's
 * orders and ledger are the truth:
 * - one runner applies and the other, in turn, finds nothing to change;
 * - two `pulumi up` at once: the backend's lock refuses the second, and one charge is made;
 * - `directmail status`, `review` and `report` read the stack from the object store;
 * - a runner killed during a checkout leaves its lock and a pending create; the runbook of
 *   docs/teams.md (cancel, refresh --clear-pending-creates, up) converges, charging once.
 * One store, one sandbox and one repository serve every case, in order.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { type ObjectStore, startObjectStore } from "../../scripts/object-store-process";
import { paidCheckouts } from "../support/ledger";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { campaignYaml } from "./support/campaign";
import { type CommandResult, directmailIn, gitIn } from "./support/commands";
import { waitFor } from "./support/processes";
import { TEST_PASSPHRASE } from "./support/pulumi";

const repoRoot = path.resolve(__dirname, "../..");
const STACK = "prod";

let sb: TestSandbox;
let store: ObjectStore;
let apiKey: string;
let templateId: number;
let client: DirectMailClient;
let root: string;
const children: ChildProcess[] = [];

interface Runner {
  name: string;
  dir: string;
  env: Record<string, string>;
}
let origin: Runner;
let a: Runner;
let b: Runner;

/** A folder with a Pulumi home of its own, on the shared backend (as a CI runner is). */
function runner(name: string): Runner {
  const dir = path.join(root, name);
  const home = path.join(root, `${name}-home`);
  fs.mkdirSync(home, { recursive: true });
  return {
    name,
    dir,
    env: {
      ...(process.env as Record<string, string>),
      ...store.env,
      PULUMI_BACKEND_URL: store.backendUrl,
      PULUMI_HOME: home,
      PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    },
  };
}

/** The real pulumi CLI in the runner's clone: its exit code and what it printed. */
async function pulumi(r: Runner, ...args: string[]): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)("pulumi", [...args, "--non-interactive"], {
      cwd: r.dir,
      env: r.env,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as CommandResult;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const up = (r: Runner, ...args: string[]) =>
  pulumi(r, "up", "--yes", "--skip-preview", "--stack", STACK, ...args);

/**
 * `pulumi up` in the runner's clone, started in its own process group; `text` is what it printed
 * so far. With `killAt`, the whole group is killed (SIGKILL, as a runner that goes away) as soon as
 * the output matches it.
 */
function spawnUp(r: Runner, killAt?: RegExp) {
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", STACK], {
    cwd: r.dir,
    env: r.env,
    detached: true,
  });
  children.push(child);
  let output = "";
  let killed = false;
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    if (killAt && !killed && killAt.test(output)) {
      killed = true;
      process.kill(-(child.pid as number), "SIGKILL");
    }
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    get text() {
      return output;
    },
    get killed() {
      return killed;
    },
  };
}

const commit = async (file: string, text: string, message: string) => {
  fs.writeFileSync(path.join(origin.dir, "campaigns", file), text);
  await gitIn(origin.dir, "add", "-A");
  await gitIn(origin.dir, "commit", "-q", "-m", message);
  for (const r of [a, b]) await gitIn(r.dir, "pull", "-q", "--ff-only");
};

const pay = (name: string) => campaignYaml(name, templateId, { pay: true });

beforeAll(async () => {
  // Settlement takes 5 s, so that a runner can be killed while its checkout waits for it.
  const started = await Promise.all([
    startTestSandbox({
      log: () => {},
      timings: { settlementSeconds: 5, settlementExpectedWithinSeconds: 30 },
    }),
    startObjectStore(),
  ]);
  [sb, store] = started;
  ({ apiKey } = await sb.control.createAccount({ balance: 0 }));
  ({ id: templateId } = await sb.control.createTemplate({ apiKey, name: "Postcard" }));
  client = new DirectMailClient({ baseUrl: sb.url, apiKey });

  // The campaign repository: the project's program, its stack's settings (the key encrypted with
  // the passphrase) and the campaign files, committed; each runner clones it.
  fs.mkdirSync(path.join(repoRoot, ".pulumi-test"), { recursive: true });
  root = fs.mkdtempSync(path.join(repoRoot, ".pulumi-test", "object-store-"));
  origin = runner("origin");
  for (const item of ["Pulumi.yaml", "program"])
    fs.cpSync(path.join(repoRoot, item), path.join(origin.dir, item), { recursive: true });
  fs.mkdirSync(path.join(origin.dir, "campaigns"));
  fs.writeFileSync(path.join(origin.dir, "campaigns", "spring.yaml"), pay("spring"));
  // One `config set-all` for the three values: each pulumi command is a CLI start.
  for (const args of [
    ["stack", "init", STACK],
    [
      "config",
      "set-all",
      "--stack",
      STACK,
      "--plaintext",
      `directmail:baseUrl=${sb.url}`,
      "--secret",
      `directmail:apiKey=${apiKey}`,
      "--plaintext",
      "campaignsDir=campaigns",
    ],
  ]) {
    const done = await pulumi(origin, ...args);
    if (done.code !== 0) throw new Error(`pulumi ${args.join(" ")}: ${done.stderr}`);
  }
  await gitIn(origin.dir, "init", "-q", "-b", "main");
  await gitIn(origin.dir, "add", "-A");
  await gitIn(origin.dir, "commit", "-q", "-m", "spring");
  a = runner("runner-a");
  b = runner("runner-b");
  for (const r of [a, b]) await gitIn(root, "clone", "-q", origin.dir, r.dir);
  // Minutes only when SeaweedFS is not built yet and this file runs without scripts/test.sh, which
  // builds it first: the store then builds it (scripts/ensure-seaweedfs.sh).
}, 600_000);

afterAll(async () => {
  for (const child of children) {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {}
  }
  await client?.close();
  await store?.stop();
  await sb?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** The refusal a runner reads while the run of process `pid` holds the stack's lock. */
function lockedBy(pid: number): RegExp {
  const query = [
    `endpoint=${encodeURIComponent(store.endpoint)}`,
    "region=us-east-1",
    "request_checksum_calculation=when_required",
    "response_checksum_validation=when_required",
    "use_path_style=true",
  ].join("&");
  const lock = `s3://${store.bucket}/.pulumi/locks/organization/directmail-campaigns/${STACK}/[0-9a-f-]{36}\\.json`;
  return new RegExp(
    "^error: the stack is currently locked by 1 lock\\(s\\)\\. Either wait for the other process\\(es\\) to end " +
      "or delete the lock file with `pulumi cancel`\\.\\n" +
      `  ${lock}\\?${literal(query)}: created by ${literal(os.userInfo().username)}@${literal(os.hostname())} ` +
      `\\(pid ${pid}\\) at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
  );
}
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Each order's paid checkouts, by campaign, and every charge of the account. */
async function charges() {
  const ledger = await sb.control.ledger(apiKey);
  const orders = (await client.listOrders()).orders;
  return {
    paid: Object.fromEntries(orders.map((o) => [o.orderId, paidCheckouts(ledger, o.orderId)])),
    charges: ledger.entries.filter((e) => e.kind === "charge").map((e) => [e.orderId, e.amount, e.outcome]),
  };
}

/** The "Resources:" lines at the end of a pulumi command's output. */
const resources = (output: string) =>
  output
    .slice(output.lastIndexOf("\nResources:\n") + 1)
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("Duration:"));

describe("state in a shared object store, two runners on one stack", { timeout: 180_000 }, () => {
  const orderIds: Record<string, number> = {};

  it("one clone applies; the other, in turn, finds nothing to change", async () => {
    const first = await up(a);
    expect(first.code, first.stderr).toBe(0);
    expect(resources(first.stdout)).toEqual(["Resources:", "    + 6 created"]);
    const second = await up(b, "--expect-no-changes");
    expect([second.code, second.stderr]).toEqual([0, ""]);
    expect(resources(second.stdout)).toEqual(["Resources:", "    6 unchanged"]);
    const orders = (await client.listOrders()).orders;
    expect(orders.map((o) => [o.orderStatus, o.recipientCount])).toEqual([["Ready For Production", 2]]);
    orderIds.spring = (orders[0] as (typeof orders)[number]).orderId;
    expect(await charges()).toEqual({
      paid: { [orderIds.spring]: 1 },
      charges: [[orderIds.spring, 5, "succeeded"]],
    });
  });

  it("two ups at once: the backend's lock refuses the second, and one charge is made", async () => {
    await commit("autumn.yaml", pay("autumn"), "autumn");
    // The first run's order creation is slow at the service: its lock is held meanwhile.
    await sb.control.addFault({ method: "POST", path: "/v1/order", kind: "delay", delayMs: 3_000, times: 1 });
    const first = spawnUp(a);
    await waitFor("the first run's order to reach the service", 60, async () =>
      (await sb.control.listFaults()).faults[0]?.fired === 1 ? true : undefined,
    );
    const second = await up(b);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe("");
    expect(second.stderr).toMatch(lockedBy(first.child.pid as number));
    expect(await first.exited, first.text).toBe(0);
    await sb.control.clearFaults();
    expect(resources(first.text)).toEqual(["Resources:", "    + 4 created", "    6 unchanged"]);
    const autumn = (await client.listOrders()).orders.find(
      (o) => !Object.values(orderIds).includes(o.orderId),
    );
    orderIds.autumn = autumn?.orderId as number;
    expect(await charges()).toEqual({
      paid: { [orderIds.spring as number]: 1, [orderIds.autumn]: 1 },
      charges: [
        [orderIds.spring, 5, "succeeded"],
        [orderIds.autumn, 5, "succeeded"],
      ],
    });
  });

  it("a runner killed during a checkout: the next runner is refused until `pulumi cancel`, then `pulumi up` converges, charging once", async () => {
    await commit("winter.yaml", pay("winter"), "winter");
    // The runner goes away, pulumi, language host, program and provider alike, while its checkout
    // waits for the payment to settle.
    const killed = spawnUp(a, /Checkout of order \d+: accepted; waiting up to \d+ s for payment to settle/);
    await killed.exited;
    expect(killed.killed, killed.text).toBe(true);
    expect(killed.text).not.toMatch(/payment settled/);
    const winter = (await client.listOrders()).orders.find(
      (o) => !Object.values(orderIds).includes(o.orderId),
    );
    orderIds.winter = winter?.orderId as number;

    // Its lock stays (a DIY backend's lock has no expiry): every other run is refused.
    const refused = await up(b);
    expect([refused.code, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr).toMatch(lockedBy(killed.child.pid as number));

    const cancel = await pulumi(b, "cancel", "--yes", "--stack", STACK);
    expect([cancel.code, cancel.stdout, cancel.stderr]).toEqual([
      0,
      `The currently running update for '${STACK}' has been canceled!\n`,
      "",
    ]);
    // The killed run left the Checkout as a pending create, which `pulumi up` alone would warn
    // about and keep in the state: refresh clears it (the flag answers the question it would ask);
    // then `pulumi up` creates the Checkout again, and the provider finds the order checked out,
    // records it and charges nothing.
    const refresh = await pulumi(b, "refresh", "--yes", "--clear-pending-creates", "--stack", STACK);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    const recovered = await up(b);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stdout).not.toContain("pending operations");
    // The payment the killed run made may not have settled yet.
    expect(recovered.stdout).toMatch(
      new RegExp(
        `\\n    \\[directmail\\] Checkout of order ${orderIds.winter}: the order is already ` +
          '"(Payment Needed|Ready For Production)"; recording it, nothing is charged\\n',
      ),
    );
    expect(resources(recovered.stdout)).toEqual(["Resources:", "    + 1 created", "    13 unchanged"]);

    // Converged: no pending operation, nothing to change, one charge an order (once the payment
    // has settled: the sandbox's clock is moved past it).
    await sb.control.advanceClock(10);
    const exported = await pulumi(b, "stack", "export", "--stack", STACK);
    expect(JSON.parse(exported.stdout).deployment.pending_operations ?? []).toEqual([]);
    const none = await pulumi(b, "preview", "--expect-no-changes", "--stack", STACK);
    expect(none.code, none.stdout + none.stderr).toBe(0);
    expect(resources(none.stdout)).toEqual(["Resources:", "    14 unchanged"]);
    expect(await charges()).toEqual({
      paid: { [orderIds.spring as number]: 1, [orderIds.autumn as number]: 1, [orderIds.winter]: 1 },
      charges: [
        [orderIds.spring, 5, "succeeded"],
        [orderIds.autumn, 5, "succeeded"],
        [orderIds.winter, 5, "succeeded"],
      ],
    });
  });

  it("directmail status, review and report read the stack from the object store", async () => {
    const directmail = (...args: string[]) =>
      directmailIn({ cwd: b.dir, env: b.env }, ...args, "--stack", STACK);
    const status = await directmail("status");
    expect(status.code, status.stderr).toBe(0);
    const rows = status.stdout.split("\n");
    expect(rows[0]).toMatch(/^ORDER +CAMPAIGN +STATUS +PAID +SCANS +CHARGED +TRANSACTIONS +DELIVERY$/);
    expect(rows.slice(1).map((row) => row.split(/ {2,}/).slice(0, 3))).toEqual([
      [String(orderIds.autumn), "autumn", "Ready For Production"],
      [String(orderIds.spring), "spring", "Ready For Production"],
      [String(orderIds.winter), "winter", "Ready For Production"],
      [""],
    ]);
    expect(status.stderr).toContain(`directmail:apiKey of stack "${STACK}"`);

    const review = await directmail("review", "--base", "origin/main", "--out", "review");
    expect(review.stdout.split("\n")[0]).toBe(
      `3 campaigns of stack ${STACK}: the change spends nothing and has no step that cannot be undone (exit code 0)`,
    );
    expect(review.code).toBe(0);
    const json = JSON.parse(fs.readFileSync(path.join(b.dir, "review", "review.json"), "utf8"));
    expect(json.campaigns.map((c: { name: string; actions: string[] }) => [c.name, c.actions])).toEqual([
      ["autumn", ["no change"]],
      ["spring", ["no change"]],
      ["winter", ["no change"]],
    ]);

    const report = await directmail("report");
    expect([report.code, report.stderr]).toEqual([0, ""]);
    const file = path.join(b.dir, `directmail-report-${STACK}.html`);
    const kB = Math.round(fs.statSync(file).size / 1024);
    expect(report.stdout.split("\n")[0]).toBe(
      `wrote directmail-report-${STACK}.html (${kB} kB): stack ${STACK} of project directmail-campaigns, 3 orders`,
    );
    expect(report.stdout.split("\n")[1]).toMatch(/, 15\.00 USD spent$/);
  });

  it("stopping the store leaves no process, data or socket behind", async () => {
    const exists = () => [store.dir, ...store.sockets].map((file) => fs.existsSync(file));
    expect(exists()).toEqual([true, true, true, true, true]);
    await store.stop();
    expect(() => process.kill(-store.pid, 0)).toThrow(/ESRCH/);
    expect(exists()).toEqual([false, false, false, false, false]);
  });
});
