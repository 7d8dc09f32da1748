/**
 * What an `OrderRecipients` declares, and `Recipient`, the type of a recipient written in a
 * program. The fields of a recipient are DeclaredRecipient's (recipients/declared.ts), with their
 * JSDoc; the rows themselves are validated by the recipient reader, which names row and field.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  CSV_DELIMITERS,
  DEFAULT_IDENTITY_FIELD,
  IDENTITY_FIELDS,
  ignoredKeyColumn,
  isPersonalColumn,
  MAX_COLUMN_NAME_LENGTH,
  MAX_IGNORED_COLUMNS,
  type RecipientFields,
} from "../../recipients/index";
import { shown } from "../../text";
import type { ArgsOf, InputOf } from "../types";

/**
 * A recipient written in a program: address fields (`address1`, `city`, `state`, `zipCode` are
 * required), personal fields (a name or `toOrganization` is required), and merge fields
 * (`custom1`..`custom6`, `image1`..`image6`, return address, `email`, `qrUrl`, `text`, `text2`),
 * each a string. `Key` is the `keyColumn` of the list, if any: a field of that name identifies the
 * recipient and is not sent. Any other field name is a type error.
 */
export type Recipient<Key extends string = never> = ArgsOf<typeof RecipientFields> & {
  [K in Key]: pulumi.Input<string>;
};

/** An inline recipient as the runtime sees it: an object, whose fields the recipient reader judges. */
const InlineRecipient = z.custom<InputOf<typeof RecipientFields>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "each recipient must be an object of recipient fields",
);

const percent = "maxDroppedPercent is a percentage from 0 to 100";

/** The fields a program declares for the recipients of an order (resource.ts documents the others). */
export const OrderRecipientsInputFields = {
  /** The order whose recipients these are, usually `order.orderId`. A change replaces the resource. */
  orderId: z.int("orderId must be a whole number: the id of an order").positive(),
  /**
   * The recipients inline, instead of a `file`: each with a name or an organization and an address
   * (`address1`, `city`, `state`, `zipCode`). Stored in the state as written, so for small lists.
   */
  recipients: z.array(InlineRecipient).optional(),
  /**
   * A CSV (with a header row), JSON array or JSON Lines (`.jsonl`, `.ndjson`) file of recipients,
   * relative to the Pulumi project's folder (where Pulumi.yaml is), also when the program's entry
   * point is in a subfolder. Only a digest and a compact index of it are stored in the state. Give
   * either `file` or `recipients`. An edit of the file changes only the recipients that differ.
   */
  file: z.string().trim().min(1, "file must name a .csv, .json, .jsonl or .ndjson file").optional(),
  /**
   * The folder that `file` must stay inside once links are followed, relative to the Pulumi
   * project's folder or absolute; the project folder when left out. A file outside it is refused at
   * `check`, unread. A CampaignFolder gives its own folder; a campaign file cannot set it.
   */
  fileRoot: z.string().trim().min(1, "fileRoot must name a folder").optional(),
  /**
   * The character between the values of a CSV `file`: `,` (the default), `;` or a tab (`"\t"`), as a
   * spreadsheet saved in some languages writes it.
   */
  delimiter: z.enum(CSV_DELIMITERS, 'delimiter must be ",", ";" or a tab ("\\t")').optional(),
  /**
   * A column that identifies each recipient (a customer id), matched as every column name is; not
   * sent. A row whose other fields change under the same key replaces that recipient.
   */
  keyColumn: z
    .string()
    .trim()
    .min(1)
    .refine((name) => !isPersonalColumn(name), {
      error: (issue) =>
        `"${shown(String(issue.input))}" is personal data and would show in reviews and state; ` +
        "use a column that identifies the customer, such as a customer id",
    })
    .optional(),
  /**
   * Columns of the `file` (or keys of its JSON objects) that are not recipient fields and are left
   * out, unsent: the phone or notes columns of a spreadsheet export. Names are compared as columns
   * are (case, spaces, `_` and `-` ignored). Any other column that is not a recipient field is a
   * problem, so a misspelled `adress2` is never dropped unnoticed.
   */
  ignoreColumns: z
    .array(
      z
        .string()
        .max(MAX_COLUMN_NAME_LENGTH, `a column name is at most ${MAX_COLUMN_NAME_LENGTH} characters long`),
    )
    .max(MAX_IGNORED_COLUMNS, `ignoreColumns lists at most ${MAX_IGNORED_COLUMNS} columns`)
    .optional(),
  /**
   * The merge field (`custom1`..`custom6`, default `custom6`) that carries each recipient's identity
   * key to the service and back; the recipients must leave it empty, and the template must not
   * print it. A change replaces every recipient.
   */
  identityField: z
    .enum(IDENTITY_FIELDS, "identityField must be one of custom1..custom6")
    .default(DEFAULT_IDENTITY_FIELD),
  /**
   * Fail the deployment when the service drops more than this percentage (0 to 100) of the declared
   * recipients (undeliverable addresses, say). The accepted ones stay on the order, and nothing that
   * depends on this resource (a Checkout) runs. Omit it to accept any number of drops.
   */
  maxDroppedPercent: z
    .number("maxDroppedPercent must be a number")
    .min(0, percent)
    .max(100, percent)
    .optional(),
};

/**
 * What a CampaignFolder's program found when it read the recipients file (campaign/folder.ts): the
 * file's signature then (fileSignature) and the list's figures. `check` takes them, rather than read
 * the file again, while the file's signature is the same; it never records them.
 */
export const ProgramRead = z.strictObject({
  signature: z.string().max(8192),
  digest: z.string().max(128),
  declaredCount: z.int().nonnegative(),
  duplicateRows: z.int().nonnegative(),
});
export type ProgramRead = z.infer<typeof ProgramRead>;

/** The inputs as `check` records them: the declaration, and what it computed from the list. */
export const OrderRecipientsInputs = z
  .strictObject({
    ...OrderRecipientsInputFields,
    digest: z.string().optional(),
    declaredCount: z.int().optional(),
    duplicateRows: z.int().optional(),
    programRead: ProgramRead.optional(),
  })
  .refine((v) => (v.recipients === undefined) !== (v.file === undefined), {
    message: "declare the recipients either inline (recipients) or in a file (file), exactly one of the two",
    path: ["file"],
  })
  .superRefine(refuseIgnoredKeyColumn);
export type OrderRecipientsInputs = z.infer<typeof OrderRecipientsInputs>;

/** An `ignoreColumns` that names the key column: the key would be both read and left out. */
export function refuseIgnoredKeyColumn(
  v: { keyColumn?: string | undefined; ignoreColumns?: readonly string[] | undefined },
  ctx: z.RefinementCtx,
): void {
  const ignored = ignoredKeyColumn(v);
  if (ignored !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["ignoreColumns"],
      message: `"${shown(ignored)}" is the key column (keyColumn): it identifies each recipient and cannot be ignored`,
    });
}
