/**
 * Secrets: a distinctive API key, registered with the sandbox as an account's key and set with
 * `pulumi config set --secret directmail:apiKey` in a real stack, must appear nowhere a user, a
 * log or a file shows: preview, up, refresh and destroy (their output, their engine events and
 * the engine's verbose log, `--logtostderr -v=9`), the plain `pulumi stack export` and every file
 * of the state backend, `directmail whoami`, `proof` and `review` (its output and its report
 * files), and the errors a user meets: a wrong key, an unreachable service (a closed loopback
 * port), a 5xx and a timeout. The key is searched as written, base64- and URL-encoded, and by a
 * piece of it; a wrong key set by mistake is a secret too.
 *
 * Figures (part "secrets"): secretOccurrences (must be 0) and secretSearches (the places searched);
 * secretEngineTraceOccurrences counts the key in the pulumi engine's own -v=9 trace (see ENGINE_TRACE).
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { inspect, promisify } from "node:util";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { recipientsCsv } from "../e2e/support/campaign";
import { createTestStack, type TestStack } from "../e2e/support/pulumi";
import { startTestSandbox, type TestSandbox } from "../support/sandbox";
import { recordFigures } from "./support/figures";

const BIN = path.resolve(__dirname, "../../bin/directmail.js");

/** `dm_test_` and 32 random letters and digits. */
const distinctiveKey = () =>
  `dm_test_${randomBytes(48)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 32)}`;
const KEY = distinctiveKey();
/** A key set by mistake: the service refuses it, and it must not be shown either. */
const WRONG_KEY = distinctiveKey();

/** Every form a key could leak in: as written, encoded, or cut short. */
function forms(key: string): [string, string][] {
  return [
    ["as written", key],
    ["base64", Buffer.from(key).toString("base64")],
    ["base64url", Buffer.from(key).toString("base64url")],
    ["URL-encoded", encodeURIComponent(`x-api-key=${key}`).slice("x-api-key%3D".length)],
    ["hex", Buffer.from(key).toString("hex")],
    ["a piece", key.slice(10, 30)],
  ];
}

let searches = 0;
let occurrences = 0;
/**
 * The key in the pulumi engine's own trace of what it sends a provider (`Marshaling property for
 * RPC[...Configure()...]`, at -v=9 only): Pulumi's verbose log shows the values of secrets it
 * passes on, as its documentation warns. Counted apart; every other line of that log is searched.
 */
let engineTraceOccurrences = 0;
const ENGINE_TRACE = /^.*"msg":"(Unm|M)arshaling property for RPC\[.*$/gm;
const leaks: string[] = [];

/** Counts the key's occurrences in one place a user, a log or a file shows. */
function search(place: string, text: string): void {
  searches += 1;
  for (const [key, name] of [
    [KEY, "the key"],
    [WRONG_KEY, "the wrong key"],
  ] as const) {
    const count = (secret: string) => text.split(secret).length - 1;
    const asWritten = count(key);
    // Each form once: a form equal to one before it (URL-encoding changes no letter or digit) is
    // not counted again, nor a piece inside a whole key.
    const seen = new Set<string>();
    for (const [form, secret] of forms(key)) {
      if (seen.has(secret)) continue;
      seen.add(secret);
      const found = form === "a piece" ? count(secret) - asWritten : count(secret);
      occurrences += found;
      if (found > 0) {
        const at = text.indexOf(secret);
        leaks.push(`${place}: ${name} ${form} ×${found}: …${text.slice(Math.max(0, at - 300), at + 60)}…`);
      }
    }
  }
}

/** Every file under a folder (binary ones as latin1), each one a place searched. */
function searchFiles(place: string, dir: string): number {
  let files = 0;
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, name);
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > 50_000_000) continue;
    const bytes = fs.readFileSync(file);
    search(`${place}/${name}`, `${bytes.toString("utf8")}\n${bytes.toString("latin1")}`);
    files += 1;
  }
  return files;
}

let sb: TestSandbox;
let client: DirectMailClient;
let t: TestStack;
let stateDir: string;
let closedPort: number;

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(t.workDir, file)), { recursive: true });
  fs.writeFileSync(path.join(t.workDir, file), text);
};

/** A command in the project, with the stack's environment; its exit code and output. */
async function run(
  file: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd: t.workDir, env: t.env }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input ?? "");
  });
}
const directmail = (...args: string[]) => run(process.execPath, [BIN, ...args]);
const pulumi = (args: string[], input?: string) => run("pulumi", [...args, "--non-interactive"], input);

/** `pulumi config set --secret`, the value on stdin, as the docs tell users to. */
async function setSecretKey(key: string): Promise<void> {
  const set = await pulumi(["config", "set", "--secret", "directmail:apiKey", "--stack", "e2e"], key);
  search("pulumi config set --secret", set.stdout + set.stderr);
  expect(set.code, set.stderr).toBe(0);
}

