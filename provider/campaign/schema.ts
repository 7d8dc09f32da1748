/**
 * The campaign file format: one zod schema, from which the JSON Schema for editors
 * (schema/campaign.schema.json) and docs/campaign-format.md are generated. A campaign file holds one
 * campaign document, or several separated by `---`.
 */
import { z } from "zod";
import { AddressBookEntryInputFields } from "../resources/address-book-entry/inputs";
import { CheckoutInputFields } from "../resources/checkout/inputs";
import { OrderInputFields } from "../resources/order/inputs";
import { OrderRecipientsInputFields } from "../resources/order-recipients/inputs";
import { DECLARED_FIELDS } from "../resources/recipients/declared";
import type { Fields } from "../resources/types";

export const CAMPAIGN_API_VERSION = "directmail/v1";

/** A resource's field as a campaign file has it: a field with a default is optional (the resource applies it). */
type FileField<T> = T extends z.ZodDefault<infer Inner extends z.ZodType> ? z.ZodOptional<Inner> : T;

/**
 * The fields of a resource's inputs as a campaign file writes them: the same types and limits, each
 * with a description for the file's author (its resource's JSDoc speaks to a program's). A
 * description left undefined keeps the field's own (a shared enum's, such as PostageType).
 */
function fileFields<F extends Fields>(
  fields: F,
  descriptions: { [K in keyof F]: string | undefined },
): { [K in keyof F]: FileField<F[K]> } {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => {
      const optional = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType).optional() : field;
      const description = descriptions[name];
      return [name, description === undefined ? optional : optional.describe(description)];
    }),
  ) as { [K in keyof F]: FileField<F[K]> };
}

const recipientRecord = z
  .record(z.string(), z.union([z.string(), z.number()]))
  .describe(`One recipient, by field name: ${DECLARED_FIELDS.join(", ")}.`);

export const CampaignOrder = z
  .strictObject(
    fileFields(OrderInputFields, {
      templateId: "The template order the campaign's order is made from.",
      useQr: "true keeps the template's QR code, false removes it.",
      qrUrl: "Overrides the template's QR target.",
      handwritingFont: "One of the service's handwriting styles.",
      existingOrderId:
        "Adopt this existing order (made in the web application, say) instead of creating one.",
    }),
  )
  .describe("The order: made from a template, or adopted.");

const { orderId: _order, recipients: _inline, file, ...recipientOptions } = OrderRecipientsInputFields;

export const CampaignRecipients = z
  .strictObject({
    ...fileFields(
      { file },
      { file: "CSV (header row), JSON array or JSON Lines file, relative to the campaign file." },
    ),
    inline: z
      .array(recipientRecord)
      .optional()
      .describe("Recipients written in the campaign file (small lists)."),
    ...fileFields(recipientOptions, {
      keyColumn: "A column that identifies each recipient (a customer id); without it, the content does.",
      identityField: "The custom field that carries each recipient's identity key (default custom6).",
      maxDroppedPercent: "Fail the deployment when more than this share of the recipients is dropped.",
    }),
  })
  .refine((r) => (r.file === undefined) !== (r.inline === undefined), {
    message: "give the recipients either as a file or inline, exactly one of the two",
  })
  .describe("The campaign's recipients.");

const { orderId: _paid, ...checkoutFields } = CheckoutInputFields;

export const CampaignCheckout = z
  .strictObject(
    fileFields(checkoutFields, {
      postageType: undefined,
      productionSpeed: undefined,
      holdUntilDate: "Hold before production until then.",
      autoBill: "Default true; false: the balance must cover the order.",
      maxTotal: "Refuse, charging nothing, above this total.",
      settlementWaitSeconds: "How long to wait for payment to settle.",
    }),
  )
  .describe("Pays for the order, once. Leave it out to keep the order a draft for review.");

/**
 * An address-book entry as text fields: the entry's keys, and which of them are required, are the
 * resource's; its trimming, defaults and length limits apply when the resource checks it.
 */
type TextFields<F extends Fields> = {
  [K in keyof F]: undefined extends z.input<F[K]> ? z.ZodOptional<z.ZodString> : z.ZodString;
};
const textFields = <F extends Fields>(fields: F): TextFields<F> =>
  Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [
      name,
      field.safeParse(undefined).success ? z.string().optional() : z.string().min(1),
    ]),
  ) as TextFields<F>;

export const CampaignAddressBookEntry = z
  .strictObject(textFields(AddressBookEntryInputFields))
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
