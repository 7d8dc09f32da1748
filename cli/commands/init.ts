import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { pulumiSdkVersion } from "../../provider/plugin/schema";
import { packageManifest } from "../../provider/version";
import { say } from "../output";

/** The scaffold, in the package: every file is written, `{{name}}` placeholders filled in. */
const SCAFFOLD_DIR = "templates/campaign-repo";
/**
 * What `--yaml` writes over the scaffold: a Pulumi YAML project (`runtime: yaml`) declaring a
 * CampaignFolder through the provider plugin, instead of the TypeScript program.
 */
const YAML_DIR = "templates/campaign-repo-yaml";
/**
 * What `--python` writes over the scaffold: a Python project (`runtime: python`, its `virtualenv`
 * made from requirements.txt) whose `__main__.py` declares the CampaignFolder with the
 * pulumi_directmail SDK, served by the same plugin.
 */
const PYTHON_DIR = "templates/campaign-repo-python";
/**
 * The `pulumi_directmail` SDK's wheel that the package ships (scripts/build-python-wheel.sh builds
 * it before the package is packed): `--python` copies it into the project's `wheels/`, from which
 * requirements.txt installs it.
 */
const PYTHON_WHEEL_DIR = "dist/python";
/** The scaffold's TypeScript program, which Pulumi YAML and Python projects do without. */
const TYPESCRIPT_ONLY = ["index.ts", "tsconfig.json"];
/** The pull-request pipeline that `--gitops` adds over the scaffold (its README replaces the scaffold's). */
const GITOPS_DIR = "examples/gitops";

/**
 * Files stored under another name in the package: npm never packs a `.gitignore` (it reads it as
 * the package's ignore list), so the template holds it as `gitignore`.
 */
const STORED_AS: Record<string, string> = { gitignore: ".gitignore" };

export interface InitOptions {
  /** Add the GitHub Actions pipeline of examples/gitops (review on pull requests, deploy on merge). */
  gitops?: boolean;
  /** A Pulumi YAML project (Pulumi.yaml declares the folder) instead of a TypeScript program. */
  yaml?: boolean;
  /** A Python project (`__main__.py` declares the folder) instead of a TypeScript program. */
  python?: boolean;
}

export interface InitResult {
  /** The repository's folder, absolute. */
  dir: string;
  /** The files written, relative to `dir`, sorted. */
  written: string[];
  /** Entries added to a package.json that was already there ("dependencies.typescript"); empty when init wrote it. */
  addedToPackageJson: string[];
  /** For a Python project: the SDK's wheel written under wheels/, relative to `dir`, and the package's version. */
  pythonWheel?: { name: string; version: string };
}

/**
 * `directmail init [dir]`: a campaign repository that deploys on the first `pulumi up` against the
 * sandbox. Refuses, writing nothing, when any file it would write exists; a package.json that
 * exists (from `npm install pulumi-directmail`, say) only gains the dependencies it lacks.
 */
export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("Create a campaign repository: Pulumi project, campaigns/ with a draft campaign, README.")
    .argument("[dir]", "the folder to create it in (made if missing)", ".")
    .option("--gitops", "add the GitHub Actions pipeline: review on pull requests, pulumi up on merge")
    .option(
      "--yaml",
      "a Pulumi YAML project (Pulumi.yaml declares the campaign folder) instead of TypeScript",
    )
    .option("--python", "a Python project (__main__.py declares the campaign folder) instead of TypeScript")
    .action((dir: string, options: InitOptions) => {
      const result = initRepository(dir, options);
      say(describeResult(result));
    });
}

