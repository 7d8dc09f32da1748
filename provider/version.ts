import * as fs from "node:fs";
import * as path from "node:path";

/** This package's folder and its package.json. */
export interface PackageManifest {
  /** The folder that holds package.json (the repository, or node_modules/pulumi-directmail). */
  root: string;
  manifest: {
    version: string;
    peerDependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
}

let cached: PackageManifest | null | undefined;

/** The installed package: the nearest folder above this file whose package.json is this package's (source or compiled tree). */
export function packageManifest(): PackageManifest | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
      if (manifest.name === "pulumi-directmail") {
        cached = { root: dir, manifest: { ...manifest, version: String(manifest.version) } };
        return cached;
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The installed version of this package, read from its package.json. */
export function packageVersion(): string {
  return packageManifest()?.manifest.version ?? "unknown";
}
