/**
 * The Python SDK's wheel (scripts/build-python-wheel.sh): named for package.json's version, it
 * installs from the file into a fresh virtual environment, and offers every resource typed, the
 * Campaign and CampaignFolder components, its enums, and `py.typed` for type checkers.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import packageJson from "../../package.json";
import { run } from "../support/sdks";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-wheel-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// pip brings pulumi and its dependencies (from its cache after the first run).
it("installs from the wheel file and offers the typed resources and the components", {
  timeout: 600_000,
}, async () => {
  const wheel = (await run("bash", ["scripts/build-python-wheel.sh", path.join(work, "dist")])).trim();
  expect(path.basename(wheel)).toBe(`pulumi_directmail-${packageJson.version}-py3-none-any.whl`);

  const venv = path.join(work, "venv");
  await run("python3", ["-m", "venv", venv]);
  const python = path.join(venv, "bin/python");
  await run(python, ["-m", "pip", "install", "--quiet", wheel]);
  const offered = JSON.parse(
    await run(python, [path.join(__dirname, "python/inspect_wheel.py")], { cwd: work }),
  );

  expect(offered).toEqual({
    version: packageJson.version,
    pyTyped: true,
    resources: {
      AddressBookEntry: "custom",
      AutomationRecipients: "custom",
      Campaign: "component",
      CampaignFolder: "component",
      Checkout: "custom",
      Conversions: "custom",
      Order: "custom",
      OrderRecipients: "custom",
      Provider: "provider",
      ProviderInfo: "custom",
      ProximitySearch: "custom",
    },
    folderArgs: ["dir"],
    orderTemplateId: "int",
    postageTypes: ["Standard", "FirstClass"],
    delimiters: { COMMA: ",", SEMICOLON: ";", TAB: "\t" },
  });
});
