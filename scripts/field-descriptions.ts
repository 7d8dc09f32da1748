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

/** A property's doc comment, on one line; empty without one. */
function docComment(property: ts.Node): string {
  return ts
    .getJSDocCommentsAndTags(property)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The doc comments of an object literal's properties, by name. */
function commentsOf(fields: ts.ObjectLiteralExpression): Record<string, string> {
  const comments: Record<string, string> = {};
  for (const property of fields.properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
    const text = docComment(property);
    if (text) comments[property.name.text] = text;
  }
  return comments;
}

/** The object literal that a field's `z.object(Name)` or `z.strictObject(Name)` names in its file. */
function objectFieldsOf(
  initializer: ts.Node,
  consts: Map<string, ts.ObjectLiteralExpression>,
): ts.ObjectLiteralExpression | undefined {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    const [argument] = ts.isCallExpression(node) ? node.arguments : [];
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ["object", "strictObject"].includes(node.expression.name.text) &&
      argument &&
      ts.isIdentifier(argument)
    ) {
      found = consts.get(argument.text);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(initializer);
  return found;
}

/** The doc comments of every `<Kind>InputFields` and `<Kind>OutputFields` under provider/resources. */
export function readFieldDescriptions(root: string): FieldDescriptions {
  const fields: FieldDescriptions["fields"] = {};
  const objectFields: FieldDescriptions["objectFields"] = {};
  const resources = path.join(root, "provider/resources");
  for (const folder of fs.readdirSync(resources, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const name of ["inputs.ts", "outputs.ts"]) {
      const file = path.join(resources, folder.name, name);
      if (!fs.existsSync(file)) continue;
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const consts = new Map<string, ts.ObjectLiteralExpression>();
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const { name, initializer } of statement.declarationList.declarations) {
          if (ts.isIdentifier(name) && initializer && ts.isObjectLiteralExpression(initializer))
            consts.set(name.text, initializer);
        }
      }
      for (const [constName, declared] of consts) {
        const kind = FIELDS_DECLARATION.exec(constName)?.[1];
        if (!kind) continue;
        fields[kind] = { ...fields[kind], ...commentsOf(declared) };
        for (const property of declared.properties) {
          if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
          const object = objectFieldsOf(property.initializer, consts);
          const comments = object ? commentsOf(object) : {};
          if (Object.keys(comments).length === 0) continue;
          objectFields[kind] = { ...objectFields[kind], [property.name.text]: comments };
        }
      }
    }
  }
  const sorted = <T>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  return { fields: sorted(fields), objectFields: sorted(objectFields) };
}

/** The descriptions as provider/plugin/field-descriptions.json holds them. */
export function fieldDescriptionsText(descriptions: FieldDescriptions): string {
  return `${JSON.stringify(descriptions, null, 2)}\n`;
}
