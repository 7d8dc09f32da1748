/**
 * `directmail validate` as CI runs it: the compiled CLI (dist/, built by `npm run build` or
 * `npx tsc -p tsconfig.json`), its output and its exit code.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubAnnotation } from "../../../cli/commands/validate";
import { MAX_NESTING } from "../../../provider/campaign/loader";
import { hostile } from "../../../scripts/hostile-files";
import { fileCampaign, GOOD_CSV, inlineCampaign, tempDir } from "../../unit/campaign/fixtures";

const ROOT = path.resolve(__dirname, "../../..");
const BIN = path.join(ROOT, "bin/directmail.js");
const tmp = tempDir("directmail-validate-");
afterAll(tmp.remove);

/** Runs the CLI in the temporary folder, so that problems print with paths relative to it. */
function validate(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, "validate", ...args], { cwd: tmp.dir, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  expect(
    fs.existsSync(path.join(ROOT, "dist/cli/commands/validate.js")),
    "run `npx tsc -p tsconfig.json` first",
  ).toBe(true);
  tmp.write("good/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
  tmp.write("good/people.csv", GOOD_CSV);
  tmp.write("good/nested/welcome.yml", `${inlineCampaign("welcome")}---\n${inlineCampaign("welcome-back")}`);
  tmp.write(
    "bad/campaign.yaml",
    fileCampaign("bad", "people.csv").replace("templateId: 10002", "templateId: ten"),
  );
  tmp.write("bad/people.csv", "firstName,address1,city,state,zipCode\nAda,12 Analytical St,London,KY,\n");
});

