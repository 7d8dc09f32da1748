/**
 * The description of each resource field, for the package schema and the SDKs made from it: the
 * doc comment written above the field in its kind's `<Kind>InputFields` / `<Kind>OutputFields`
 * (provider/resources/<kind>/inputs.ts, outputs.ts), the one place a field is explained. The
 * comments do not survive compilation, so scripts/generate-campaign-schema.ts writes them to
 * provider/plugin/field-descriptions.json, which the plugin reads; test/unit/plugin/schema.test.ts
 * checks that file is current.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import type { FieldDescriptions } from "../provider/plugin/schema";

export const FIELD_DESCRIPTIONS_FILE = "provider/plugin/field-descriptions.json";

const FIELDS_DECLARATION = /^([A-Z][A-Za-z]*)(Input|Output)Fields$/;

/** The doc comments of every `<Kind>InputFields` and `<Kind>OutputFields` under provider/resources. */
export function readFieldDescriptions(root: string): FieldDescriptions {
  const descriptions: FieldDescriptions = {};
  const resources = path.join(root, "provider/resources");
  for (const folder of fs.readdirSync(resources, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const name of ["inputs.ts", "outputs.ts"]) {
      const file = path.join(resources, folder.name, name);
      if (!fs.existsSync(file)) continue;
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const declaration of statement.declarationList.declarations) {
          const kind =
            ts.isIdentifier(declaration.name) && FIELDS_DECLARATION.exec(declaration.name.text)?.[1];
          if (!kind || !declaration.initializer || !ts.isObjectLiteralExpression(declaration.initializer))
            continue;
          const fields = descriptions[kind] ?? {};
          descriptions[kind] = fields;
          for (const property of declaration.initializer.properties) {
            if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
            const text = ts
              .getJSDocCommentsAndTags(property)
              .filter(ts.isJSDoc)
              .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
              .join(" ")
              .replace(/\s+/g, " ")
              .trim();
            if (text) fields[property.name.text] = text;
          }
        }
      }
    }
  }
  return Object.fromEntries(Object.entries(descriptions).sort(([a], [b]) => a.localeCompare(b)));
}

/** The descriptions as provider/plugin/field-descriptions.json holds them. */
export function fieldDescriptionsText(descriptions: FieldDescriptions): string {
  return `${JSON.stringify(descriptions, null, 2)}\n`;
}
