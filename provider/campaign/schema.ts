/**
 * The campaign file format: one zod schema, from which the JSON Schema for editors
 * (schema/campaign.schema.json) and docs/campaign-format.md are generated. A campaign file holds one
 * campaign document, or several separated by `---`.
 */
import { z } from "zod";
import { DECLARED_FIELDS } from "../recipients/index";
import { AddressBookEntryInputFields } from "../resources/address-book-entry/inputs";
import { AutomationRecipientsInputFields } from "../resources/automation-recipients/inputs";
import { CheckoutInputFields } from "../resources/checkout/inputs";
import { ConversionsInputFields } from "../resources/conversions/inputs";
import { OrderInputFields } from "../resources/order/inputs";
import { OrderRecipientsInputFields, refuseIgnoredKeyColumn } from "../resources/order-recipients/inputs";
import { ProximitySearchInputFields } from "../resources/proximity-search/inputs";
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

// The root a file stays inside is the stack owner's (the campaign folder), never a campaign file's.
const {
  orderId: _order,
  recipients: _inline,
  file,
  fileRoot: _root,
  ...recipientOptions
} = OrderRecipientsInputFields;

export const CampaignRecipients = z
  .strictObject({
    ...fileFields(
      { file },
      {
        file: "CSV (header row), JSON array or JSON Lines file, relative to the campaign file; inside the campaign folder once links are followed.",
      },
    ),
    inline: z
      .array(recipientRecord)
      .optional()
      .describe("Recipients written in the campaign file (small lists)."),
    ...fileFields(recipientOptions, {
      keyColumn:
        "A column that identifies each recipient (a customer id), matched as every column is: case, spaces, _ and " +
        '- ignored ("Customer ID" is customerId). Without it, the content identifies a recipient. Never personal ' +
        "data (a name, an address, an e-mail, a phone): the key shows in reviews and in the state.",
      ignoreColumns:
        "Columns of the file (keys of its JSON objects) that are not recipient fields, left out unsent: the " +
        "Phone or Notes of a spreadsheet export. Compared as columns are (case, spaces, _ and - ignored). Any " +
        "other column that is not a recipient field is a problem, so a misspelled one is never dropped unnoticed.",
      delimiter:
        'The character between the values of a CSV file: "," (the default), ";" or a tab ("\\t"), as a ' +
        "spreadsheet saved in some languages writes it.",
      identityField: "The custom field that carries each recipient's identity key (default custom6).",
      maxDroppedPercent: "Fail the deployment when more than this share of the recipients is dropped.",
    }),
  })
  .refine((r) => (r.file === undefined) !== (r.inline === undefined), {
    message: "give the recipients either as a file or inline, exactly one of the two",
  })
  .superRefine(refuseIgnoredKeyColumn)
  .describe("The campaign's recipients.");

// The order and the recipient count it must hold come from the campaign's own resources.
const { orderId: _paid, expectedRecipientCount: _applied, ...checkoutFields } = CheckoutInputFields;

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

const {
  records: _records,
  file: conversionsFile,
  fileRoot: _conversionsRoot,
  ...conversionOptions
} = ConversionsInputFields;

export const CampaignConversions = z
  .strictObject({
    ...fileFields(
      { file: conversionsFile },
      {
        file: "CSV (header row), JSON array or JSON Lines file of conversion records, relative to this file; inside the campaign folder once links are followed.",
      },
    ),
    inline: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("Conversion records written in the file (small lists), each by field name."),
    ...fileFields(conversionOptions, {
      keyField: "The field that identifies a record (uniqueId, orderId...); without it, the content does.",
      deleteWaitSeconds: "How long a deletion waits for the service to complete it (default 60).",
    }),
  })
  .refine((r) => (r.file === undefined) !== (r.inline === undefined), {
    message: "give the conversion records either as a file or inline, exactly one of the two",
  })
  .describe(
    "Conversion records uploaded for matchback, in uploads of at most 5,000. A changed or removed record " +
      "re-uploads its upload; deleting deletes the uploads at the service",
  );

