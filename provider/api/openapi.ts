/**
 * Builds the OpenAPI 3.1 document of the whole v1 interface from the endpoint table and the zod
 * wire schemas (`scripts/generate-openapi.ts` writes it to `openapi/directmail-v1.json`). Nothing
 * here restates a field: components come from `z.toJSONSchema`, paths from the endpoint table.
 */
import { z } from "zod";
import { type EndpointDef, errorStatusesOf, operations } from "./endpoints";
import * as S from "./schemas";

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects are walked by their keywords, whose values are any JSON.
type Json = Record<string, any>;

const REF = "#/components/schemas/";

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request, or invalid status of the order for this operation (`errors` says which).",
  401: "Missing or invalid `X-API-KEY`.",
  402: "`autoBill` is false and the available balance does not cover the order (`INSUFFICIENT_BALANCE`); nothing charged.",
  403: "The subscription tier lacks the feature. No response body.",
  404: "The id does not exist or is not accessible (`NOT_FOUND`; assumption, not shown by the spec).",
  413: "The body is larger than the service reads in one request (`PAYLOAD_TOO_LARGE`).",
  415: "The body is not sent as `application/json` (`UNSUPPORTED_MEDIA_TYPE`).",
  422: "The integration order rejected the recipient.",
  429: "Too many requests; wait for `Retry-After`.",
  500: "Unexpected server failure.",
};

const RETRY_TEXT: Record<EndpointDef["retry"], string> = {
  read: "Safe to retry (no side effect).",
  idempotent: "Idempotent: repeating it leaves the same state.",
  "retryable-500":
    "Not idempotent; a 500 is retryable (per the spec). A repeat of a queued recipient gets 422 DUPLICATE_RECIPIENT.",
  unsafe: "Not idempotent: do not repeat a request that may have reached the service without checking first.",
  checkout:
    "Charges money. Never repeat a checkout that returned 200 or whose outcome is unknown; read the order's status first.",
};

/** Rewrites zod's JSON Schema into the forms OpenAPI tools read best. */
function override(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Json }): void {
  const json = ctx.jsonSchema;
  const def = (ctx.zodSchema as { _zod: { def: Json } })._zod.def;
  // z.iso.datetime emits a long regex; `format: date-time` is what generators understand.
  if (def.type === "string" && def.format === "datetime") {
    delete json.pattern;
    json.format = "date-time";
  }
  // The safe-integer bounds stay: the service refuses a larger id or count (400), so a client
  // or a fuzzer reading the document must know them.
  // z.email() checks its own pattern, which the document carries; `format: email` would promise
  // RFC 5321 limits (64-character local part) the service does not check.
  if (def.type === "string" && def.format === "email" && json.pattern) delete json.format;
  // Open enumerations: the listed values, or any other string.
  if (Array.isArray(json.knownValues)) {
    const values = json.knownValues as string[];
    delete json.knownValues;
    delete json.type;
    json.anyOf = [{ type: "string", enum: values }, { type: "string" }];
  }
}

/** Every wire schema as a JSON Schema component, keyed by its `.meta({ id })`. */
function allComponents(): Record<string, Json> {
  const out = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    // Input side: objects stay open to new fields (no `additionalProperties: false`), as the client parses them.
    io: "input",
    uri: (id) => `${REF}${id}`,
    override: override as never,
    unrepresentable: "any",
  }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(out.schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return out.schemas;
}

function idOf(schema: z.ZodType): string {
  const meta = z.globalRegistry.get(schema) as { id?: string } | undefined;
  if (!meta?.id) throw new Error("every schema of the endpoint table needs .meta({ id })");
  return meta.id;
}

const ref = (schema: z.ZodType) => ({ $ref: `${REF}${idOf(schema)}` });

/** A parameter's schema: the wire type (query booleans travel as `true`/`false`). */
function parameterSchema(json: Json): Json {
  if (Array.isArray(json.anyOf) && json.anyOf.some((s: Json) => s.type === "boolean")) {
    const { anyOf: _ignored, ...rest } = json;
    return { ...rest, type: "boolean" };
  }
  return json;
}

