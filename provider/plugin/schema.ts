/**
 * The Pulumi package schema of the plugin, made from the zod schemas of the resources (the one
 * source of their fields): each kind's inputs and outputs, their types, which are required, enums
 * and nested objects as named types, descriptions where a schema carries one (`.describe()`), and
 * the provider's configuration with `apiKey` secret. `schema/pulumi-package.json` is this, written
 * by scripts/generate-campaign-schema.ts and compared with it by a test.
 */
import { z } from "zod";
import { packageManifest, packageVersion } from "../version";
import { componentSchemas } from "./component-schema";
import FIELD_DESCRIPTIONS from "./field-descriptions.json";
import { inputFieldsOf, outputFieldsOf } from "./fields";
import { PLUGIN_KINDS, PLUGIN_PACKAGE, pluginType } from "./kinds";

/** Where the repository holds the schema, relative to its root. */
export const PLUGIN_SCHEMA_FILE = "schema/pulumi-package.json";

type Json = Record<string, unknown>;
type JsonSchema = Json & {
  type?: string | string[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  description?: string;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
};

/** The Pulumi SDK version the CLI is built from: package.json's pin of @pulumi/pulumi. */
export function pulumiSdkVersion(): string {
  const pin = packageManifest()?.manifest.devDependencies?.["@pulumi/pulumi"];
  if (!pin || !/^\d+\.\d+\.\d+$/.test(pin))
    throw new Error(`package.json pins @pulumi/pulumi to ${pin}, not an exact version`);
  return pin;
}

const ANY = { $ref: "pulumi.json#/Any" };

/** Names of enum values that are not identifiers, which the SDKs' enum members need. */
const PUNCTUATION_NAMES: Record<string, string> = { ",": "Comma", ";": "Semicolon", "\t": "Tab" };

/** An enum value of the schema: named when the value itself cannot name an SDK's enum member. */
function enumValue(value: string): Json {
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(value)) return { value };
  const name = PUNCTUATION_NAMES[value];
  if (!name) throw new Error(`enum value ${JSON.stringify(value)} needs a name in PUNCTUATION_NAMES`);
  return { name, value };
}

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Turns JSON Schemas into Pulumi property specs, gathering named object and enum types. */
class SchemaBuilder {
  readonly types: Record<string, Json> = {};

  /** A field's JSON Schema as a property; a shared schema it refers to becomes a type named by its id. */
  field(root: JsonSchema, typeName: string): Json {
    return this.property(root, typeName, root.$defs ?? {});
  }

  property(schema: JsonSchema, typeName: string, defs: Record<string, JsonSchema>): Json {
    const id = schema.$ref?.startsWith("#/$defs/") ? schema.$ref.slice("#/$defs/".length) : undefined;
    if (id !== undefined && defs[id])
      return this.property(
        { ...defs[id], ...(schema.description ? { description: schema.description } : {}) },
        id,
        defs,
      );
    const described = schema.description ? { description: schema.description } : {};
    return { ...this.#type(schema, typeName, defs), ...described };
  }

  #item(schema: JsonSchema, typeName: string, defs: Record<string, JsonSchema>): Json {
    const { description: _description, ...item } = this.property(schema, `${typeName}Item`, defs);
    return item;
  }

  #type(schema: JsonSchema, typeName: string, defs: Record<string, JsonSchema>): Json {
    const variants = (schema.anyOf ?? []).filter((s) => s.type !== "null");
    if (variants.length === 1) return this.property(variants[0] as JsonSchema, typeName, defs);
    const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : [schema.type];
    if (schema.enum?.every((value) => typeof value === "string")) {
      const token = `${PLUGIN_PACKAGE}:index:${typeName}`;
      this.types[token] ??= { type: "string", enum: schema.enum.map((value) => enumValue(value as string)) };
      return { $ref: `#/types/${token}` };
    }
    if (type.length !== 1) return ANY;
    switch (type[0]) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
        return { type: type[0] };
      case "array":
        // An array's items carry no description: Pulumi drops one there when it reads the schema.
        return { type: "array", items: schema.items ? this.#item(schema.items, typeName, defs) : ANY };
      case "object": {
        if (!schema.properties || Object.keys(schema.properties).length === 0)
          return { type: "object", additionalProperties: ANY };
        const token = `${PLUGIN_PACKAGE}:index:${typeName}`;
        this.types[token] ??= {
          type: "object",
          properties: Object.fromEntries(
            Object.entries(schema.properties).map(([key, s]) => [
              key,
              this.property(s, typeName + capitalized(key), defs),
            ]),
          ),
          ...(schema.required?.length ? { required: schema.required } : {}),
        };
        return { $ref: `#/types/${token}` };
      }
      default:
        return ANY;
    }
  }
}

/** A zod field as JSON Schema, as a program gives it (`input`) or as the state holds it (`output`). */
function jsonSchema(field: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(field, { io, unrepresentable: "any" }) as JsonSchema;
}

/** Whether a program must give the field: it takes no `undefined`. */
const requiredInput = (field: z.ZodType) => !field.safeParse(undefined).success;

/** Where the Go SDK's module lives (sdk/go/go.mod): its package is `<module>/directmail`. */
export const GO_MODULE = "github.com/pulumi-directmail/pulumi-directmail/sdk/go";

