/**
 * The campaign file format: one zod schema, from which the JSON Schema for editors
 * (schema/campaign.schema.json) and docs/campaign-format.md are generated. A campaign file holds one
 * campaign document, or several separated by `---`.
 */
import { z } from "zod";
import { PostageType, ProductionSpeed } from "../api/schemas/checkout";
import { IDENTITY_FIELDS } from "../resources/recipients/declared";

export const CAMPAIGN_API_VERSION = "directmail/v1";

const recipientRecord = z
  .record(z.string(), z.union([z.string(), z.number()]))
  .describe(
    "One recipient: firstName, lastName, toOrganization, address1, city, state, zipCode, custom1..custom6, ...",
  );

export const CampaignOrder = z
  .strictObject({
    templateId: z.int().positive().describe("The template order the campaign's order is made from."),
    useQr: z.boolean().optional().describe("true keeps the template's QR code, false removes it."),
    qrUrl: z.url().optional().describe("Overrides the template's QR target."),
    handwritingFont: z.string().min(1).optional().describe("One of the service's handwriting styles."),
    existingOrderId: z
      .int()
      .positive()
      .optional()
      .describe("Adopt this existing order (made in the web application, say) instead of creating one."),
  })
  .describe("The order: made from a template, or adopted.");

export const CampaignRecipients = z
  .strictObject({
    file: z
      .string()
      .min(1)
      .optional()
      .describe("CSV (header row), JSON array or JSON Lines file, relative to the campaign file."),
    inline: z
      .array(recipientRecord)
      .optional()
      .describe("Recipients written in the campaign file (small lists)."),
    keyColumn: z
      .string()
      .min(1)
      .optional()
      .describe("A column that identifies each recipient (a customer id); without it, the content does."),
    identityField: z
      .enum(IDENTITY_FIELDS)
      .optional()
      .describe("The custom field that carries each recipient's identity key (default custom6)."),
    maxDroppedPercent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .describe("Fail the deployment when more than this share of the recipients is dropped."),
  })
  .refine((r) => (r.file === undefined) !== (r.inline === undefined), {
    message: "give the recipients either as a file or inline, exactly one of the two",
  })
  .describe("The campaign's recipients.");

export const CampaignCheckout = z
  .strictObject({
    postageType: PostageType,
    productionSpeed: ProductionSpeed,
    holdUntilDate: z.iso.datetime({ offset: true }).optional().describe("Hold before production until then."),
    autoBill: z.boolean().optional().describe("Default true; false: the balance must cover the order."),
    maxTotal: z.number().nonnegative().optional().describe("Refuse, charging nothing, above this total."),
    settlementWaitSeconds: z
      .int()
      .min(0)
      .max(3600)
      .optional()
      .describe("How long to wait for payment to settle."),
  })
  .describe("Pays for the order, once. Leave it out to keep the order a draft for review.");

export const CampaignAddressBookEntry = z
  .strictObject({
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    toOrganization: z.string().optional(),
    address1: z.string().min(1),
    address2: z.string().optional(),
    city: z.string().min(1),
    state: z.string().min(1),
    zip: z.string().min(1),
    phoneNumber: z.string().optional(),
  })
  .describe("An address-book entry (the service cannot change or delete entries).");

export const CampaignSpec = z
  .strictObject({
    order: CampaignOrder,
    recipients: CampaignRecipients,
    checkout: CampaignCheckout.optional(),
    addressBook: z.array(CampaignAddressBookEntry).optional(),
    retain: z
      .boolean()
      .optional()
      .describe(
        "true: when the campaign leaves the stack (its file deleted, or pulumi destroy), its order, recipients " +
          "and checkout stay at the service as they are, even a draft (retainOnDelete). Without it a draft is " +
          "deleted at the service, and an order past draft stays there anyway",
      ),
  })
  .describe("What the campaign declares.");
export type CampaignSpec = z.infer<typeof CampaignSpec>;

export const CampaignDocument = z
  .strictObject({
    apiVersion: z.literal(CAMPAIGN_API_VERSION).describe("Version of this format."),
    kind: z.literal("Campaign"),
    metadata: z.strictObject({
      name: z
        .string()
        .regex(
          /^[a-z0-9][a-z0-9-]{0,62}$/,
          "name is lowercase letters, digits and dashes (at most 63), starting with a letter or digit",
        )
        .describe("Names the campaign's resources: renaming it replaces them; renaming the file does not."),
      description: z.string().optional(),
    }),
    spec: CampaignSpec,
  })
  .meta({
    id: "CampaignDocument",
    title: "directmail campaign",
    description: "A direct-mail campaign declared as data.",
  });
export type CampaignDocument = z.infer<typeof CampaignDocument>;
