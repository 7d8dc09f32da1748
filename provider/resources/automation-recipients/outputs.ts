/** What an `AutomationRecipients` reports, beside its inputs. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { AutomationRecipientsInputs } from "./inputs";

/** A recipient the service refused (422), by its place in the list. */
export const RefusedRecipientFields = {
  /** 1-based: the line of a CSV or JSON Lines file, the position in a JSON array or inline list. */
  row: z.int(),
  /** The key field's value, when there is a key field. */
  key: z.string().optional(),
  /** The service's reason: `ADDRESS_NOT_VALID`, `DO_NOT_MAIL`, `RETURN_NAME_PARTIAL`, ... */
  reasonCode: z.string(),
  /** The service's message. */
  message: z.string(),
};
export type RefusedRecipient = OutputOf<typeof RefusedRecipientFields>;

export const AutomationRecipientsOutputFields = {
  /** A digest of the declared list (every key and content): it changes with any edit. */
  digest: z.string(),
  /** How many distinct recipients the list declares. */
  declaredCount: z.int(),
  /** The compact record of which recipient was mailed or refused. Kept for updates; not meant to be read. */
  index: z.string(),
  /** Recipients this resource mailed (or found queued already by an earlier, interrupted run). */
  mailedCount: z.int(),
  /** Recipients the service refused (see `refused`); sent again only once they change. */
  refusedCount: z.int(),
  /** Up to ten refused recipients with their row, reason code and message. */
  refused: z.array(z.object(RefusedRecipientFields)) as z.ZodArray<
    z.ZodObject<typeof RefusedRecipientFields>
  >,
  /** The integration order's status when last read (`Active`, `Paused`). */
  integrationOrderStatus: z.string().nullable(),
};
export type AutomationRecipientsOutputFields = OutputOf<typeof AutomationRecipientsOutputFields>;

export type AutomationRecipientsOutputs = AutomationRecipientsInputs & AutomationRecipientsOutputFields;