/**
 * What `pulumi package gen-sdk` needs per language (scripts/generate-sdks.ts): the package names,
 * the Python SDK floor (the CLI's version, as package.json pins @pulumi/pulumi), and the schema's
 * version kept in the generated packages (`respectSchemaVersion`) so that the wheel is
 * `pulumi_directmail-<package.json version>`.
 */
function languageSections(): Json {
  return {
    nodejs: { packageName: "pulumi-directmail" },
    python: {
      packageName: "pulumi_directmail",
      requires: { pulumi: `>=${pulumiSdkVersion()},<4.0.0` },
      pyproject: { enabled: true },
      respectSchemaVersion: true,
      readme: "Declare printed direct-mail campaigns in Python and apply them with `pulumi up`.",
    },
    go: {
      importBasePath: `${GO_MODULE}/${PLUGIN_PACKAGE}`,
      // Arrays and maps of each resource (`OrderArray`, `OrderMap`), as a Go program collects them.
      generateResourceContainerTypes: true,
      respectSchemaVersion: true,
    },
  };
}

/**
 * The fields' doc comments (scripts/field-descriptions.ts): `fields`, by kind then field;
 * `objectFields`, of the objects a field holds (a sample's `row`), by kind, field, then property.
 */
export interface FieldDescriptions {
  fields: Record<string, Record<string, string>>;
  objectFields: Record<string, Record<string, Record<string, string>>>;
}

/** Describes the properties of the named type a property holds (directly, as items, or as values). */
function describeObjectType(property: Json, types: Record<string, Json>, comments: Record<string, string>) {
  const holder = [property, property.items, property.additionalProperties] as (Json | undefined)[];
  const ref = holder.map((p) => p?.$ref).find((r): r is string => typeof r === "string");
  const type = ref?.startsWith("#/types/") ? types[ref.slice("#/types/".length)] : undefined;
  for (const [key, p] of Object.entries((type?.properties ?? {}) as Record<string, Json>)) {
    if (!p.description && comments[key]) p.description = comments[key];
  }
}

/**
 * The package schema, as a JSON value. A field's description is its zod schema's, else its doc
 * comment: `descriptions`, provider/plugin/field-descriptions.json unless the generator gives them.
 */
export function packageSchema(descriptions: FieldDescriptions = FIELD_DESCRIPTIONS): Json {
  const builder = new SchemaBuilder();
  const resources: Record<string, Json> = {};
  for (const kind of PLUGIN_KINDS) {
    const inputs = inputFieldsOf(kind);
    const outputs = outputFieldsOf(kind);
    const described = (key: string, property: Json) => {
      describeObjectType(property, builder.types, descriptions.objectFields[kind]?.[key] ?? {});
      const text = descriptions.fields[kind]?.[key];
      return property.description || !text ? property : { ...property, description: text };
    };
    const inputProperties = Object.fromEntries(
      Object.entries(inputs).map(([key, f]) => [
        key,
        described(key, builder.field(jsonSchema(f, "input"), kind + capitalized(key))),
      ]),
    );
    const outputProperties = Object.fromEntries(
      Object.entries(outputs).map(([key, f]) => [
        key,
        described(key, builder.field(jsonSchema(f, "output"), kind + capitalized(key))),
      ]),
    );
    const requiredInputs = Object.keys(inputs).filter((key) => requiredInput(inputs[key] as z.ZodType));
    resources[pluginType(kind)] = {
      description: `A directmail ${kind}, served by the same implementation as the TypeScript resource (docs/resources.md#${kind.toLowerCase()}).`,
      inputProperties,
      // An empty list is left out, as Pulumi writes a schema back.
      ...(requiredInputs.length ? { requiredInputs } : {}),
      properties: { ...inputProperties, ...outputProperties },
      required: [...requiredInputs, ...Object.keys(outputs).filter((key) => !(key in inputs))],
    };
  }
  Object.assign(
    resources,
    componentSchemas((f, typeName, io) => builder.field(jsonSchema(f, io), typeName), builder.types),
  );
  const config = {
    apiKey: { type: "string", secret: true, description: "The API key of the direct-mail service." },
    baseUrl: { type: "string", description: "The service's base URL; the local sandbox when unset." },
    monthlyBudget: {
      type: "string",
      description:
        "What the account may be charged in a calendar month (UTC), in US dollars; no budget when unset.",
    },
  };
  return {
    name: PLUGIN_PACKAGE,
    displayName: "Direct Mail",
    version: packageVersion(),
    description:
      "Printed direct-mail campaigns: orders, their recipients, checkouts and address-book entries.",
    license: "Apache-2.0",
    config: { variables: config },
    provider: { description: "The directmail provider.", inputProperties: config },
    resources,
    // The SDKs' current layout: a pyproject.toml for Python, a go.mod in the Go SDK's folder.
    meta: { supportPack: true },
    types: Object.fromEntries(Object.entries(builder.types).sort(([a], [b]) => a.localeCompare(b))),
    language: languageSections(),
  };
}

/** The package schema as `pulumi package get-schema` prints it and schema/pulumi-package.json holds it. */
export function packageSchemaText(descriptions?: FieldDescriptions): string {
  return `${JSON.stringify(packageSchema(descriptions), null, 2)}\n`;
}
