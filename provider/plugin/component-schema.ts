/**
 * The components' part of the package schema (`isComponent`): CampaignFolder and Campaign, with
 * their inputs and the outputs of the TypeScript components (campaign/folder.ts, component.ts),
 * each typed by the zod schema of the resource field it comes from.
 */
import type { z } from "zod";
import { COMPONENT_TYPE } from "../campaign/names";
import { CampaignSpec } from "../campaign/schema";
import { KIND, type ResourceKind } from "../resources/kinds";
import { outputFieldsOf } from "./fields";

type Json = Record<string, unknown>;
/** A zod field as a schema property (schema.ts's builder), its named types under `typeName`. */
export type PropertyOf = (field: z.ZodType, typeName: string, io: "input" | "output") => Json;

const field = (kind: ResourceKind, key: string) => outputFieldsOf(kind)[key] as z.ZodType;

/** A Campaign's outputs (component.ts), each from the resource field it reads. */
const CAMPAIGN_OUTPUTS: Record<string, [z.ZodType, string]> = {
  orderId: [field(KIND.Order, "orderId"), "The order's id at the service."],
  orderStatus: [
    field(KIND.Order, "status"),
    "The order's status: after the checkout when there is one (`Paid`, `Payment Needed` while it settles), else the order's (`Draft`).",
  ],
  acceptedCount: [
    field(KIND.OrderRecipients, "acceptedCount"),
    "Declared recipients on the order and deliverable.",
  ],
  droppedCount: [field(KIND.OrderRecipients, "droppedCount"), "Declared recipients the service dropped."],
  dropReasons: [field(KIND.OrderRecipients, "dropReasons"), "Dropped recipients: how many for each reason."],
  droppedSample: [
    field(KIND.OrderRecipients, "droppedSample"),
    "Up to ten dropped recipients with their row in the list and the reason.",
  ],
  checkoutStatus: [
    field(KIND.Checkout, "orderStatus").optional(),
    "The order's status after the checkout; unset without one.",
  ],
  totalCharges: [
    field(KIND.Checkout, "totalCharges").optional(),
    "What the checkout charged, in US dollars; unset without one.",
  ],
  delivery: [
    field(KIND.Order, "delivery"),
    "Pieces at each delivery stage as `pulumi refresh` last read them.",
  ],
  qrScans: [
    field(KIND.Order, "qrScans"),
    "QR code scans of the campaign's pieces as `pulumi refresh` last read them.",
  ],
};

/** The names a CampaignFolder's `outputs` gives each campaign's outputs (folder.ts, CampaignOutputs). */
const FOLDER_NAMES: Record<string, string> = { acceptedCount: "accepted", droppedCount: "dropped" };

const described = (property: Json, description: string) => ({ ...property, description });

/** The components as package schema resources, by type token. */
export function componentSchemas(property: PropertyOf, types: Record<string, Json>): Record<string, Json> {
  const campaignProperties = Object.fromEntries(
    Object.entries(CAMPAIGN_OUTPUTS).map(([key, [f, text]]) => [
      key,
      described(property(f, `Campaign${key.charAt(0).toUpperCase()}${key.slice(1)}`, "output"), text),
    ]),
  );
  const required = (properties: Record<string, Json>) =>
    Object.keys(properties).filter((key) => !["checkoutStatus", "totalCharges"].includes(key));
  const outputsToken = "directmail:index:CampaignOutputs";
  const folderProperties = Object.fromEntries(
    Object.entries(campaignProperties).map(([key, p]) => [FOLDER_NAMES[key] ?? key, p]),
  );
  types[outputsToken] = {
    type: "object",
    properties: folderProperties,
    required: required(folderProperties),
  };
  return {
    [COMPONENT_TYPE.CampaignFolder]: {
      isComponent: true,
      description:
        "A folder of campaign files (docs/campaign-format.md), one Campaign a campaign, as the TypeScript CampaignFolder: any problem in the files fails the preview once, naming every one, and nothing changes.",
      inputProperties: {
        dir: {
          type: "string",
          description:
            "The folder of campaign files, relative to Pulumi.yaml; the campaigns and the files they name stay inside it.",
        },
      },
      requiredInputs: ["dir"],
      properties: {
        outputs: {
          type: "object",
          additionalProperties: { $ref: `#/types/${outputsToken}` },
          description: "Each campaign's outputs by its metadata.name.",
        },
      },
      required: ["outputs"],
    },
    [COMPONENT_TYPE.Campaign]: {
      isComponent: true,
      description:
        "One campaign (its order, recipients, checkout, address-book entries, conversions) as the TypeScript Campaign, from a campaign file or inline; its resource name is its campaign's name.",
      inputProperties: {
        file: {
          type: "string",
          description:
            "A campaign file (relative to Pulumi.yaml) holding the campaign whose metadata.name is this resource's name. Give `file` or `spec`.",
        },
        spec: described(
          property(CampaignSpec, "CampaignSpec", "input"),
          "The campaign inline, as a campaign file's spec; files it names are relative to Pulumi.yaml. Give `file` or `spec`.",
        ),
      },
      properties: campaignProperties,
      required: required(campaignProperties),
    },
  };
}
