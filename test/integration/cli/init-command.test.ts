/** `directmail init` as a user runs it (the built bin), in temporary folders. */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = path.resolve(__dirname, "../../..");
const bin = path.join(repoRoot, "bin/directmail.js");
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-init-"));

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(cwd: string, ...args: string[]) {
  return promisify(execFile)(process.execPath, [bin, ...args], { cwd });
}

/** The Python SDK's wheel as the package ships it, named for its version. */
const WHEEL = `pulumi_directmail-${manifest.version}-py3-none-any.whl`;

/**
 * A copy of the built package in its own folder (its dependencies linked), with `wheel` as its
 * dist/python wheel, or none: what a user installs, or a checkout that did not build the wheel.
 * Returns its `directmail` command.
 */
function packageCopy(name: string, wheel: Buffer | undefined) {
  const root = path.join(tmp, `${name}-package`);
  const dist = path.join(repoRoot, "dist");
  fs.cpSync(dist, path.join(root, "dist"), {
    recursive: true,
    filter: (source) => !["python", "scripts"].includes(path.relative(dist, source).split(path.sep)[0] ?? ""),
  });
  for (const entry of ["bin", "package.json"])
    fs.cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true });
  for (const entry of ["templates", "examples", "node_modules"])
    fs.symlinkSync(path.join(repoRoot, entry), path.join(root, entry));
  if (wheel) {
    fs.mkdirSync(path.join(root, "dist/python"));
    fs.writeFileSync(path.join(root, "dist/python", WHEEL), wheel);
  }
  return (cwd: string, ...args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, "bin/directmail.js"), ...args], { cwd });
}

