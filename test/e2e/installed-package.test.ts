/**
 * The package as a user installs it, against each end of the `@pulumi/pulumi` peer range: the
 * oldest version the range allows and the newest that npm resolves. For each, a project in a
 * temporary folder outside the repository installs the packed tarball with that SDK and
 * TypeScript (npm's cache serves what it holds), then:
 * - one copy of the SDK: `npm ls` is clean and no copy is nested inside the package;
 * - the sandbox starts from the installed package (`directmail sandbox`);
 * - `pulumi up` of a small TypeScript program, type-checked against that SDK, creates an order at
 *   the sandbox with the URL and key of the stack config (read through the dynamic provider's
 *   `configure`, the reason for the range's lower bound), and `pulumi destroy` deletes it there.
 * With the newest SDK the project also measures the installed size against docs/packaging.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import { execFileAsync, formatBytes, packPackage, repoRoot, sizeBudgets } from "../support/package";

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const peerRange: string = manifest.peerDependencies["@pulumi/pulumi"];
const devPin: string = manifest.devDependencies["@pulumi/pulumi"];
const oldest = /^>=(\d+\.\d+\.\d+) <4$/.exec(peerRange)?.[1];

const PASSPHRASE = "directmail-installed-package";

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Order, ProviderInfo } from "pulumi-directmail";

const config = new pulumi.Config();
const info = new ProviderInfo("info", { label: "installed" });
const order = new Order("order", { templateId: config.requireNumber("templateId") });

export const baseUrlSource = info.baseUrlSource;
export const orderId = order.orderId;
export const status = order.status;
`;

let tmp: string;
let tarball: string;
const sandboxes: ChildProcess[] = [];
const clients: DirectMailClient[] = [];

beforeAll(async () => {
  // In memory where the machine has /dev/shm: each project writes (and the end deletes) a
  // node_modules of some 280 packages, several times faster than on disk.
  const scratch = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  tmp = fs.mkdtempSync(path.join(scratch, "directmail-installed-"));
  ({ tarball } = await packPackage(tmp));
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const child of sandboxes) child.kill();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 120_000);

function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) {
    const d = (x?.[i] ?? 0) - (y?.[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A new project folder with the tarball, `@pulumi/pulumi<sdkSpec>` and the repository's TypeScript. */
async function installProject(name: string, sdkSpec: string): Promise<string> {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true }, null, 2));
  await execFileAsync(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      `@pulumi/pulumi${sdkSpec}`,
      `typescript@${manifest.devDependencies.typescript}`,
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );
  return dir;
}

/** Where npm installed a copy of @pulumi/pulumi, and the versions `npm ls` reports (it fails on an invalid peer). */
async function sdkCopies(dir: string): Promise<{ paths: string[]; versions: string[] }> {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/.package-lock.json"), "utf8"));
  const paths = Object.keys(lock.packages).filter((key) => key.endsWith("node_modules/@pulumi/pulumi"));
  const { stdout } = await execFileAsync("npm", ["ls", "@pulumi/pulumi", "--all", "--json"], { cwd: dir });
  const versions = new Set<string>();
  const walk = (node: any) => {
    for (const [name, child] of Object.entries<any>(node.dependencies ?? {})) {
      if (name === "@pulumi/pulumi") versions.add(child.version);
      walk(child);
    }
  };
  walk(JSON.parse(stdout));
  return { paths, versions: [...versions] };
}

/** Bytes of the package and of everything its dependencies pull in (not its peer), as installed. */
function installedSize(dir: string): number {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/.package-lock.json"), "utf8"));
  const packages: Record<string, { dependencies?: object; optionalDependencies?: object }> = lock.packages;
  // Node's lookup: node_modules of the package, then of each folder above it.
  const resolve = (from: string, name: string): string | undefined => {
    for (let at = from; ; ) {
      const key = `${at ? `${at}/` : ""}node_modules/${name}`;
      if (packages[key]) return key;
      if (!at) return undefined;
      const up = at.lastIndexOf("/node_modules/");
      at = up < 0 ? "" : at.slice(0, up);
    }
  };
  const closure = new Set<string>();
  const pending = ["node_modules/pulumi-directmail"];
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    if (closure.has(key)) continue;
    closure.add(key);
    const meta = packages[key] ?? {};
    for (const name of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies })) {
      const found = resolve(key, name);
      if (found) pending.push(found);
    }
  }
  const bytes = (folder: string): number =>
    fs.readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
      if (entry.name === "node_modules") return sum; // nested packages are counted on their own
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) return sum + bytes(file);
      return entry.isFile() ? sum + fs.statSync(file).size : sum;
    }, 0);
  return [...closure].reduce((sum, key) => sum + bytes(path.join(dir, key)), 0);
}

