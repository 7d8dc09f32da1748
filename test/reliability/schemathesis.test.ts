/**
 * Schemathesis (from PyPI, in a virtual environment this test creates and caches) against
 * `directmail sandbox` in a child process, driven by the project's OpenAPI document with a valid key
 * and a fixed seed. Checks: no server error, every status and every response body as the document
 * says, a schema-violating request refused (ST201) and a schema-valid one accepted (ST202, with the
 * per-operation allowances of schemathesis.toml for rules a schema cannot state), content types as
 * documented, and no operation answering without a valid key (ST401).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { type CliSandbox, ROOT, scratchDir, startCliSandbox } from "../support/cli-sandbox";
import { atScale, recordFigures } from "./support/figures";

const run = promisify(execFile);

/** Pinned: a new release may add checks or change its output; move the pin on purpose. */
const SCHEMATHESIS_VERSION = "4.32.5";
const VENV = path.join(os.homedir(), ".cache", "pulumi-directmail", `schemathesis-${SCHEMATHESIS_VERSION}`);
const READY = path.join(VENV, ".installed");
const LOCK = `${VENV}.lock`;
/** A lock older than this was left by a killed install. */
const STALE_LOCK_MS = 10 * 60_000;

const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "response_schema_conformance",
  "negative_data_rejection",
  "positive_data_acceptance",
  "content_type_conformance",
  // Every operation refuses a request without the key or with a wrong one.
  "ignored_auth",
];
/** Failure codes of a 5xx (ST101) or a 5xx with an unexpected content type (ST102). */
const SERVER_ERROR_CODES = new Set(["ST101", "ST102"]);

const work = scratchDir("schemathesis");
let sandbox: CliSandbox | undefined;
afterAll(async () => {
  await sandbox?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * The venv with Schemathesis, created once per machine. A lock folder keeps concurrent test workers
 * from installing over each other; a venv is not relocatable, so it is built in place and marked
 * ready only when pip has finished.
 */
async function schemathesis(): Promise<string> {
  const bin = path.join(VENV, "bin", "schemathesis");
  for (;;) {
    if (fs.existsSync(READY)) return bin;
    try {
      fs.mkdirSync(LOCK, { recursive: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (Date.now() - fs.statSync(LOCK).mtimeMs > STALE_LOCK_MS)
        fs.rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      fs.rmSync(VENV, { recursive: true, force: true });
      await run("python3", ["-m", "venv", VENV]).catch((error) => {
        throw new Error(
          `Schemathesis needs Python 3.9 or later with venv (python3 -m venv): ${error.message}`,
        );
      });
      await run(path.join(VENV, "bin", "pip"), [
        "install",
        "--quiet",
        "--disable-pip-version-check",
        `schemathesis==${SCHEMATHESIS_VERSION}`,
      ]);
      fs.writeFileSync(READY, `${new Date().toISOString()}\n`);
    } finally {
      fs.rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

/** The counts of the summary: cases generated and failures by code (`❌ ST202 …: 3`). */
function parseSummary(output: string): { cases: number; failures: Map<string, number> } {
  const cases = /(\d+) generated/.exec(output);
  const failures = new Map<string, number>();
  for (const [, code, n] of output.matchAll(/❌ (ST\d{3})[^:\n]*: (\d+)/g))
    failures.set(code as string, Number(n));
  return { cases: cases ? Number(cases[1]) : 0, failures };
}

test(
  "Schemathesis finds no server error and no deviation from the OpenAPI document",
  async () => {
    const bin = await schemathesis();
    sandbox = await startCliSandbox(":memory:", ["--seed", "demo"]);
    const args = [
      "--config-file",
      path.join(__dirname, "schemathesis.toml"),
      "run",
      path.join(ROOT, "openapi/directmail-v1.json"),
      "--url",
      sandbox.url,
      // The header the spec names; sbx_demo_key is the key of the demo seed.
      "--header",
      "X-API-KEY: sbx_demo_key",
      "--seed",
      "20261123",
      "--checks",
      CHECKS.join(","),
      "--max-examples",
      String(atScale(5, 100)),
      "--workers",
      "1",
      "--generation-database",
      "none",
      "--no-color",
      "--report",
      "junit",
      "--report-dir",
      path.join(work, "report"),
    ];
    const result = await run(bin, args, { cwd: work, maxBuffer: 64 * 1024 * 1024 }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (error) => ({ code: error.code as number, output: `${error.stdout}${error.stderr}` }),
    );
    const { cases, failures } = parseSummary(result.output);
    let serverErrors = 0;
    let violations = 0;
    for (const [code, n] of failures) {
      if (SERVER_ERROR_CODES.has(code)) serverErrors += n;
      else violations += n;
    }
    recordFigures("schemathesis", {
      schemathesisCases: cases,
      schemathesisServerErrors: serverErrors,
      schemathesisSchemaViolations: violations,
    });
    // The whole report on failure: it names each operation, the check and a curl line to replay it.
    expect({ serverErrors, violations, exitCode: result.code }, result.output).toEqual({
      serverErrors: 0,
      violations: 0,
      exitCode: 0,
    });
    expect(cases).toBeGreaterThan(atScale(300, 3000));
  },
  atScale(240_000, 900_000),
);
