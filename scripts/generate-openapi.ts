/**
 * Writes openapi/directmail-v1.json from the zod wire schemas and the endpoint table.
 * Run from the repository root: `npx tsc -p tsconfig.json && node dist/scripts/generate-openapi.js`.
 * test/unit/api/openapi.test.ts fails when the committed file is not current.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { renderOpenApiDocument } from "../provider/api/openapi";

function readPackage(dir: string): { name?: string; version?: string } | undefined {
  const file = path.join(dir, "package.json");
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
}

// The repository root: the working directory, or the nearest folder above this script holding the package.
function repoRoot(): string {
  if (readPackage(process.cwd())?.name === "pulumi-directmail") return process.cwd();
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (readPackage(dir)?.name === "pulumi-directmail") return dir;
  }
  throw new Error("run this from the pulumi-directmail repository root");
}

const root = repoRoot();
const target = path.join(root, "openapi", "directmail-v1.json");
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, renderOpenApiDocument(String(readPackage(root)?.version)));
console.log(`wrote ${path.relative(process.cwd(), target) || target}`);
