/**
 * Each process's entry installs the runtime's patches, and only there: the compiled entry (dist/)
 * loaded in a fresh Node, then asked what was installed. A module of the package loaded on its own
 * installs nothing.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const dist = (file: string) => JSON.stringify(path.resolve(__dirname, "../../../dist", file));

/** What a fresh process shows once `start` ran: the memory policy, and the SDK's google-protobuf writer. */
async function installedAfter(
  start: string,
): Promise<{ memory: boolean; readers: boolean; longStrings: boolean }> {
  const script = `
    (async () => {
      ${start}
      const budget = require(${dist("provider/memory-budget.js")});
      const fromSdk = require("node:module").createRequire(require.resolve("@pulumi/pulumi"));
      const writeString = fromSdk("google-protobuf").BinaryWriter.prototype.writeString;
      console.log(JSON.stringify({
        memory: budget.memoryPolicyInstalled(),
        readers: budget.memoryBudget("provider") !== budget.memoryBudget("campaign-checks"),
        longStrings: writeString[Symbol.for("pulumi-directmail.longStrings")] === true,
      }));
      process.exit(0);
    })();`;
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
    encoding: "utf8",
    cwd: path.resolve(__dirname, "../../.."),
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
}

describe("the runtime's patches", () => {
  it("are installed by a Pulumi program's entry, the package's index", async () => {
    expect(await installedAfter(`require(${dist("provider/index.js")});`)).toEqual({
      memory: true,
      readers: true,
      longStrings: true,
    });
  }, 60_000);

  it("are installed by the directmail command's main", async () => {
    expect(
      await installedAfter(
        // A command that fails at once, its one line on stderr.
        `await require(${dist("cli/main.js")}).main(["node", "directmail", "validate", "no-such-file.yaml"]);`,
      ),
    ).toEqual({ memory: true, readers: true, longStrings: false });
  }, 60_000);

  it("are installed by the dynamic provider's entry; its answers' encoding only in Pulumi's provider host", async () => {
    expect(await installedAfter(`require(${dist("provider/resources/implementation.js")});`)).toEqual({
      memory: true,
      readers: true,
      longStrings: false,
    });
  }, 60_000);

  it("are installed by the provider plugin's main", async () => {
    const started = `const log = console.log; console.log = () => {}; await require(${dist("provider/plugin/main.js")}).main(["127.0.0.1:1"]); console.log = log;`;
    expect(await installedAfter(started)).toEqual({ memory: true, readers: true, longStrings: false });
  }, 60_000);

  it("are not installed by a module of the package loaded on its own", async () => {
    expect(await installedAfter(`require(${dist("provider/recipients/index.js")});`)).toEqual({
      memory: false,
      readers: false,
      longStrings: false,
    });
  }, 60_000);
});
