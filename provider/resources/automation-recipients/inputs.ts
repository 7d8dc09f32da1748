/** What an `AutomationRecipients` declares. Each field's JSDoc is what a program's author reads. */
import { z } from "zod";

const InlineRecipient = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "each recipient must be an object of integration recipient fields",
);

/** The fields an AutomationRecipients declares. */
export const AutomationRecipientsInputFields = {
  /**
   * The integration order (automation) that mails each recipient. It cannot change: its recipients
   * were mailed through it.
   */
  integrationOrderId: z
    .int("integrationOrderId must be a whole number: the id of an integration order")
    .positive(),
  /**
   * Recipients written in the program, each an object of the service's integration recipient
   * fields (`firstName`, `lastName`, `address1`, `city`, `state`, `zipCode`, `custom1`...). Give
   * either `recipients` or `file`.
   */
  recipients: z.array(InlineRecipient).optional(),
  /**
   * A CSV (header row), JSON array or JSON Lines file of recipients, relative to the Pulumi
   * project's folder. Only a digest and a compact index are stored in the state.
   */
  file: z.string().trim().min(1, "file must name a .csv, .json, .jsonl or .ndjson file").optional(),
  /**
   * The folder that `file` must stay inside once links are followed, relative to the Pulumi
   * project's folder or absolute; the project folder when left out. A file outside it is refused at
   * `check`, unread. A CampaignFolder gives its own folder; a campaign file cannot set it.
   */
  fileRoot: z.string().trim().min(1, "fileRoot must name a folder").optional(),
  /**
   * The field (or column) that identifies a recipient, such as a customer id; without it, a
   * recipient's content does. A key column that is not a recipient field is not sent. It cannot
   * change once recipients were mailed (every recipient would be new, and mailed again).
   */
  keyField: z.string().trim().min(1).optional(),
  /**
   * Spending guard: the most recipients one deployment may mail. A plan that would mail more fails
   * at preview, and nothing is mailed. Omit it to allow any number.
   */
  maxNew: z.int("maxNew must be a whole number").nonnegative("maxNew must not be negative").optional(),
};

/** The inputs as `check` records them: the declaration, and what it computed from the list. */
export const AutomationRecipientsInputs = z
  .strictObject({
    ...AutomationRecipientsInputFields,
    digest: z.string().optional(),
    declaredCount: z.int().optional(),
  })
  .refine((v) => (v.recipients === undefined) !== (v.file === undefined), {
    message: "declare the recipients either inline (recipients) or in a file (file), exactly one of the two",
    path: ["file"],
  });
export type AutomationRecipientsInputs = z.infer<typeof AutomationRecipientsInputs>;