const {
  integrationOrderId: _automation,
  recipients: _automationInline,
  file: automationFile,
  fileRoot: _automationRoot,
  ...automationOptions
} = AutomationRecipientsInputFields;

export const AutomationRecipientList = z
  .strictObject({
    ...fileFields(
      { file: automationFile },
      {
        file: "CSV (header row), JSON array or JSON Lines file of recipients, relative to this file; inside the campaign folder once links are followed.",
      },
    ),
    inline: z
      .array(z.record(z.string(), z.union([z.string(), z.number()])))
      .optional()
      .describe("Recipients written in the file, each by integration recipient field name."),
    ...fileFields(automationOptions, {
      keyField:
        "The field or column that identifies a recipient (a customer id); without it, the content does.",
      maxNew: "Refuse, mailing nothing, a change that would mail more recipients than this.",
    }),
  })
  .refine((r) => (r.file === undefined) !== (r.inline === undefined), {
    message: "give the recipients either as a file or inline, exactly one of the two",
  })
  .describe(
    "Recipients mailed by the automation as each arrives: sent once, never replaced; a removed one is forgotten",
  );

const { integrationOrderId: _searched, ...searchFields } = ProximitySearchInputFields;

export const AutomationProximitySearch = z
  .strictObject(searchFields)
  .describe(
    "A proximity search: the service finds addresses around these and mails them. It cannot change once it " +
      "ran; its name names its resource, so a new name is a new search",
  );

const apiVersion = z.literal(CAMPAIGN_API_VERSION).describe("Version of this format.");
const metadata = (what: string) =>
  z.strictObject({
    name: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,62}$/,
        "name is lowercase letters, digits and dashes (at most 63), starting with a letter or digit",
      )
      .describe(`Names the ${what}'s resources: renaming it replaces them; renaming the file does not.`),
    description: z.string().optional(),
  });

export const CampaignSpec = z
  .strictObject({
    order: CampaignOrder,
    recipients: CampaignRecipients,
    checkout: CampaignCheckout.optional(),
    addressBook: z.array(CampaignAddressBookEntry).optional(),
    conversions: CampaignConversions.optional(),
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
    apiVersion,
    kind: z.literal("Campaign"),
    metadata: metadata("campaign"),
    spec: CampaignSpec,
  })
  .meta({
    id: "CampaignDocument",
    title: "directmail campaign",
    description: "A direct-mail campaign declared as data.",
  });
export type CampaignDocument = z.infer<typeof CampaignDocument>;

export const ConversionsDocument = z
  .strictObject({
    apiVersion,
    kind: z.literal("Conversions"),
    metadata: metadata("upload"),
    spec: CampaignConversions,
  })
  .meta({
    id: "ConversionsDocument",
    title: "directmail conversions",
    description: "Conversion records uploaded for matchback and attribution, on their own.",
  });
export type ConversionsDocument = z.infer<typeof ConversionsDocument>;

export const AutomationSpec = z
  .strictObject({
    integrationOrderId: AutomationRecipientsInputFields.integrationOrderId.describe(
      "The integration order (automation) that mails the recipients. It cannot change.",
    ),
    recipients: AutomationRecipientList.optional(),
    proximitySearches: z.array(AutomationProximitySearch).optional(),
  })
  .describe("What the automation declares: recipients to mail, proximity searches, or both.");

export const AutomationDocument = z
  .strictObject({
    apiVersion,
    kind: z.literal("Automation"),
    metadata: metadata("automation"),
    spec: AutomationSpec,
  })
  .meta({
    id: "AutomationDocument",
    title: "directmail automation",
    description: "Recipients and proximity searches of a standing automation (integration order): they mail.",
  });
export type AutomationDocument = z.infer<typeof AutomationDocument>;

/** The kinds of document a campaign file may hold, and the schema of each. */
export const DOCUMENT_KINDS = {
  Campaign: CampaignDocument,
  Conversions: ConversionsDocument,
  Automation: AutomationDocument,
} as const;
export type DocumentKind = keyof typeof DOCUMENT_KINDS;

/** A document of a kind other than Campaign: each declares resources of its own. */
export type ResourceDocument = ConversionsDocument | AutomationDocument;
