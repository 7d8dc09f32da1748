/**
 * sdk/python and sdk/go are what `pulumi package gen-sdk` makes of the committed package schema
 * (scripts/generate-sdks.sh): regenerating them gives exactly the committed files.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "../../support/package";
import { filesUnder, goCommand, run } from "../../support/sdks";

const REGENERATE = "regenerate and commit: npm run generate:sdks";
const out = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-sdks-"));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

// Generous for a new machine, which builds the generator first (about a minute); seconds after.
it("sdk/python and sdk/go are committed as generated from schema/pulumi-package.json", {
  timeout: 600_000,
}, async () => {
  const env = { ...process.env, PATH: `${path.dirname(goCommand())}${path.delimiter}${process.env.PATH}` };
  await run("bash", ["scripts/generate-sdks.sh", out], { env });
  for (const language of ["python", "go"]) {
    const committed = path.join(repoRoot, "sdk", language);
    const generated = path.join(out, language);
    expect(filesUnder(committed), `${language}: the files; ${REGENERATE}`).toEqual(filesUnder(generated));
    for (const file of filesUnder(generated)) {
      expect(
        fs.readFileSync(path.join(committed, file), "utf8"),
        `sdk/${language}/${file}; ${REGENERATE}`,
      ).toBe(fs.readFileSync(path.join(generated, file), "utf8"));
    }
  }
});