export function initRepository(dir: string, options: InitOptions = {}): InitResult {
  if (options.yaml && options.python) {
    throw new Error("--yaml and --python each choose the program's language: give one of them");
  }
  const pkg = packageManifest();
  if (!pkg) throw new Error("cannot find the pulumi-directmail package that holds the templates");
  const target = path.resolve(dir);
  const pulumiVersionRange = pkg.manifest.peerDependencies?.["@pulumi/pulumi"];
  if (!pulumiVersionRange)
    throw new Error(`${pkg.root}/package.json has no peer dependency on @pulumi/pulumi`);
  const values = {
    projectName: projectName(target),
    directmailVersion: pkg.manifest.version,
    pulumiVersionRange,
    // The Python SDK `pulumi` from the version the package is built and tested with, which the
    // generated pulumi_directmail SDK requires too.
    pulumiPythonFloor: pulumiSdkVersion(),
    // The lines of the README that differ between a TypeScript, a YAML and a Python program.
    ...(options.python
      ? {
          programSentence:
            "`__main__.py` declares the folder (a `CampaignFolder` of the `pulumi_directmail` Python SDK), " +
            "served by the provider plugin that `npm install` puts in `node_modules/.bin`; the first " +
            "`pulumi up` makes the `venv` from `requirements.txt`, with the SDK's wheel that `directmail init` " +
            "copied into `wheels/` from the pulumi-directmail package.",
          typecheckLine: "",
        }
      : options.yaml
        ? {
            programSentence:
              "`Pulumi.yaml` declares the folder (a `directmail:index:CampaignFolder`), served by the provider " +
              "plugin that `npm install` puts in `node_modules/.bin`.",
            typecheckLine: "",
          }
        : {
            programSentence: "`index.ts` is the one line that deploys the folder.",
            typecheckLine: "npm run typecheck      # index.ts against the installed package\n",
          }),
  };

  const files = templateFiles(path.join(pkg.root, SCAFFOLD_DIR));
  const languageDir = options.python ? PYTHON_DIR : options.yaml ? YAML_DIR : undefined;
  if (languageDir) {
    for (const name of TYPESCRIPT_ONLY) files.delete(name);
    for (const [name, source] of templateFiles(path.join(pkg.root, languageDir))) files.set(name, source);
  }
  if (options.gitops) {
    for (const [name, source] of templateFiles(path.join(pkg.root, GITOPS_DIR))) files.set(name, source);
  }
  // Copied as they are (a wheel is a zip), not rendered as text.
  const binaries = new Set<string>();
  const wheel = options.python ? pythonWheel(pkg.root, pkg.manifest.version) : undefined;
  if (wheel) {
    files.set(wheel.name, wheel.source);
    binaries.add(wheel.name);
  }

  const targetKind = kindOf(target);
  if (targetKind === "a link to nothing") {
    throw new Error(
      `${dir} is a link to a folder that does not exist; remove the link, or give another folder`,
    );
  }
  if (targetKind !== undefined && targetKind !== "a folder") {
    throw new Error(`${dir} is a file; give a folder for the campaign repository`);
  }
  const names = [...files.keys()].sort(byCodePoint);
  // Everything is checked before anything is written: a refusal leaves the folder as it was.
  const taken = names.flatMap((name) => takenPlace(target, name));
  if (taken.length > 0) {
    throw new Error(
      `${dir} already has ${[...new Set(taken)].join(", ")}; nothing was written. ` +
        "Run `directmail init` in a new or empty folder, or move those files away.",
    );
  }
  const packageJson = path.join(target, "package.json");
  const existingPackage = fs.existsSync(packageJson) ? readPackageJson(packageJson) : undefined;

  const written: string[] = [];
  let addedToPackageJson: string[] = [];
  for (const name of names) {
    if (binaries.has(name)) {
      const file = path.join(target, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(files.get(name) as string, file, fs.constants.COPYFILE_EXCL);
      written.push(name);
      continue;
    }
    const text = render(fs.readFileSync(files.get(name) as string, "utf8"), values);
    const file = path.join(target, name);
    if (name === "package.json" && existingPackage) {
      addedToPackageJson = mergePackageJson(existingPackage, JSON.parse(text));
      if (addedToPackageJson.length === 0) continue;
      fs.writeFileSync(file, `${JSON.stringify(existingPackage, null, 2)}\n`);
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // "wx": never replace a file, even one that appeared since the check above.
      fs.writeFileSync(file, text, { flag: "wx", mode: name.endsWith(".sh") ? 0o755 : 0o644 });
    }
    written.push(name);
  }
  return {
    dir: target,
    written,
    addedToPackageJson,
    ...(wheel && { pythonWheel: { name: wheel.name, version: pkg.manifest.version } }),
  };
}

/**
 * The wheel of the package at `root`, as the project's `wheels/<file>`. A checkout that has not
 * built it has none: init refuses before writing anything, naming the command that builds it.
 */
function pythonWheel(root: string, version: string): { name: string; source: string } {
  const file = `pulumi_directmail-${version}-py3-none-any.whl`;
  const source = path.join(root, PYTHON_WHEEL_DIR, file);
  if (!fs.statSync(source, { throwIfNoEntry: false })?.isFile()) {
    throw new Error(
      `this pulumi-directmail has no Python SDK wheel (${PYTHON_WHEEL_DIR}/${file}); ` +
        "build it with `npm run build:python-wheel` in its checkout, then run init again. Nothing was written.",
    );
  }
  return { name: `wheels/${file}`, source };
}

type PlaceKind = "a folder" | "a file" | "a link to nothing";

/**
 * What is at `file`, without following a link that leads nowhere (lstat: a dangling link exists
 * for a write, which would fail on it); undefined when nothing is.
 */
function kindOf(file: string): PlaceKind | undefined {
  const entry = fs.lstatSync(file, { throwIfNoEntry: false });
  if (entry === undefined) return undefined;
  const followed = entry.isSymbolicLink() ? fs.statSync(file, { throwIfNoEntry: false }) : entry;
  if (followed === undefined) return "a link to nothing";
  return followed.isDirectory() ? "a folder" : "a file";
}

/**
 * Why the scaffold's file `name` cannot be written in `target`: the file is there (a package.json
 * that is a file is merged instead), or a folder on its way is a file or a link to nothing.
 */
function takenPlace(target: string, name: string): string[] {
  const parts = name.split("/");
  for (let depth = 1; depth < parts.length; depth++) {
    const folder = parts.slice(0, depth).join("/");
    const kind = kindOf(path.join(target, folder));
    if (kind !== undefined && kind !== "a folder") return [`${folder} (${kind}, where a folder goes)`];
  }
  const kind = kindOf(path.join(target, name));
  if (kind === undefined || (name === "package.json" && kind === "a file")) return [];
  return [kind === "a file" ? name : `${name} (${kind})`];
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Relative path (as written) to the template file, for every file under `root`. */
function templateFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const source = path.join(entry.parentPath, entry.name);
    const relative = path.relative(root, source).split(path.sep);
    const base = relative.pop() as string;
    files.set([...relative, STORED_AS[base] ?? base].join("/"), source);
  }
  return files;
}

