/**
 * Writes schema/campaign.schema.json and docs/campaign-format.md from the zod schema of a campaign
 * (rendered by provider/campaign/schema-docs.ts), and schema/pulumi-package.json, the provider
 * plugin's package schema, from the resources' zod schemas (provider/plugin/schema.ts) and their
 * fields' doc comments (scripts/field-descriptions.ts, kept in provider/plugin/field-descriptions.json). Run from
 * the repository root:
 * `npx tsc -p tsconfig.json && node dist/scripts/generate-campaign-schema.js`.
 * test/unit/campaign/schema-files.test.ts and test/unit/plugin/schema.test.ts fail when a committed
 * file is not current.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  DOC_FILE,
  renderCampaignFormatDoc,
  renderCampaignJsonSchema,
  SCHEMA_FILE,
} from "../provider/campaign/schema-docs";
import { PLUGIN_SCHEMA_FILE, packageSchemaText } from "../provider/plugin/schema";
import { FIELD_DESCRIPTIONS_FILE, fieldDescriptionsText, readFieldDescriptions } from "./field-descriptions";

function readPackage(dir: string): { name?: string } | undefined {
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
// Read from the sources now: the compiled schema.ts holds the descriptions of the last run.
const descriptions = readFieldDescriptions(root);
for (const [file, text] of [
  [SCHEMA_FILE, renderCampaignJsonSchema()],
  [DOC_FILE, renderCampaignFormatDoc()],
  [FIELD_DESCRIPTIONS_FILE, fieldDescriptionsText(descriptions)],
  [PLUGIN_SCHEMA_FILE, packageSchemaText(descriptions)],
] as const) {
  const target = path.join(root, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target) || target}`);
}