/** `directmail sandbox` of the installed package, seeded with the demo account. */
async function startInstalledSandbox(
  dir: string,
): Promise<{ url: string; apiKey: string; templateId: number }> {
  // Through node: /dev/shm may forbid executing files.
  const child = spawn(
    process.execPath,
    [
      path.join(dir, "node_modules/.bin/directmail"),
      "sandbox",
      "--port",
      "0",
      "--seed",
      "demo",
      "--data",
      path.join(dir, ".sandbox"),
      "--quiet",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  sandboxes.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`directmail sandbox exited with ${code}: ${stderr}`)));
  });
  const seed = JSON.parse(line);
  return { url: seed.url, apiKey: seed.apiKey, templateId: seed.templates.postcard };
}

/** Runs `pulumi` in the project, offline, on a file backend of its own. */
function pulumiIn(dir: string) {
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
    PULUMI_HOME: path.join(dir, ".pulumi-home"),
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  fs.mkdirSync(path.join(dir, ".state"));
  return async (...args: string[]): Promise<string> => {
    const { stdout } = await execFileAsync("pulumi", [...args, "--non-interactive"], {
      cwd: dir,
      env,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error) => {
      throw new Error(`pulumi ${args.join(" ")} failed:\n${error.stdout}${error.stderr}`);
    });
    return stdout;
  };
}

describe.each([
  { label: `the oldest SDK of the range (${oldest})`, name: "oldest", spec: `@${oldest}` },
  { label: "the newest SDK npm resolves", name: "newest", spec: "" },
])("installed with $label", ({ name, spec }) => {
  it("has one SDK copy and deploys and destroys an order", { timeout: 400_000 }, async () => {
    expect(oldest, `peerDependencies["@pulumi/pulumi"] is ">=x.y.z <4", not "${peerRange}"`).toBeDefined();
    const dir = await installProject(name, spec);

    const copies = await sdkCopies(dir);
    expect(copies.paths).toEqual(["node_modules/@pulumi/pulumi"]);
    expect(copies.versions).toHaveLength(1);
    const version = copies.versions[0] as string;
    if (name === "oldest") expect(version).toBe(oldest);
    else expect(compareVersions(version, devPin), `${version} < ${devPin}`).toBeGreaterThanOrEqual(0);

    if (name === "newest") {
      const size = installedSize(dir);
      const budget = sizeBudgets().installed;
      expect(size, `installed ${formatBytes(size)}, budget ${formatBytes(budget)}`).toBeLessThanOrEqual(
        budget,
      );
    }

    const sandbox = await startInstalledSandbox(dir);
    const client = new DirectMailClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    clients.push(client);

    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          skipLibCheck: true,
        },
      }),
    );
    fs.writeFileSync(path.join(dir, "index.ts"), PROGRAM);
    const pulumi = pulumiIn(dir);
    await pulumi("stack", "init", "dev");
    await pulumi("config", "set", "directmail:baseUrl", sandbox.url);
    await pulumi("config", "set", "--secret", "directmail:apiKey", sandbox.apiKey);
    await pulumi("config", "set", "templateId", String(sandbox.templateId));

    const up = await pulumi("up", "--yes");
    expect(up).toContain(`: created from template ${sandbox.templateId}`);
    const outputs = JSON.parse(await pulumi("stack", "output", "--json"));
    expect(outputs).toMatchObject({ baseUrlSource: "config", status: "Draft" });
    const order = await client.getOrder(outputs.orderId);
    expect(order).toMatchObject({
      orderId: outputs.orderId,
      templateId: sandbox.templateId,
      orderStatus: "Draft",
    });

    const destroy = await pulumi("destroy", "--yes");
    expect(destroy).toMatch(/3 deleted/);
    expect(await client.getOrder(outputs.orderId)).toBeUndefined();
  });
});
