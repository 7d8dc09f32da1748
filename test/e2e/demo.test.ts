/**
 * The README's main job, as a newcomer runs it: `npm run demo` (here its compiled script, with the
 * toolchain already on PATH) brings up the seeded sandbox, applies the example campaigns with the
 * real pulumi CLI, prints the summary and writes a proof PDF.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "../..");

describe("npm run demo", () => {
  it("applies the example campaigns, summarizes them and writes a proof", { timeout: 300_000 }, async () => {
    const proof = path.join(repoRoot, "out", "demo-proof.pdf");
    fs.rmSync(proof, { force: true });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, "dist/scripts/demo.js")],
      {
        cwd: repoRoot,
        maxBuffer: 32 * 1024 * 1024,
      },
    );
    expect(stdout).toContain("== summary");
    expect(stdout).toMatch(/spring-sale: order \d+, (Paid|Ready For Production)/);
    expect(stdout).toContain("recipients: 23 accepted, 1 dropped");
    expect(stdout).toMatch(/1 × ADDRESS_NOT_VALID: .*00000.* \(row 19\)/);
    expect(stdout).toMatch(/welcome-letters: order \d+, Draft/);
    expect(stdout).toMatch(/checkout: none yet/);
    expect(stdout).toMatch(/proof of order \d+ .*demo-proof\.pdf/);
    expect(fs.readFileSync(proof).subarray(0, 5).toString()).toBe("%PDF-");
    expect(fs.existsSync(path.join(repoRoot, "Pulumi.demo.yaml"))).toBe(false);
  });
});
