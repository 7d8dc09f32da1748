import * as fs from "node:fs";
import * as path from "node:path";

let cached: string | undefined;

/** The installed version of this package, read from its package.json (source or compiled tree). */
export function packageVersion(): string {
  if (cached) return cached;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      if (pkg.name === "pulumi-directmail") {
        cached = String(pkg.version);
        return cached;
      }
    }
    if (path.dirname(dir) === dir) return "unknown";
  }
}
