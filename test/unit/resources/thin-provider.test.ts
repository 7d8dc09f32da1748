/**
 * The provider text every directmail resource stores (`__provider`), loaded as Pulumi's
 * dynamic-provider process loads it: compiled as a module of its own, then `handler()`.
 * The e2e tests run it under the real engine; these check what they cannot reach.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RESOURCE_KINDS } from "../../../provider/resources/kinds";
import { storedProvider, withStoredProvider } from "../../../provider/resources/thin-provider";

const repoRoot = path.resolve(__dirname, "../../..");
const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "thin-provider-"));
afterAll(() => fs.rmSync(elsewhere, { recursive: true, force: true }));

/** Runs `body` in a fresh node process in `cwd`, with `provider` the stored text's handler(). */
function inProviderProcess(kind: string, cwd: string, body: string): string {
  const script = [
    'const Module = require("node:module");',
    `const m = new Module("stored-provider", null);`,
    `m._compile(${JSON.stringify(storedProvider(kind as never))}, "stored-provider.js");`,
    "const provider = m.exports.handler();",
    body,
  ].join("\n");
  return execFileSync(process.execPath, ["-e", script], { cwd, encoding: "utf8" });
}

describe("the stored provider", () => {
  it("is the same text for a kind on every machine: no path, only the kind differs", () => {
    for (const kind of RESOURCE_KINDS) {
      const text = storedProvider(kind);
      expect(text).not.toContain(repoRoot);
      expect(text).not.toContain(os.homedir());
      expect(text.replace(JSON.stringify(kind), '"K"')).toBe(
        storedProvider("Order").replace('"Order"', '"K"'),
      );
    }
  });

  it("is added to the inputs, after them", () => {
    expect(withStoredProvider("Order", { templateId: 5, __provider: "forged" })).toEqual({
      templateId: 5,
      __provider: storedProvider("Order"),
    });
  });

  it("gives the engine the seven hooks, which load the installed package's implementation of its kind", () => {
    const out = inProviderProcess(
      "ProviderInfo",
      repoRoot,
      [
        "console.log(JSON.stringify(Object.keys(provider)));",
        'provider.check({}, { label: "x" }).then((r) => console.log(JSON.stringify(r)));',
      ].join("\n"),
    );
    const [hooks, checked] = out.trim().split("\n");
    expect(JSON.parse(hooks ?? "")).toEqual([
      "configure",
      "check",
      "diff",
      "create",
      "read",
      "update",
      "delete",
    ]);
    expect(JSON.parse(checked ?? "")).toMatchObject({ inputs: { label: "x" } });
  });

  it("says what to do in a project that has not installed the package", () => {
    const out = inProviderProcess(
      "Order",
      elsewhere,
      // The engine awaits each hook inside its own async handler, so a throw reaches it either way.
      "Promise.resolve().then(() => provider.diff('1', {}, {})).then(() => console.log('loaded'), (e) => console.log(e.message));",
    );
    expect(out.trim()).toBe(
      `pulumi-directmail is not installed for the project in ${fs.realpathSync(elsewhere)}; run \`npm install pulumi-directmail\` there, then run the command again.`,
    );
  });
});