describe("directmail validate", () => {
  it("says what it checked and exits 0 when every campaign is fine (files and folders)", () => {
    const result = validate("good");
    expect(result).toEqual({
      code: 0,
      stdout: "checked 2 campaign files: 2 valid (3 campaigns)\n",
      stderr: "",
    });
    expect(validate(path.join("good", "spring.yaml"))).toEqual({
      code: 0,
      stdout: "checked 1 campaign file: 1 valid (1 campaign)\n",
      stderr: "",
    });
  });

  it("prints every problem as path:line:column: message and exits 1", () => {
    const result = validate("bad/campaign.yaml", "good");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toEqual([
      `${path.join("bad", "campaign.yaml")}:7:17: spec.order.templateId: must be a whole number; found "ten"`,
      `${path.join("bad", "people.csv")}:2:1: zipCode: zipCode is required`,
      "checked 3 campaign files: 2 valid, 1 with problems (2 problems)",
      "",
    ]);
  });

  it("--format github prints each problem as a GitHub Actions annotation on stdout, the summary on stderr", () => {
    const result = validate("--format", "github", "bad/campaign.yaml", "good");
    expect(result.code).toBe(1);
    expect(result.stdout.split("\n")).toEqual([
      `::error file=${path.join("bad", "campaign.yaml")},line=7,col=17::spec.order.templateId: must be a whole number; found "ten"`,
      `::error file=${path.join("bad", "people.csv")},line=2,col=1::zipCode: zipCode is required`,
      "",
    ]);
    expect(result.stderr).toBe("checked 3 campaign files: 2 valid, 1 with problems (2 problems)\n");
    expect(validate("--format", "github", "good")).toEqual({
      code: 0,
      stdout: "checked 2 campaign files: 2 valid (3 campaigns)\n",
      stderr: "",
    });
    expect(validate("--format", "xml", "good")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("argument 'xml' is invalid. Allowed choices are text, github."),
    });
  });

  it("escapes what GitHub reads as the end of a property or of the annotation", () => {
    const problem = { file: "/x", line: 3, column: 4, message: "100% sure\nnext line\r" };
    expect(githubAnnotation(problem, "dir,with:odd%name.yaml")).toBe(
      "::error file=dir%2Cwith%3Aodd%25name.yaml,line=3,col=4::100%25 sure%0Anext line%0D",
    );
  });

  it("on the repository's examples/ folder, says what it checked, then what failed and why", () => {
    const result = spawnSync(process.execPath, [BIN, "validate", "examples/"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr.split("\n")).toEqual([
      // The example list has a row the service drops, to show its drop report: a warning only.
      "examples/campaigns/spring-sale.csv:19:1: warning: the service will drop this row: ADDRESS_NOT_VALID: address.zipCode: ZIP code 00000 does not exist",
      "examples/go/Pulumi.yaml:1:1: not a campaign: a campaign document starts with apiVersion: directmail/v1 and kind: Campaign (a campaigns folder holds campaign files only)",
      'examples/two-step/paid/holiday-cards.yaml:11:9: metadata.name: the campaign name "holiday-cards" is already used in examples/two-step/draft/holiday-cards.yaml:10:9; each campaign needs its own name (it names the campaign\'s resources)',
      "examples/typescript/Pulumi.yaml:1:1: not a campaign: a campaign document starts with apiVersion: directmail/v1 and kind: Campaign (a campaigns folder holds campaign files only)",
      "checked 7 campaign files: 4 valid, 3 with problems (3 problems); the service will drop 1 recipient (the warnings above)",
      "",
    ]);
  });

  it("reports a path that does not exist, without a stack trace", () => {
    const result = validate("nowhere");
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "nowhere:1:1: not found\nchecked 0 campaign files: 0 valid, 1 path not found or unreadable (1 problem)\n",
    });
  });

  // 200,000 keys take some seconds of CPU, more on a busy machine: the file's own timeout.
  it("lists 100 problems of a file and counts the rest, even 200,000 of them; nesting too deep is one problem", {
    timeout: 120_000,
  }, () => {
    tmp.write("hostile/keys.yaml", hostile.specKeys(200_000)["campaign.yaml"] ?? "");
    tmp.write("hostile/deep.yaml", hostile.deepFlow(10_000)["campaign.yaml"] ?? "");
    const result = validate("hostile");
    expect(result.code).toBe(1);
    const keys = path.join("hostile", "keys.yaml");
    const lines = result.stderr.split("\n");
    expect(lines.slice(0, -2)).toEqual([
      `${path.join("hostile", "deep.yaml")}:9:74: YAML: sections and lists are nested more than ${MAX_NESTING} levels deep here; a campaign needs a few levels (see docs/campaign-format.md)`,
      ...Array.from(
        { length: 100 },
        (_, i) =>
          `${keys}:${15 + i}:3: spec: unknown key "k${i}"; allowed keys: order, recipients, checkout, addressBook, conversions, retain`,
      ),
      `${keys}:115:3: 199900 more problems in this file from here on, not listed (100 are listed per file); fix the ones above and check again`,
    ]);
    expect(lines.at(-2)).toContain("200001 problems");
    expect(lines.at(-1)).toBe("");
  });

  it("warns of each row the service will drop, exit 0; above maxDroppedPercent it fails, naming both figures", () => {
    const csv =
      "customerId,firstName,address1,city,state,zipCode\n" +
      "c1,Ada,12 Analytical St,London,KY,40741\n" +
      "c2,Grace,Compiler Way,Arlington,VA,22202\n";
    tmp.write("drops/people.csv", csv);
    tmp.write("drops/spring.yaml", fileCampaign("spring", "people.csv", "customerId"));
    const warned = validate("drops");
    expect(warned).toEqual({
      code: 0,
      stdout:
        "checked 1 campaign file: 1 valid (1 campaign); the service will drop 1 recipient (the warnings above)\n",
      stderr: `${path.join("drops", "people.csv")}:3:1: warning: the service will drop this row: ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number\n`,
    });
    tmp.write(
      "drops/spring.yaml",
      `${fileCampaign("spring", "people.csv", "customerId")}    maxDroppedPercent: 25\n`,
    );
    const failed = validate("drops", "--format", "github");
    expect(failed.code).toBe(1);
    expect(failed.stdout.split("\n")).toEqual([
      `::warning file=drops/people.csv,line=3,col=1::the service will drop this row: ADDRESS_NOT_VALID: address.address1: address1 has no primary (house) number`,
      "::error file=drops/spring.yaml,line=11,col=24::spec.recipients.maxDroppedPercent: the service will drop 1 of 2 recipients (50.0%25), more than maxDroppedPercent 25: row 3 (ADDRESS_NOT_VALID 1); fix or remove those rows, or raise maxDroppedPercent",
      "",
    ]);
    expect(failed.stderr).toBe(
      "checked 1 campaign file: 0 valid, 1 with problems (1 problem); the service will drop 1 recipient (the warnings above)\n",
    );
  });

  it("needs at least one path", () => {
    const result = validate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("missing required argument 'paths'");
  });
});
