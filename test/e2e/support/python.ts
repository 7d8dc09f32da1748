/**
 * Python programs for the end-to-end tests: the `pulumi_directmail` wheel
 * (scripts/build-python-wheel.sh; also put in the checkout's dist/python, which the package ships
 * and `directmail init --python` copies), a wheel folder holding it and everything its
 * requirements need, and one virtual environment made from them by the project's Python language
 * host (`pulumi install`). Both are cached in $DIRECTMAIL_CACHE_DIR/python-env-<key>, keyed by the
 * wheel's contents, the requirements and the Python version, so a run makes the environment at
 * most once, and later runs not at all while the SDK is unchanged. Test projects link their `venv`
 * to it; pip runs offline from the wheel folder. */
import { execFile } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, "../../..");
const cacheDir =
  process.env.DIRECTMAIL_CACHE_DIR ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "pulumi-directmail");

/** The Python SDK's version: package.json's, which the wheel carries. */
export const SDK_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"),
).version;
/** The Python SDK of `pulumi` that goes with the CLI: package.json's pin of @pulumi/pulumi. */
export const PULUMI_PYTHON_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"),
).devDependencies["@pulumi/pulumi"];

/** What a test program's requirements.txt says: the SDK by version (from the wheel folder) and pulumi. */
export const REQUIREMENTS = `pulumi_directmail==${SDK_VERSION}\npulumi==${PULUMI_PYTHON_VERSION}\n`;

/** Environments unused this long are removed when another is made. */
const STALE_MS = 7 * 24 * 3600 * 1000;

export interface PythonEnvironment {
  /** The wheel, in the wheel folder. */
  wheel: string;
  /** The folder of wheels pip installs from, offline. */
  wheelhouse: string;
  /** The virtual environment, made by `pulumi install` through the project's Python host. */
  venv: string;
  /** Environment variables for pip: offline, from the wheel folder. */
  pipEnv: Record<string, string>;
}

/** pip, offline: every package from the wheel folder, downloads cached with the project's. */
function pipEnv(wheelhouse: string): Record<string, string> {
  return {
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: wheelhouse,
    PIP_CACHE_DIR: path.join(cacheDir, "pip"),
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
  };
}

let prepared: Promise<PythonEnvironment> | undefined;

/** The wheel, its wheel folder and the cached virtual environment; made on the first call. */
export function pythonEnvironment(): Promise<PythonEnvironment> {
  prepared ??= prepare();
  return prepared;
}

/**
 * A digest of the wheel's contents (each file's name and CRC, not the archive's timestamps, which
 * change with every build of the same sources), the requirements and the Python version.
 */
async function environmentKey(wheel: string): Promise<string> {
  const { stdout } = await run("python3", [
    "-c",
    "import sys, zipfile\n" +
      "print(sys.version.split()[0])\n" +
      "for i in sorted(zipfile.ZipFile(sys.argv[1]).infolist(), key=lambda i: i.filename): print(i.filename, i.CRC)",
    wheel,
  ]);
  return crypto.createHash("sha256").update(stdout).update(REQUIREMENTS).digest("hex").slice(0, 16);
}