/** A CLI command's output searched; the command itself returned. */
async function searched(place: string, ...args: string[]) {
  const result = await directmail(...args);
  search(`directmail ${place}`, result.stdout + result.stderr);
  return result;
}

/** A pulumi operation with its output, its engine events and the engine's verbose log, searched. */
async function operation(
  name: "preview" | "up" | "refresh" | "destroy",
  extra: { runProgram?: boolean } = {},
): Promise<{ ok: boolean; text: string; outputs?: Record<string, { value: unknown }> }> {
  const events: EngineEvent[] = [];
  const output: string[] = [];
  const options = {
    onOutput: (line: string) => output.push(line),
    onError: (line: string) => output.push(line),
    onEvent: (event: EngineEvent) => events.push(event),
    logToStdErr: true,
    logVerbosity: 9,
    ...extra,
  };
  let text: string;
  let ok = true;
  let outputs: Record<string, { value: unknown }> | undefined;
  try {
    const result = await t.stack[name](options);
    text = `${result.stdout}\n${result.stderr}`;
    if ("outputs" in result) outputs = result.outputs as Record<string, { value: unknown }>;
  } catch (error) {
    ok = false;
    text = `${(error as Error).message}\n${inspect(error)}`;
  }
  const all = `${output.join("")}\n${text}`;
  for (const line of all.match(ENGINE_TRACE) ?? [])
    engineTraceOccurrences += line.split(KEY).length - 1 + line.split(WRONG_KEY).length - 1;
  search(`pulumi ${name}: output and verbose log`, all.replace(ENGINE_TRACE, ""));
  search(`pulumi ${name}: engine events`, JSON.stringify(events));
  return { ok, text: `${output.join("")}\n${text}`, ...(outputs ? { outputs } : {}) };
}

/** The state as `pulumi stack export` prints it (secrets not shown) and every file of the backend. */
async function searchState(when: string): Promise<void> {
  const exported = await pulumi(["stack", "export", "--stack", "e2e"]);
  expect(exported.code, exported.stderr).toBe(0);
  search(`pulumi stack export ${when}`, exported.stdout + exported.stderr);
  expect(searchFiles(`state backend ${when}`, stateDir)).toBeGreaterThan(0);
}

beforeAll(async () => {
  sb = await startTestSandbox({ log: () => {} });
  await sb.control.createAccount({ apiKey: KEY, email: "secrets@example.com", balance: 100 });
  const { id: templateId } = await sb.control.createTemplate({ apiKey: KEY, name: "Postcard" });
  client = new DirectMailClient({ baseUrl: sb.url, apiKey: KEY });
  // A port that was free a moment ago and is closed now: connections to it are refused.
  closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  t = await createTestStack("secrets", {
    from: ["Pulumi.yaml", "program"],
    config: { "directmail:baseUrl": { value: sb.url }, campaignsDir: { value: "campaigns" } },
  });
  stateDir = new URL(t.env.PULUMI_BACKEND_URL as string).pathname;
  const head = (name: string) =>
    ["apiVersion: directmail/v1", "kind: Campaign", "metadata:", `  name: ${name}`, "spec:", "  order:"].join(
      "\n",
    );
  write(
    "campaigns/paid.yaml",
    `${head("paid")}\n    templateId: ${templateId}\n  recipients:\n    file: paid.csv\n` +
      "  checkout:\n    postageType: Standard\n    productionSpeed: Normal\n    maxTotal: 100\n",
  );
  write("campaigns/paid.csv", recipientsCsv([1, 2, 3]));
  write(
    "campaigns/draft.yaml",
    `${head("draft")}\n    templateId: ${templateId}\n  recipients:\n    inline:\n` +
      '      - { firstName: Ada, address1: 1 Main St, city: Springfield, state: IL, zipCode: "62701" }\n',
  );
  await setSecretKey(KEY);
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-q", "-m", "campaigns"],
  ]) {
    const git = await promisify(execFile)("git", args, {
      cwd: t.workDir,
      env: {
        ...t.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
    });
    search("git", git.stdout + git.stderr);
  }
}, 240_000);

afterAll(async () => {
  for (const leak of leaks) console.log(`key found: ${leak}`);
  recordFigures("secrets", {
    secretOccurrences: occurrences,
    secretSearches: searches,
    secretEngineTraceOccurrences: engineTraceOccurrences,
  });
  await client?.close();
  await t?.dispose();
  await sb?.close();
});

