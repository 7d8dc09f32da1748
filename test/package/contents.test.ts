/**
 * What `npm publish` would upload: only what users run (no development scripts, no source maps
 * pointing at sources that are not shipped), within the size budget of docs/packaging.md, and
 * accepted by publint (--strict) and Are the Types Wrong.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  execFileAsync,
  formatBytes,
  type PackedPackage,
  packPackage,
  repoRoot,
  sizeBudgets,
} from "../support/package";

/** Every file of the package matches one of these; anything else is a packaging mistake. */
const ALLOWED: RegExp[] = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  // The CLI, and the provider plugin Pulumi runs for YAML (and other non-Node.js) programs.
  /^bin\/(directmail|pulumi-resource-directmail)\.js$/,
  // The compiled package, the CLI and the sandbox it starts: JavaScript and declarations only.
  /^dist\/(cli|provider|sandbox)\/[\w/.-]+\.(js|d\.ts)$/,
  // The package schema's field descriptions, which the plugin reads (scripts/field-descriptions.ts).
  /^dist\/provider\/plugin\/field-descriptions\.json$/,
  // The Python SDK's wheel (scripts/build-python-wheel.sh), which `init --python` copies into the project.
  /^dist\/python\/pulumi_directmail-\d+\.\d+\.\d+-py3-none-any\.whl$/,
  /^schema\/[\w.-]+\.json$/,
  /^openapi\/[\w.-]+\.json$/,
  // Documentation and examples, for the README's links; examples/gitops is also what `init --gitops` adds.
  /^docs\/[\w.-]+\.md$/,
  /^examples\/[\w/.-]+\.(md|yaml|yml|csv|json|ts|sh)$/,
  // The scaffold `directmail init` writes (its .gitignore is stored as `gitignore`: npm never packs a .gitignore),
  // and what `init --yaml` and `init --python` write over it.
  /^templates\/campaign-repo(-yaml)?\/([\w/.-]+\.(md|yaml|csv|json|ts)|gitignore)$/,
  /^templates\/campaign-repo-python\/([\w/.-]+\.(md|yaml|json|py|txt)|gitignore)$/,
];

/** What package.json's main, types, exports and bin name, and the files the CLI and editors read. */
const REQUIRED = [
  "package.json",
  "README.md",
  "bin/directmail.js",
  "bin/pulumi-resource-directmail.js",
  "dist/provider/index.js",
  "dist/provider/index.d.ts",
  "dist/provider/resources/implementation.js",
  "dist/cli/main.js",
  "dist/sandbox/index.js",
  `dist/python/pulumi_directmail-${JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version}-py3-none-any.whl`,
  "schema/campaign.schema.json",
  "openapi/directmail-v1.json",
  "templates/campaign-repo/index.ts",
  "templates/campaign-repo/gitignore",
  "templates/campaign-repo-yaml/Pulumi.yaml",
  "templates/campaign-repo-python/__main__.py",
  "templates/campaign-repo-python/requirements.txt",
  "examples/gitops/.github/workflows/campaigns.yml",
  "docs/campaign-format.md",
];

let tmp: string;
let packed: PackedPackage;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-pack-"));
  packed = await packPackage(tmp);
}, 120_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("carries only what users run", () => {
    const unexpected = packed.files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)));
    expect(unexpected, "files outside the allowlist of test/package/contents.test.ts").toEqual([]);
    expect(REQUIRED.filter((file) => !packed.files.includes(file))).toEqual([]);
    expect(packed.files.filter((file) => file.startsWith("dist/scripts/"))).toEqual([]);
    expect(packed.files.filter((file) => file.endsWith(".map"))).toEqual([]);
  });

  it("carries every file the README links to", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
      .map((match) => match[1] as string)
      .filter((link) => !/^[a-z]+:/.test(link));
    expect(links).toContain("docs/campaign-format.md");
    expect(links.filter((link) => !packed.files.includes(path.posix.normalize(link)))).toEqual([]);
  });

  it("has no JavaScript that points at a source map", () => {
    const mapped = packed.files
      .filter((file) => file.endsWith(".js"))
      .filter((file) => fs.readFileSync(path.join(repoRoot, file), "utf8").includes("//# sourceMappingURL="));
    expect(mapped).toEqual([]);
  });

  it("stays within the packed and unpacked size budget of docs/packaging.md", () => {
    const budget = sizeBudgets();
    expect(
      packed.size,
      `packed ${formatBytes(packed.size)}, budget ${formatBytes(budget.packed)}`,
    ).toBeLessThanOrEqual(budget.packed);
    expect(
      packed.unpackedSize,
      `unpacked ${formatBytes(packed.unpackedSize)}, budget ${formatBytes(budget.unpacked)}`,
    ).toBeLessThanOrEqual(budget.unpacked);
  });

  it("passes publint --strict", { timeout: 60_000 }, async () => {
    const { stdout } = await execFileAsync(
      path.join(repoRoot, "node_modules/.bin/publint"),
      ["run", packed.tarball, "--strict"],
      { cwd: repoRoot },
    ).catch((error) => {
      throw new Error(`publint --strict failed:\n${error.stdout}${error.stderr}`);
    });
    expect(stdout).toContain("All good!");
  });

  it("passes Are the Types Wrong for every entry point and resolution mode", {
    timeout: 60_000,
  }, async () => {
    // --no-definitely-typed: no @types look-up on the registry; the package ships its own types.
    const { stdout } = await execFileAsync(
      path.join(repoRoot, "node_modules/.bin/attw"),
      [packed.tarball, "--no-definitely-typed", "--no-color", "--no-emoji", "--format", "ascii"],
      { cwd: repoRoot },
    ).catch((error) => {
      throw new Error(`attw failed:\n${error.stdout}${error.stderr}`);
    });
    expect(stdout).toContain("No problems found");
  });
});
