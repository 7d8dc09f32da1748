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
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectMailClient } from "../../provider/api/client";
import {
  type InstalledSandbox,
  npmInstall,
  pulumiIn,
  scratchDir,
  serviceConfigArgs,
  startInstalledSandbox,
  stateOutputs,
} from "../support/installed-project";
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
const sandboxes: InstalledSandbox[] = [];
const clients: DirectMailClient[] = [];

beforeAll(async () => {
  tmp = scratchDir("directmail-installed-");
  ({ tarball } = await packPackage(tmp));
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  for (const sandbox of sandboxes) sandbox.stop();
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
  await npmInstall(
    dir,
    tarball,
    `@pulumi/pulumi${sdkSpec}`,
    `typescript@${manifest.devDependencies.typescript}`,
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
    sandboxes.push(sandbox);
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
    const pulumi = pulumiIn(dir, PASSPHRASE);
    await pulumi("stack", "init", "dev");
    const templateId = sandbox.templates.postcard;
    await pulumi(...serviceConfigArgs(sandbox), "--plaintext", `templateId=${templateId}`);

    // Without a preview first: the update runs (and type-checks) the same program.
    const up = await pulumi("up", "--yes", "--skip-preview");
    expect(up).toContain(`: created from template ${templateId}`);
    const outputs = stateOutputs(path.join(dir, ".state"));
    expect(outputs).toMatchObject({ baseUrlSource: "config", status: "Draft" });
    const order = await client.getOrder(outputs.orderId);
    expect(order).toMatchObject({
      orderId: outputs.orderId,
      templateId,
      orderStatus: "Draft",
    });

    const destroy = await pulumi("destroy", "--yes", "--skip-preview");
    expect(destroy).toMatch(/3 deleted/);
    expect(await client.getOrder(outputs.orderId)).toBeUndefined();
  });
});
