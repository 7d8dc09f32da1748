/**
 * The committed API report (etc/pulumi-directmail.api.md) is the package's public surface as API
 * Extractor reads it from the built declarations. A change to the surface without an updated
 * report fails here, so every API change shows in review as a diff of that file.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Extractor, ExtractorConfig, type ExtractorMessage } from "@microsoft/api-extractor";
import { expect, it } from "vitest";
import { repoRoot } from "../support/package";

it("etc/pulumi-directmail.api.md matches the public API of the built package", { timeout: 120_000 }, () => {
  const config = ExtractorConfig.loadFileAndPrepare(path.join(repoRoot, "api-extractor.json"));
  if (!fs.existsSync(config.mainEntryPointFilePath)) {
    throw new Error("dist/ is not built: run `npx tsc -p tsconfig.json` first (npm test does)");
  }
  const messages: ExtractorMessage[] = [];
  const result = Extractor.invoke(config, {
    // Not a local build: compare with the committed report, never overwrite it.
    localBuild: false,
    messageCallback: (message) => {
      messages.push(message);
      message.handled = true;
    },
  });
  const problems = messages
    .filter((m) => m.logLevel === "error" || m.logLevel === "warning")
    .map((m) => m.formatMessageWithLocation(repoRoot))
    .filter((text) => !/changed the (public )?API signature/.test(text));
  expect(problems, "API Extractor's errors and warnings").toEqual([]);

  const committed = fs.existsSync(config.reportFilePath)
    ? fs.readFileSync(config.reportFilePath, "utf8")
    : "";
  const current = fs.readFileSync(config.reportTempFilePath, "utf8");
  // On failure vitest prints the diff; `npm run api-report` writes the new report to commit.
  expect(
    current,
    "the public API changed: review the diff, then run `npm run api-report` and commit etc/pulumi-directmail.api.md",
  ).toBe(committed);
  expect(result.apiReportChanged).toBe(false);
});
