/** What a `Conversions` declares. Each field's JSDoc is what a program's author reads on `ConversionsArgs`. */
import { z } from "zod";

/** An inline conversion record: an object of ConversionRecord fields, judged when the records are read. */
const InlineRecord = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "each conversion record must be an object of conversion fields",
);

/** The fields a Conversions declares. */
export const ConversionsInputFields = {
  /**
   * Conversion records written in the program (a small list: it is stored in the state as written).
   * Each is an object of the service's conversion fields (`firstName`, `primaryAddress`, `revenue`,
   * `eventDate`, ...). Give either `records` or `file`.
   */
  records: z.array(InlineRecord).optional(),
  /**
   * A CSV (header row), JSON array or JSON Lines (`.jsonl`, `.ndjson`) file of conversion records,
   * relative to the Pulumi project's folder. CSV columns are the field names; `address1`, `city`,
   * `state`, `zipCode` (or `zip`) ... fill `primaryAddress`, and `secondaryAddress.city` (dotted)
   * names a field of the secondary address. Only a digest and a compact index are stored in the state.
   */
  file: z.string().trim().min(1, "file must name a .csv, .json, .jsonl or .ndjson file").optional(),
  /**
   * The folder that `file` must stay inside once links are followed, relative to the Pulumi
   * project's folder or absolute; the project folder when left out. A file outside it is refused at
   * `check`, unread. A CampaignFolder gives its own folder; a campaign file cannot set it.
   */
  fileRoot: z.string().trim().min(1, "fileRoot must name a folder").optional(),
  /**
   * The field that identifies a record (`uniqueId`, `orderId`, `crmId`...): a record whose other
   * fields change under the same key is uploaded again. Without it, a record's content identifies
   * it. A change re-uploads every record.
   */
  keyField: z.string().trim().min(1).optional(),
  /**
   * How long a deletion (destroy, or records removed) waits for the service to complete it, in
   * seconds (0 to 3600, default 60). The deletion completes whether or not the deployment waits.
   */
  deleteWaitSeconds: z
    .int("deleteWaitSeconds must be a whole number of seconds")
    .min(0)
    .max(3600, "deleteWaitSeconds is at most 3600; the deletion completes whether or not pulumi waits")
    .optional(),
};

/** The inputs as `check` records them: the declaration, and what it computed from the records. */
export const ConversionsInputs = z
  .strictObject({
    ...ConversionsInputFields,
    digest: z.string().optional(),
    declaredCount: z.int().optional(),
  })
  .refine((v) => (v.records === undefined) !== (v.file === undefined), {
    message:
      "declare the conversion records either inline (records) or in a file (file), exactly one of the two",
    path: ["file"],
  });
export type ConversionsInputs = z.infer<typeof ConversionsInputs>;
