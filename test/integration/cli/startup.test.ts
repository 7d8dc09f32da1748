/**
 * What `directmail` loads before a command runs: the commands that read no stack (validate,
 * whoami, sandbox, init...) never load the Pulumi SDK, about 0.4 s of CPU on each run; those that
 * read a stack load its Automation API when they do (cli/stack/settings.ts, `automation()`).
 * Checked on the built CLI, as `bin/directmail.js` runs it, with a preload that logs every module
 * the process loads.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../../..");
const BIN = path.join(ROOT, "bin/directmail.js");

/** The files the CLI loaded running `args`, from a preload that hooks the module loader. */
function loadedBy(args: string[]): string[] {
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
    execFileSync(process.execPath, ["--require", preload, BIN, ...args], { cwd: dir, stdio: "pipe" });
    return fs.readFileSync(log, "utf8").trim().split("\n");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it("directmail --version and validate do not load the Pulumi SDK", () => {
  for (const args of [["--version"], ["validate", "--help"]]) {
    const loaded = loadedBy(args);
    // The hook saw the CLI itself: the test would pass for nothing otherwise.
    expect(loaded.some((file) => file.endsWith(path.join("dist", "cli", "main.js")))).toBe(true);
    expect(loaded.filter((file) => file.includes(path.join("@pulumi", "pulumi")))).toEqual([]);
  }
});
