/**
 * schema/pulumi-package.json, the provider plugin's package schema: committed, current (the
 * generator's output from the resources' zod schemas), and saying what a Pulumi YAML program needs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import packageJson from "../../../package.json";
import { PLUGIN_SCHEMA_FILE, packageSchemaText } from "../../../provider/plugin/schema";
import {
  FIELD_DESCRIPTIONS_FILE,
  fieldDescriptionsText,
  readFieldDescriptions,
} from "../../../scripts/field-descriptions";

const root = path.resolve(__dirname, "../../..");
const REGENERATE = "regenerate: npx tsc -p tsconfig.json && node dist/scripts/generate-campaign-schema.js";

describe("the plugin's package schema", () => {
  const generated = packageSchemaText();
  const schema = JSON.parse(generated);

  it("is committed as generated", () => {
    const committed = fs.readFileSync(path.join(root, PLUGIN_SCHEMA_FILE), "utf8");
    expect(committed, REGENERATE).toBe(generated);
  });

  it("declares every resource kind as directmail:index:<Kind>, with the inputs a program must give", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(
      [
        "AddressBookEntry",
        "AutomationRecipients",
        "Campaign",
        "CampaignFolder",
        "Checkout",
        "Conversions",
        "Order",
        "OrderRecipients",
        "ProviderInfo",
        "ProximitySearch",
      ].map((kind) => `directmail:index:${kind}`),
    );
    const order = schema.resources["directmail:index:Order"];
    expect(order.requiredInputs).toEqual(["templateId"]);
    expect(order.inputProperties.templateId).toEqual({
      type: "integer",
      description: expect.stringMatching(/^The id of the template the order is made from/),
    });
    expect(order.properties.status).toMatchObject({ type: "string" });
    expect(schema.resources["directmail:index:AddressBookEntry"].requiredInputs).toEqual([
      "address1",
      "city",
      "state",
      "zip",
    ]);
  });

  it("names enums as types, keeps descriptions, never shows a computed __ input", () => {
    const checkout = schema.resources["directmail:index:Checkout"];
    expect(checkout.inputProperties.postageType.$ref).toBe("#/types/directmail:index:PostageType");
    expect(schema.types["directmail:index:PostageType"]).toEqual({
      type: "string",
      enum: [{ value: "Standard" }, { value: "FirstClass" }],
    });
    expect(checkout.inputProperties.postageType.description).toMatch(/FirstClass/);
    expect(generated).not.toMatch(/"__/);
    expect(Object.keys(schema.resources["directmail:index:OrderRecipients"].inputProperties)).not.toContain(
      "digest",
    );
  });

  it("declares the components with the TypeScript components' inputs and outputs", () => {
    const folder = schema.resources["directmail:index:CampaignFolder"];
    expect(folder).toMatchObject({ isComponent: true, requiredInputs: ["dir"] });
    expect(folder.inputProperties.dir.type).toBe("string");
    expect(folder.properties.outputs.additionalProperties.$ref).toBe(
      "#/types/directmail:index:CampaignOutputs",
    );
    // A folder's outputs by campaign name: CampaignOutputs of provider/campaign/folder.ts.
    expect(Object.keys(schema.types["directmail:index:CampaignOutputs"].properties)).toEqual([
      "orderId",
      "orderStatus",
      "accepted",
      "dropped",
      "dropReasons",
      "droppedSample",
      "checkoutStatus",
      "totalCharges",
      "delivery",
      "qrScans",
    ]);
    const campaign = schema.resources["directmail:index:Campaign"];
    expect(campaign.isComponent).toBe(true);
    expect(Object.keys(campaign.inputProperties)).toEqual(["file", "spec"]);
    expect(campaign.inputProperties.spec.$ref).toBe("#/types/directmail:index:CampaignSpec");
    expect(Object.keys(schema.types["directmail:index:CampaignSpec"].properties)).toContain("recipients");
    expect(campaign.required).toEqual([
      "orderId",
      "orderStatus",
      "acceptedCount",
      "droppedCount",
      "dropReasons",
      "droppedSample",
      "delivery",
      "qrScans",
    ]);
  });

  it("takes the API key as a secret, with the base URL and budget", () => {
    expect(schema.config.variables.apiKey).toMatchObject({ type: "string", secret: true });
    expect(Object.keys(schema.config.variables)).toEqual(["apiKey", "baseUrl", "monthlyBudget"]);
  });

  it("describes every property of every resource, from the doc comment above its field", () => {
    const committed = fs.readFileSync(path.join(root, FIELD_DESCRIPTIONS_FILE), "utf8");
    expect(committed, REGENERATE).toBe(fieldDescriptionsText(readFieldDescriptions(root)));
    const undescribed = Object.entries(schema.resources).flatMap(([token, resource]) => {
      const { inputProperties = {}, properties = {} } = resource as Record<string, Record<string, Json>>;
      return Object.entries({ ...inputProperties, ...properties })
        .filter(([, property]) => !property.description)
        .map(([key]) => `${token}.${key}`);
    });
    expect(undescribed, "write a /** doc comment */ above each field, then regenerate").toEqual([]);
  });

  it("names every enum value that cannot name an SDK's enum member", () => {
    expect(schema.types["directmail:index:OrderRecipientsDelimiter"].enum).toEqual([
      { name: "Comma", value: "," },
      { name: "Semicolon", value: ";" },
      { name: "Tab", value: "\t" },
    ]);
  });

  it("says how the Python and Go SDKs are generated, at package.json's version", () => {
    expect(schema.version).toBe(packageJson.version);
    expect(schema.meta).toEqual({ supportPack: true });
    expect(schema.language.python).toMatchObject({
      packageName: "pulumi_directmail",
      requires: { pulumi: `>=${packageJson.devDependencies["@pulumi/pulumi"]},<4.0.0` },
    });
    expect(schema.language.go).toMatchObject({
      importBasePath: "github.com/pulumi-directmail/pulumi-directmail/sdk/go/directmail",
      generateResourceContainerTypes: true,
    });
  });
});

type Json = Record<string, unknown>;