/** Fills `{{name}}` placeholders; others (such as GitHub's `${{ expr }}`) stay as they are. */
function render(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * The folder's name as a Pulumi project and npm package name (lowercase letters, digits, `-`, `.`,
 * `_`, not starting with `.` or `_`).
 */
function projectName(dir: string): string {
  const name = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|-+$/g, "")
    .slice(0, 100);
  return name || "campaigns";
}

type PackageJson = Record<string, unknown>;

function readPackageJson(file: string): PackageJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix it, then run init again`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file} is not a JSON object; fix it, then run init again`);
  }
  return parsed as PackageJson;
}

/**
 * Adds to `existing` the scripts and dependencies of the template that it lacks; what it has (the
 * version `npm install` chose, a script of the same name) stays. Returns what was added.
 */
function mergePackageJson(existing: PackageJson, template: PackageJson): string[] {
  const added: string[] = [];
  const declared = (name: string) =>
    ["dependencies", "devDependencies"].some((section) => name in sectionOf(existing, section));
  for (const section of ["scripts", "dependencies", "devDependencies"]) {
    for (const [name, value] of Object.entries(sectionOf(template, section))) {
      const into = sectionOf(existing, section);
      if (section === "scripts" ? name in into : declared(name)) continue;
      existing[section] = { ...into, [name]: value };
      added.push(`${section}.${name}`);
    }
  }
  return added;
}

function sectionOf(pkg: PackageJson, section: string): Record<string, unknown> {
  const value = pkg[section];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** `word` as one word of a POSIX shell command. */
function shellWord(word: string): string {
  return /^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function describeResult({ dir, written, addedToPackageJson, pythonWheel }: InitResult): string {
  const relative = path.relative(process.cwd(), dir);
  const lines = [`Created a campaign repository in ${relative || "."}${relative ? "/" : ""}:`];
  for (const name of written) {
    const merged = name === "package.json" && addedToPackageJson.length > 0;
    const note = merged
      ? ` (added ${addedToPackageJson.join(", ")})`
      : name === pythonWheel?.name
        ? ` (the Python SDK, from pulumi-directmail ${pythonWheel.version})`
        : "";
    lines.push(`  ${name}${note}`);
  }
  lines.push(
    "",
    "Next (README.md explains each step):",
    ...(relative ? [`  cd ${shellWord(relative)}`] : []),
    "  npm install",
    "  npx directmail sandbox --seed demo     # in a second terminal: the local service",
    "  pulumi login --local                   # unless you use another Pulumi backend",
    "  pulumi stack init dev",
    "  export PULUMI_CONFIG_PASSPHRASE=<that passphrase>   # what stack init asked for; directmail needs it too",
    "  pulumi config set --secret directmail:apiKey sbx_demo_key",
    pythonWheel
      ? "  pulumi up                              # the first run makes venv/ from requirements.txt and wheels/"
      : "  pulumi up",
  );
  return lines.join("\n");
}