/** Every file under `dir`, relative, sorted. */
function filesOf(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

const SCAFFOLD = [
  ".gitignore",
  "Pulumi.yaml",
  "README.md",
  "campaigns/welcome-postcard.csv",
  "campaigns/welcome-postcard.yaml",
  "index.ts",
  "package.json",
  "tsconfig.json",
];

describe("directmail init", () => {
  it("--yaml writes a Pulumi YAML project declaring the campaign folder, without the TypeScript program", async () => {
    await run(tmp, "init", "--yaml", "yaml-campaigns");
    const dir = path.join(tmp, "yaml-campaigns");
    expect(filesOf(dir)).toEqual(SCAFFOLD.filter((name) => !["index.ts", "tsconfig.json"].includes(name)));
    const project = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    expect(project).toMatch(/^name: yaml-campaigns\n[\s\S]*\nruntime: yaml\n/);
    expect(project).toContain(
      "    type: directmail:index:CampaignFolder\n    properties:\n      dir: campaigns\n",
    );
    expect(project).toContain("      path: ./node_modules/.bin\n");
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(pkg.dependencies["pulumi-directmail"]).toBe(`^${manifest.version}`);
    expect(pkg.devDependencies).toBeUndefined();
    // The README speaks of the YAML program, not of a TypeScript one it does not have.
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    expect(readme).toContain("`Pulumi.yaml` declares the folder (a `directmail:index:CampaignFolder`)");
    expect(readme).not.toMatch(/index\.ts|typecheck|\{\{/);
  });

  it("--python writes a Python project: __main__.py declares the folder, requirements.txt the SDK and pulumi, wheels/ the package's wheel", async () => {
    const wheel = Buffer.from("PK\x03\x04 the wheel of this package");
    const directmail = packageCopy("with-wheel", wheel);
    const { stdout } = await directmail(tmp, "init", "--python", "python-campaigns");
    const dir = path.join(tmp, "python-campaigns");
    expect(filesOf(dir)).toEqual(
      [
        ...SCAFFOLD.filter((name) => !["index.ts", "tsconfig.json"].includes(name)),
        "__main__.py",
        "requirements.txt",
        "wheels/README.md",
        `wheels/${WHEEL}`,
      ].sort(),
    );
    // The wheel the installed package ships, byte for byte: requirements.txt installs it from wheels/.
    expect(fs.readFileSync(path.join(dir, "wheels", WHEEL))).toEqual(wheel);
    expect(stdout).toContain(
      `\n  wheels/${WHEEL} (the Python SDK, from pulumi-directmail ${manifest.version})\n`,
    );
    expect(stdout).toMatch(
      /\n {2}pulumi up {30}# the first run makes venv\/ from requirements\.txt and wheels\/\n$/,
    );
    const project = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    expect(project).toMatch(/^name: python-campaigns\n[\s\S]*\nruntime:\n {2}name: python\n/);
    expect(project).toMatch(/\n {4}virtualenv: venv\n/);
    expect(project).toContain("      path: ./node_modules/.bin\n");
    expect(fs.readFileSync(path.join(dir, "__main__.py"), "utf8")).toContain(
      'campaigns = directmail.CampaignFolder("campaigns", dir="campaigns")\n\npulumi.export("campaigns", campaigns.outputs)\n',
    );
    const pulumiPin = manifest.devDependencies["@pulumi/pulumi"];
    expect(fs.readFileSync(path.join(dir, "requirements.txt"), "utf8")).toContain(
      `--find-links wheels\npulumi_directmail==${manifest.version}\npulumi>=${pulumiPin},<4.0.0\n`,
    );
    expect(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")).toMatch(/^venv\/$/m);
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    expect(readme).toContain("`__main__.py` declares the folder");
    expect(readme).not.toMatch(/index\.ts|typecheck|\{\{/);
  });

  it("--python refuses, writing nothing, when the package has no wheel, and names the command that builds it", async () => {
    const directmail = packageCopy("without-wheel", undefined);
    await expect(directmail(tmp, "init", "--python", "no-wheel")).rejects.toMatchObject({
      code: 1,
      stderr:
        `directmail: this pulumi-directmail has no Python SDK wheel (dist/python/${WHEEL}); ` +
        "build it with `npm run build:python-wheel` in its checkout, then run init again. Nothing was written.\n",
    });
    expect(fs.existsSync(path.join(tmp, "no-wheel"))).toBe(false);
  });

  it("refuses --yaml with --python, writing nothing", async () => {
    await expect(run(tmp, "init", "--yaml", "--python", "both")).rejects.toMatchObject({
      code: 1,
      stderr: "directmail: --yaml and --python each choose the program's language: give one of them\n",
    });
    expect(fs.existsSync(path.join(tmp, "both"))).toBe(false);
  });

  it("makes the folder and writes the scaffold, named after the folder", async () => {
    const { stdout } = await run(tmp, "init", "Spring Campaigns 2026");
    const dir = path.join(tmp, "Spring Campaigns 2026");
    expect(filesOf(dir)).toEqual(SCAFFOLD);
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toContain(
      "`index.ts` is the one line that deploys the folder.\n",
    );
    expect(stdout).toContain("Created a campaign repository in Spring Campaigns 2026/:\n  .gitignore\n");
    expect(stdout).toContain("\n  cd 'Spring Campaigns 2026'\n  npm install\n");
    expect(stdout).toMatch(/\n {2}pulumi up\n$/);

    const read = (name: string) => fs.readFileSync(path.join(dir, name), "utf8");
    expect(read("Pulumi.yaml")).toMatch(/^name: spring-campaigns-2026\n/);
    expect(JSON.parse(read("package.json"))).toMatchObject({
      name: "spring-campaigns-2026",
      private: true,
      dependencies: {
        "@pulumi/pulumi": manifest.peerDependencies["@pulumi/pulumi"],
        "pulumi-directmail": `^${manifest.version}`,
      },
      devDependencies: { typescript: "^5.9.3 || ^6.0.3" },
    });
    expect(JSON.parse(read("tsconfig.json")).compilerOptions).toMatchObject({
      module: "nodenext",
      moduleResolution: "nodenext",
    });
    expect(read("index.ts")).toContain(
      'export = new CampaignFolder("campaigns", { dir: "campaigns" }).outputs;\n',
    );
    expect(read("campaigns/welcome-postcard.yaml")).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/node_modules\/pulumi-directmail\/schema\/campaign\.schema\.json\n/,
    );
    expect(read(".gitignore")).toMatch(/^node_modules\/$/m);
    for (const name of SCAFFOLD) expect(read(name), name).not.toMatch(/\{\{\w+\}\}/);

    // The campaign it writes is valid as it stands.
    const validate = await run(dir, "validate", "campaigns");
    expect(validate.stdout).toBe("checked 1 campaign file: 1 valid (1 campaign)\n");
  });

  it("refuses, writing nothing, when a file it would write exists", async () => {
    const dir = path.join(tmp, "taken");
    fs.mkdirSync(path.join(dir, "campaigns"), { recursive: true });
    fs.writeFileSync(path.join(dir, "README.md"), "mine\n");
    fs.writeFileSync(path.join(dir, "campaigns/welcome-postcard.yaml"), "mine\n");
    await expect(run(dir, "init")).rejects.toMatchObject({
      code: 1,
      stderr:
        "directmail: . already has README.md, campaigns/welcome-postcard.yaml; nothing was written. " +
        "Run `directmail init` in a new or empty folder, or move those files away.\n",
    });
    expect(filesOf(dir)).toEqual(["README.md", "campaigns/welcome-postcard.yaml"]);
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toBe("mine\n");
  });

  it("refuses, writing nothing, beside links that lead nowhere, and names each with what to do", async () => {
    const dir = path.join(tmp, "dangling");
    fs.mkdirSync(dir);
    fs.symlinkSync(path.join(tmp, "gone-readme"), path.join(dir, "README.md"));
    fs.symlinkSync(path.join(tmp, "gone-folder"), path.join(dir, "campaigns"));
    fs.symlinkSync(path.join(tmp, "gone-package"), path.join(dir, "package.json"));
    await expect(run(dir, "init")).rejects.toMatchObject({
      code: 1,
      stderr:
        "directmail: . already has README.md (a link to nothing), " +
        "campaigns (a link to nothing, where a folder goes), package.json (a link to nothing); " +
        "nothing was written. Run `directmail init` in a new or empty folder, or move those files away.\n",
    });
    expect(fs.readdirSync(dir).sort()).toEqual(["README.md", "campaigns", "package.json"]);

    fs.symlinkSync(path.join(tmp, "gone-target"), path.join(tmp, "link-to-nothing"));
    await expect(run(tmp, "init", "link-to-nothing")).rejects.toMatchObject({
      code: 1,
      stderr:
        "directmail: link-to-nothing is a link to a folder that does not exist; remove the link, or give another folder\n",
    });
    expect(fs.existsSync(path.join(tmp, "gone-target"))).toBe(false);
  });

  it("writes a .gitignore that keeps what review, proof and report write out of git", async () => {
    const dir = path.join(tmp, "ignored");
    await run(tmp, "init", "ignored");
    await promisify(execFile)("git", ["init", "--quiet"], { cwd: dir });
    const written = ["review/review.md", "review/proofs/spring.pdf", "proof.pdf"];
    const reports = [
      "directmail-report-dev.html",
      "directmail-report.html",
      "out/directmail-report-prod.html",
    ];
    const kept = ["campaigns/welcome-postcard.yaml", "index.ts", "notes.html"];
    const { stdout } = await promisify(execFile)(
      "git",
      ["check-ignore", "--no-index", ...written, ...reports, ...kept],
      { cwd: dir },
    );
    expect(stdout.split("\n").filter(Boolean)).toEqual([...written, ...reports]);
  });

  it("adds only what a package.json from `npm install pulumi-directmail` lacks", async () => {
    const dir = path.join(tmp, "installed");
    fs.mkdirSync(dir);
    const existing = {
      name: "my-own-name",
      dependencies: { "pulumi-directmail": "^0.1.0", typescript: "5.9.3" },
      scripts: { validate: "my own validate" },
    };
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(existing));
    const { stdout } = await run(dir, "init");
    expect(stdout).toContain("  package.json (added scripts.typecheck, dependencies.@pulumi/pulumi)\n");
    expect(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))).toEqual({
      name: "my-own-name",
      dependencies: {
        "pulumi-directmail": "^0.1.0",
        typescript: "5.9.3",
        "@pulumi/pulumi": manifest.peerDependencies["@pulumi/pulumi"],
      },
      scripts: { validate: "my own validate", typecheck: "tsc" },
    });
    expect(filesOf(dir)).toEqual(SCAFFOLD);
  });

  it("leaves a package.json that has everything as it is", async () => {
    const dir = path.join(tmp, "complete");
    fs.mkdirSync(dir);
    await run(dir, "init");
    const before = fs.readFileSync(path.join(dir, "package.json"), "utf8");
    for (const name of SCAFFOLD) if (name !== "package.json") fs.rmSync(path.join(dir, name));
    fs.writeFileSync(path.join(dir, "package.json"), before.replaceAll("\n", "\r\n"));
    const { stdout } = await run(dir, "init");
    expect(stdout).not.toContain("package.json");
    expect(fs.readFileSync(path.join(dir, "package.json"), "utf8")).toBe(before.replaceAll("\n", "\r\n"));
  });

  it("says so when the folder is a file, or package.json is not JSON", async () => {
    fs.writeFileSync(path.join(tmp, "a-file"), "");
    await expect(run(tmp, "init", "a-file")).rejects.toMatchObject({
      code: 1,
      stderr: "directmail: a-file is a file; give a folder for the campaign repository\n",
    });
    const dir = path.join(tmp, "broken-package");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), "{ nope");
    await expect(run(dir, "init")).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^directmail: .*package\.json is not valid JSON \(.*\); fix it, then run init again\n$/,
      ),
    });
    expect(filesOf(dir)).toEqual(["package.json"]);
  });

  it("--gitops adds the pipeline of examples/gitops, whose README replaces the scaffold's", async () => {
    const dir = path.join(tmp, "gitops");
    await run(tmp, "init", "--gitops", "gitops");
    const gitops = path.join(repoRoot, "examples/gitops");
    expect(filesOf(dir)).toEqual([...SCAFFOLD, ...filesOf(gitops).filter((f) => f !== "README.md")].sort());
    for (const name of filesOf(gitops)) {
      expect(fs.readFileSync(path.join(dir, name), "utf8"), name).toBe(
        fs.readFileSync(path.join(gitops, name), "utf8"),
      );
      const executable = (fs.statSync(path.join(dir, name)).mode & 0o111) !== 0;
      expect(executable, name).toBe(name.endsWith(".sh"));
    }
  });
});