function parameters(def: EndpointDef, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  const add = (schema: z.ZodObject | undefined, where: "path" | "query") => {
    if (!schema) return;
    const json = components[idOf(schema)];
    if (!json) throw new Error(`no component for ${idOf(schema)}`);
    const required = new Set<string>(json.required ?? []);
    for (const [name, prop] of Object.entries(json.properties as Record<string, Json>)) {
      const { description, ...schemaOnly } = prop;
      out.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        ...(description ? { description } : {}),
        schema: parameterSchema(schemaOnly),
      });
    }
  };
  add(def.pathParams, "path");
  add(def.query, "query");
  return out;
}

function responses(def: EndpointDef): Json {
  const out: Json = {};
  out["200"] =
    def.response.kind === "pdf"
      ? {
          description: "The proof PDF (raw bytes).",
          content: { "application/pdf": { schema: { type: "string", contentMediaType: "application/pdf" } } },
        }
      : { description: "Success.", content: { "application/json": { schema: ref(def.response.envelope) } } };
  for (const status of errorStatusesOf(def)) {
    const description = STATUS_TEXT[status] ?? "Error.";
    if (status === 403) {
      out[status] = { description };
      continue;
    }
    const schema = ref(S.errorEnvelopeFor(status));
    out[status] = {
      description,
      content: { "application/json": { schema } },
      ...(status === 429
        ? {
            headers: {
              "Retry-After": {
                description: "Seconds (or an HTTP date) to wait.",
                schema: { type: "string" },
              },
            },
          }
        : {}),
    };
  }
  return out;
}

function operation(def: EndpointDef, operationId: string, components: Record<string, Json>): Json {
  const notes = [
    def.summary,
    "",
    `Retry: ${RETRY_TEXT[def.retry]}`,
    ...(def.feature
      ? [`Requires the '${def.feature}' feature of the subscription tier (403 otherwise).`]
      : []),
    ...(def.assumedPath ? ["The spec does not show this path; it is this project's assumption."] : []),
  ];
  const params = parameters(def, components);
  return {
    operationId,
    tags: [def.tag],
    summary: def.summary,
    description: notes.join("\n"),
    ...(params.length ? { parameters: params } : {}),
    ...(def.body
      ? { requestBody: { required: true, content: { "application/json": { schema: ref(def.body) } } } }
      : {}),
    responses: responses(def),
    "x-spec-entry": def.entry,
    "x-retry-class": def.retry,
    ...(def.feature ? { "x-feature": def.feature } : {}),
  };
}

/** Keeps only the components reachable from the paths, so unrelated registered schemas stay out. */
function reachable(components: Record<string, Json>, roots: unknown): Record<string, Json> {
  const keep = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(REF)) {
        const id = value.slice(REF.length);
        if (!keep.has(id)) {
          keep.add(id);
          if (!components[id]) throw new Error(`dangling reference ${value}`);
          visit(components[id]);
        }
      } else visit(value);
    }
  };
  visit(roots);
  return Object.fromEntries([...keep].sort().map((id) => [id, components[id] as Json]));
}

export function buildOpenApiDocument(version: string): Json {
  const components = allComponents();
  const paths: Json = {};
  for (const def of operations) {
    const all = [def.path, ...(def.aliases ?? [])];
    all.forEach((path, i) => {
      const opId = i === 0 ? def.operationId : `${def.operationId}Alias${i}`;
      paths[path] ??= {};
      paths[path][def.method.toLowerCase()] = operation(def, opId, components);
    });
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Direct-mail ordering service",
      version,
      description:
        "The v1 interface of the printed direct-mail ordering service, generated from the zod schemas of " +
        "pulumi-directmail. Fields the spec marks 'not shown' are this project's assumptions, named in the " +
        "descriptions. Enumerations whose full set is not shown accept any string besides the listed values.",
    },
    servers: [{ url: "http://127.0.0.1:4010", description: "Local sandbox (`directmail sandbox`)" }],
    security: [{ apiKey: [] }],
    tags: [
      "Profile",
      "Orders",
      "Templates",
      "Fonts",
      "Conversions",
      "Automations",
      "Order Recipient Analytics",
      "Address Book",
    ].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-KEY" } },
      schemas: reachable(components, paths),
    },
  };
}

/** The document as the committed file holds it. */
export function renderOpenApiDocument(version: string): string {
  return `${JSON.stringify(buildOpenApiDocument(version), null, 2)}\n`;
}
