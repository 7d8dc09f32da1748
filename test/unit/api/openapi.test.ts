import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { endpoints, errorStatusesOf, operations } from "../../../provider/api/endpoints";
import { buildOpenApiDocument, renderOpenApiDocument } from "../../../provider/api/openapi";
import * as S from "../../../provider/api/schemas";

const root = path.resolve(__dirname, "../../..");
const committedFile = path.join(root, "openapi", "directmail-v1.json");
const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version as string;

describe("OpenAPI document", () => {
  it("is committed and current (regenerate with scripts/generate-openapi.ts)", () => {
    expect(fs.existsSync(committedFile)).toBe(true);
    expect(fs.readFileSync(committedFile, "utf8")).toBe(renderOpenApiDocument(version));
  });

  it("is a valid OpenAPI 3.1 document according to @seriousme/openapi-schema-validator", async () => {
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(fs.readFileSync(committedFile, "utf8")));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // Every $ref resolves.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it("has every operation of the endpoint table, with its method, path and aliases", () => {
    const doc = buildOpenApiDocument(version);
    const found = new Map<string, string>();
    for (const [p, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const [method, op] of Object.entries(item))
        found.set(op.operationId, `${method.toUpperCase()} ${p}`);
    }
    expect(operations).toHaveLength(25);
    for (const def of operations) {
      expect(found.get(def.operationId)).toBe(`${def.method} ${def.path}`);
    }
    expect(found.get("appendRecipientsAlias1")).toBe("PUT /v1/order/{id}/recipients:append");
  });

  it("lists every status an operation answers: those its entry names and those that follow from its shape", () => {
    const doc = buildOpenApiDocument(version);
    const listed = (p: string, method: string) => Object.keys(doc.paths[p][method].responses).map(Number);
    for (const def of operations) {
      expect(listed(def.path, def.method.toLowerCase()), def.operationId).toEqual([
        200,
        ...errorStatusesOf(def),
      ]);
    }
    // A path id that is not a positive whole number is a 400, on every operation with one.
    expect(listed("/v1/conversions/{id}/status", "get")).toEqual([200, 400, 401, 403, 404, 429, 500]);
    // Nothing to read, nothing to refuse but the key.
    expect(listed("/v1/me", "get")).toEqual([200, 401, 429, 500]);
    // A method that carries a body may get one that is not JSON (415) or too large (413).
    expect(listed("/v1/order/{id}", "delete")).toEqual([200, 400, 401, 404, 413, 415, 429, 500]);
  });

  it("states the bounds the service enforces: ids up to the largest safe integer, emails by their pattern", () => {
    const doc = buildOpenApiDocument(version);
    // Schemathesis sent /v1/order/1681136012799495561543680/proof as valid: the service refuses an
    // id beyond 2^53 - 1 (400), so the document says so.
    const [id] = doc.paths[endpoints.getProof.path].get.parameters;
    expect(id.schema).toEqual({ type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    // Schemathesis sent an email with a 90-character local part as invalid (`format: email` means
    // RFC 5321's 64); the service checks its pattern only, which the document states instead.
    const email = doc.components.schemas.ConversionRecord.properties.primaryEmail.anyOf[0];
    expect(email.format).toBeUndefined();
    const long = `${"a".repeat(90)}@shop.example.com`;
    expect(new RegExp(email.pattern).test(long)).toBe(true);
    expect(S.ConversionRecord.shape.primaryEmail.safeParse(long).success).toBe(true);
  });

  it("describes the API key header, the proof PDF, the 403 without body and Retry-After", () => {
    const doc = buildOpenApiDocument(version);
    expect(doc.components.securitySchemes.apiKey).toEqual({
      type: "apiKey",
      in: "header",
      name: "X-API-KEY",
    });
    const proof = doc.paths[endpoints.getProof.path].get;
    expect(Object.keys(proof.responses["200"].content)).toEqual(["application/pdf"]);
    const integration = doc.paths[endpoints.listIntegrationOrders.path].get;
    expect(integration.responses["403"].content).toBeUndefined();
    expect(integration["x-feature"]).toBe("automations");
    const checkout = doc.paths[endpoints.checkout.path].post;
    expect(checkout["x-retry-class"]).toBe("checkout");
    expect(checkout.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(checkout.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/CheckoutRequest",
    });
  });

  it("states nullability, open enumerations and date-times as OpenAPI tools read them", () => {
    const schemas = buildOpenApiDocument(version).components.schemas;
    // Every key of an order recipient is required; `address1` may be null.
    expect(schemas.RecipientAddress.required).toContain("address1");
    expect(schemas.RecipientAddress.properties.address1).toEqual({ type: ["string", "null"] });
    expect(schemas.RecipientMetadata.properties.text).toEqual({ type: "string" });
    // An open enumeration lists its known values and accepts any string.
    expect(schemas.OrderStatus.anyOf).toEqual([
      { type: "string", enum: expect.arrayContaining(["Draft", "Payment Needed"]) },
      { type: "string" },
    ]);
    expect(schemas.Profile.properties.created).toEqual({ type: "string", format: "date-time" });
    // Objects stay open to fields a later release adds.
    expect(schemas.Profile.additionalProperties).toBeUndefined();
    // The recursive line item refers to itself.
    expect(schemas.LineItem.properties.subItems.items).toEqual({ $ref: "#/components/schemas/LineItem" });
  });
});