describe("a secret API key through a stack's whole life", { timeout: 300_000 }, () => {
  let orderId: number;

  it("review, preview, up, whoami, proof and refresh work and show the key nowhere", async () => {
    const review = await searched("review", "review", "--base", "main", "--out", "review-1");
    expect(review.stdout).toMatch(/^2 campaigns of stack e2e: /);
    expect(searchFiles("review-1", path.join(t.workDir, "review-1"))).toBeGreaterThanOrEqual(2);

    expect((await operation("preview")).ok).toBe(true);
    const up = await operation("up");
    expect(up.ok, up.text.slice(-2000)).toBe(true);
    search("pulumi up: stack outputs", JSON.stringify(up.outputs));
    const outputs = up.outputs as Record<string, { value: { orderId: number } }>;
    orderId = outputs.draft?.value.orderId as number;
    const paidOrder = outputs.paid?.value.orderId as number;
    expect((await client.getOrder(paidOrder))?.orderStatus).toMatch(
      /Payment Needed|Paid|Ready For Production/,
    );

    const whoami = await searched("whoami", "whoami");
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain("secrets@example.com");
    const proof = await searched("proof", "proof", String(orderId), "--out", "proofs/draft.pdf");
    expect(proof.code, proof.stderr).toBe(0);
    searchFiles("proofs", path.join(t.workDir, "proofs"));

    const again = await searched("review after up", "review", "--base", "main", "--out", "review-2");
    expect(again.code, again.stderr).not.toBe(1);
    searchFiles("review-2", path.join(t.workDir, "review-2"));
    expect((await operation("refresh")).ok).toBe(true);
    await searchState("after up");
  });

  // A no-change preview asks the service nothing (its plan needs no call), so the forced errors go
  // through `pulumi refresh --run-program`, which reads every resource from the service with the
  // configuration as it is now (a plain refresh configures the provider as the last update did).
  it("a wrong key: refresh, whoami and the client's error name the problem, not the key", async () => {
    await setSecretKey(WRONG_KEY);
    const refresh = await operation("refresh", { runProgram: true });
    expect(refresh.ok).toBe(false);
    const whoami = await searched("whoami with a wrong key", "whoami");
    expect(whoami.code).not.toBe(0);
    expect(whoami.stderr).toMatch(/401|key/i);
    const wrong = new DirectMailClient({ baseUrl: sb.url, apiKey: WRONG_KEY });
    const error = await wrong.me().catch((e: unknown) => e);
    await wrong.close();
    expect(error).toBeInstanceOf(Error);
    search(
      "client error, wrong key",
      `${(error as Error).message}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}`,
    );
    await setSecretKey(KEY);
    expect((await operation("refresh", { runProgram: true })).ok).toBe(true);
  });

  it("a 5xx from the service: refresh, whoami and the client's error show no key", async () => {
    await sb.control.addFault({ path: "/v1/*", kind: "status", status: 503 });
    try {
      expect((await operation("refresh")).ok).toBe(false);
      const whoami = await searched("whoami on a 5xx", "whoami");
      expect(whoami.code).not.toBe(0);
      const error = await client.me().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      search(
        "client error, 5xx",
        `${(error as Error).message}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}`,
      );
    } finally {
      await sb.control.clearFaults();
    }
  });

  it("a timeout: the client's error shows no key", async () => {
    await sb.control.addFault({ path: "/v1/*", kind: "delay", delayMs: 3_000 });
    try {
      const slow = new DirectMailClient({
        baseUrl: sb.url,
        apiKey: KEY,
        timeoutMs: 300,
        retry: { maxAttempts: 2 },
      });
      const error = await slow.me().catch((e: unknown) => e);
      await slow.close();
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/no complete response within/);
      search(
        "client error, timeout",
        `${(error as Error).message}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}`,
      );
    } finally {
      await sb.control.clearFaults();
    }
  });

  it("an unreachable service (a closed loopback port): refresh, whoami and the client's error show no key", async () => {
    const unreachable = `http://127.0.0.1:${closedPort}`;
    const set = await pulumi(["config", "set", "directmail:baseUrl", unreachable, "--stack", "e2e"]);
    expect(set.code, set.stderr).toBe(0);
    try {
      expect((await operation("refresh", { runProgram: true })).ok).toBe(false);
      const whoami = await searched("whoami, service unreachable", "whoami");
      expect(whoami.code).not.toBe(0);
      const away = new DirectMailClient({ baseUrl: unreachable, apiKey: KEY, retry: { maxAttempts: 1 } });
      const error = await away.me().catch((e: unknown) => e);
      await away.close();
      expect(error).toBeInstanceOf(Error);
      search(
        "client error, unreachable",
        `${(error as Error).message}\n${(error as Error).stack}\n${inspect(error, { depth: 10 })}`,
      );
    } finally {
      await pulumi(["config", "set", "directmail:baseUrl", sb.url, "--stack", "e2e"]);
    }
    // The failed refresh recorded the provider with that configuration: a refresh with the working
    // one records it again, as a user would after fixing the setting.
    expect((await operation("refresh", { runProgram: true })).ok).toBe(true);
  });

  it("destroy, and the state after it, show no key; no place showed it", async () => {
    expect((await operation("destroy")).ok).toBe(true);
    await searchState("after destroy");
    searchFiles("pulumi home", t.env.PULUMI_HOME as string);
    console.log(
      `secrets: ${searches} places searched, ${occurrences} occurrences of the key ` +
        `(and ${engineTraceOccurrences} in the pulumi engine's -v=9 trace of provider RPCs)`,
    );
    expect(leaks).toEqual([]);
    expect(searches).toBeGreaterThan(40);
  });
});
