/**
 * schema/campaign.schema.json and docs/campaign-format.md: committed, current, and usable by
 * the YAML language server (which implements draft-07 keywords; the schema declares 2020-12).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { listCampaignFiles } from "../../../provider/campaign/loader";
import { CampaignDocument } from "../../../provider/campaign/schema";
import {
  DOC_FILE,
  renderCampaignFormatDoc,
  renderCampaignJsonSchema,
  SCHEMA_FILE,
} from "../../../provider/campaign/schema-docs";

const root = path.resolve(__dirname, "../../..");
const REGENERATE = "regenerate: npx tsc -p tsconfig.json && node dist/scripts/generate-campaign-schema.js";
const schema = JSON.parse(fs.readFileSync(path.join(root, SCHEMA_FILE), "utf8"));

/** Validators as editors and CI tools would build them; strictSchema rejects unknown keywords. */
function validators() {
  const { $schema, ...draft07Schema } = schema;
  expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
  const draft07 = new Ajv({ strictSchema: true, allowUnionTypes: true, allErrors: true });
  const draft2020 = new Ajv2020({ strictSchema: true, allowUnionTypes: true, allErrors: true });
  addFormats(draft07);
  addFormats(draft2020);
  return { draft07: draft07.compile(draft07Schema), draft2020: draft2020.compile(schema) };
}

const valid = {
  apiVersion: "directmail/v1",
  kind: "Campaign",
  metadata: { name: "spring-sale" },
  spec: {
    order: { templateId: 10001, qrUrl: "https://example.com/spring" },
    recipients: { file: "spring.csv", keyColumn: "customerId" },
    checkout: { postageType: "Standard", productionSpeed: "Normal", holdUntilDate: "2026-05-01T09:00:00Z" },
    addressBook: [{ address1: "5 Oven Road", city: "Madison", state: "WI", zip: "53703" }],
  },
};

describe("the committed campaign schema and format reference", () => {
  it(`schema/campaign.schema.json is current (${REGENERATE})`, () => {
    expect(fs.readFileSync(path.join(root, SCHEMA_FILE), "utf8")).toBe(renderCampaignJsonSchema());
  });

  it(`docs/campaign-format.md is current (${REGENERATE})`, () => {
    expect(fs.readFileSync(path.join(root, DOC_FILE), "utf8")).toBe(renderCampaignFormatDoc());
  });

  it("the reference lists every field of the zod schema with whether it is required", () => {
    const doc = fs.readFileSync(path.join(root, DOC_FILE), "utf8");
    const walk = (schema: z.ZodType, title: string) => {
      let s = schema;
      while (s instanceof z.ZodOptional || s instanceof z.ZodArray)
        s = (s instanceof z.ZodOptional ? s.unwrap() : s.element) as z.ZodType;
      if (!(s instanceof z.ZodObject)) return;
      for (const [name, field] of Object.entries(s.shape as Record<string, z.ZodType>)) {
        const required = field.isOptional() ? "no" : "yes";
        expect(doc, `${title}.${name}`).toMatch(
          new RegExp(`^\\| \`${name}\` \\| [^|]+ \\| ${required} \\|`, "m"),
        );
        walk(field, `${title}.${name}`);
      }
    };
    walk(CampaignDocument, "document");
  });

  it("is draft 2020-12 using only keywords a draft-07 validator (the YAML language server) also knows", () => {
    const { draft07, draft2020 } = validators();
    for (const validate of [draft07, draft2020])
      expect(validate(valid), JSON.stringify(validate.errors)).toBe(true);
  });

  it("rejects what the loader rejects: unknown keys, wrong values, missing keys, file and inline together", () => {
    const { draft07, draft2020 } = validators();
    const bad = [
      { ...valid, extra: 1 },
      { ...valid, spec: { ...valid.spec, order: { templateId: 0 } } },
      { ...valid, spec: { ...valid.spec, order: { templateId: 1, templateID: 1 } } },
      { ...valid, spec: { ...valid.spec, checkout: { postageType: "Express", productionSpeed: "Normal" } } },
      { ...valid, spec: { ...valid.spec, recipients: { file: "a.csv", inline: [] } } },
      { ...valid, spec: { ...valid.spec, recipients: { keyColumn: "id" } } },
      { ...valid, metadata: { name: "Spring Sale" } },
      { ...valid, spec: { order: valid.spec.order } },
    ];
    for (const document of bad) {
      expect(CampaignDocument.safeParse(document).success).toBe(false);
      expect(draft07(document), JSON.stringify(document)).toBe(false);
      expect(draft2020(document), JSON.stringify(document)).toBe(false);
    }
  });

  it("every example campaign names the committed schema in its yaml-language-server line and passes it", async () => {
    const { draft07 } = validators();
    const files = (await listCampaignFiles(path.join(root, "examples"))).filter(
      (f) => path.basename(f) !== "Pulumi.yaml",
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      const modeline = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
      expect(modeline, `${file} has no yaml-language-server line`).not.toBeNull();
      expect(path.resolve(path.dirname(file), modeline?.[1] ?? "")).toBe(path.join(root, SCHEMA_FILE));
      for (const doc of parseAllDocuments(text)) {
        expect(draft07(doc.toJS()), `${file}: ${JSON.stringify(draft07.errors)}`).toBe(true);
      }
    }
  });
});
