/**
 * What `directmail` loads before a command runs: no command loads the Pulumi SDK, about 0.4 s of
 * CPU on each run, not even those that read a stack inside a project, which ask the project's
 * `pulumi` CLI (cli/stack/pulumi.ts). Checked on the built CLI, as `bin/directmail.js` runs it,
 * with a preload that logs every module the process loads.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../../..");
const BIN = path.join(ROOT, "bin/directmail.js");

/**
 * The files the CLI loaded running `args` (in a fresh folder, which `prepare` may make a project),
 * from a preload that hooks the module loader; and what it printed on stderr.
 */
function loadedBy(
  args: string[],
  prepare: (dir: string) => NodeJS.ProcessEnv = () => process.env,
): { loaded: string[]; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-startup-"));
  try {
    const log = path.join(dir, "loaded.txt");
    const preload = path.join(dir, "log-loads.cjs");
    fs.writeFileSync(
      preload,
      [
        'const Module = require("node:module");',
        'const fs = require("node:fs");',
        "const load = Module._load;",
        "Module._load = function (request, parent, isMain) {",
        "  const loaded = load.apply(this, arguments);",
        `  try { fs.appendFileSync(${JSON.stringify(log)}, Module._resolveFilename(request, parent, isMain) + "\\n"); } catch {}`,
        "  return loaded;",
        "};",
      ].join("\n"),
    );
    const env = prepare(dir);
    const run = spawnSync(process.execPath, ["--require", preload, BIN, ...args], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    return { loaded: fs.readFileSync(log, "utf8").trim().split("\n"), stderr: run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it("directmail --version and validate do not load the Pulumi SDK", () => {
  for (const args of [["--version"], ["validate", "--help"]]) {
    const { loaded } = loadedBy(args);
    // The hook saw the CLI itself: the test would pass for nothing otherwise.
    expect(loaded.some((file) => file.endsWith(path.join("dist", "cli", "main.js")))).toBe(true);
    expect(loaded.filter((file) => file.includes(path.join("@pulumi", "pulumi")))).toEqual([]);
  }
});

it("directmail whoami inside a Pulumi project asks its pulumi CLI, without loading the Pulumi SDK", () => {
  const asked = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "directmail-startup-asked-")), "asked.txt");
  const { loaded, stderr } = loadedBy(["whoami"], (dir) => {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: campaigns\nruntime: nodejs\n");
    // A stand-in pulumi on PATH: the project has no stack selected, so the environment is read.
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, "pulumi"), `#!/bin/sh\necho "$*" >> "${asked}"\necho "[]"\n`, {
      mode: 0o755,
    });
    const { DIRECTMAIL_API_KEY: _key, DIRECTMAIL_BASE_URL: _url, ...env } = process.env;
    return { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  });
  try {
    expect(fs.readFileSync(asked, "utf8")).toBe("stack ls --json --non-interactive\n");
  } finally {
    fs.rmSync(path.dirname(asked), { recursive: true, force: true });
  }
  expect(stderr).toMatch(/^directmail: no API key for \S+: set DIRECTMAIL_API_KEY/);
  expect(loaded.filter((file) => file.includes(path.join("@pulumi", "pulumi")))).toEqual([]);
});