async function prepare(): Promise<PythonEnvironment> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "directmail-wheel-"));
  try {
    const { stdout } = await run("bash", [path.join(repoRoot, "scripts/build-python-wheel.sh"), scratch], {
      cwd: repoRoot,
    });
    const built = stdout.trim();
    const key = await environmentKey(built);
    await shipInCheckout(built, key);
    const dir = path.join(cacheDir, `python-env-${key}`);
    const ready = path.join(dir, "ready");
    if (!fs.existsSync(ready)) await makeEnvironment(built, dir);
    const now = new Date();
    fs.utimesSync(ready, now, now);
    const wheelhouse = path.join(dir, "wheelhouse");
    return {
      wheel: path.join(wheelhouse, path.basename(built)),
      wheelhouse,
      venv: path.join(dir, "venv"),
      pipEnv: pipEnv(wheelhouse),
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Makes the checkout's dist/python wheel, the one the package ships and `directmail init --python`
 * copies into a project, the one just built when it is missing or of other sources (npm test builds
 * it; a test file run alone may find none, or one of an older SDK). Renamed into place, so that a
 * parallel `npm pack` reads a whole file.
 */
async function shipInCheckout(built: string, key: string): Promise<void> {
  const shipped = path.join(repoRoot, "dist/python", path.basename(built));
  if (fs.existsSync(shipped) && (await environmentKey(shipped)) === key) return;
  fs.mkdirSync(path.dirname(shipped), { recursive: true });
  const partial = `${shipped}.partial-${process.pid}`;
  fs.copyFileSync(built, partial);
  fs.renameSync(partial, shipped);
}

/**
 * Makes the wheel folder (the wheel, and what the requirements and a new environment need, from
 * PyPI once) and the environment, in a folder of its own renamed into place when complete: a
 * parallel test file making the same one loses nothing. The environment only ever runs as
 * `venv/bin/python -m ...`, which works in a moved environment.
 */
async function makeEnvironment(wheel: string, dir: string): Promise<void> {
  removeStale();
  const partial = fs.mkdtempSync(`${dir}.partial-`);
  try {
    const wheelhouse = path.join(partial, "wheelhouse");
    fs.mkdirSync(wheelhouse);
    fs.copyFileSync(wheel, path.join(wheelhouse, path.basename(wheel)));
    const requirements = path.join(partial, "requirements.txt");
    fs.writeFileSync(requirements, REQUIREMENTS);
    const env = { ...process.env, ...pipEnv(wheelhouse), PIP_NO_INDEX: "" };
    await run(
      "python3",
      [
        "-m",
        "pip",
        "download",
        "--quiet",
        "-d",
        wheelhouse,
        "-r",
        requirements,
        "pip",
        "setuptools",
        "wheel",
      ],
      { env, maxBuffer: 16 * 1024 * 1024 },
    );
    // The environment, as a user's `pulumi install` makes it: through the project's host, offline (the
    // provider plugin, a local script, is found on PATH by the runs that need it).
    const project = path.join(partial, "project");
    fs.mkdirSync(project);
    fs.copyFileSync(requirements, path.join(project, "requirements.txt"));
    fs.writeFileSync(
      path.join(project, "Pulumi.yaml"),
      `name: python-env\nruntime:\n  name: python\n  options:\n    virtualenv: ${path.join(partial, "venv")}\n`,
    );
    await run("pulumi", ["install", "--no-plugins"], {
      cwd: project,
      env: {
        ...process.env,
        ...pipEnv(path.join(dir, "wheelhouse")),
        PIP_FIND_LINKS: wheelhouse,
        PULUMI_HOME: path.join(partial, "pulumi-home"),
        PULUMI_SKIP_UPDATE_CHECK: "true",
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    fs.rmSync(project, { recursive: true });
    fs.rmSync(path.join(partial, "pulumi-home"), { recursive: true, force: true });
    fs.writeFileSync(path.join(partial, "ready"), "");
    try {
      fs.renameSync(partial, dir);
    } catch (error) {
      // Made meanwhile by a parallel test file: use that one.
      if (!fs.existsSync(path.join(dir, "ready"))) throw error;
    }
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
  }
}

/** Removes the cached environments of earlier SDKs that no run used for a week. */
function removeStale(): void {
  if (!fs.existsSync(cacheDir)) return;
  for (const name of fs.readdirSync(cacheDir)) {
    if (!name.startsWith("python-env-")) continue;
    const ready = path.join(cacheDir, name, "ready");
    const used = fs.statSync(fs.existsSync(ready) ? ready : path.join(cacheDir, name)).mtimeMs;
    if (Date.now() - used > STALE_MS) fs.rmSync(path.join(cacheDir, name), { recursive: true, force: true });
  }
}

/**
 * Makes `workDir` a Python project of the cached environment: its requirements.txt, and its
 * `venv` (Pulumi.yaml's `virtualenv: venv`) a link to the environment.
 */
export function linkEnvironment(workDir: string, environment: PythonEnvironment): void {
  fs.writeFileSync(path.join(workDir, "requirements.txt"), REQUIREMENTS);
  fs.symlinkSync(environment.venv, path.join(workDir, "venv"));
}
