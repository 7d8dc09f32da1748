/** What a `Conversions` reports, beside its inputs: one schema for the provider and the resource class. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { ConversionsInputs } from "./inputs";

/** One upload (one request of at most 5,000 records), as the service's status reads it. */
export const ConversionUploadFields = {
  /** The service's id of the upload (entry 19 deletes it, entry 20 reads it). */
  conversionId: z.int(),
  /** The upload's status when last read: `Processing`, then `Matched` or `Unmatched` in the sandbox. */
  status: z.string(),
  /** Whether the service matched the upload to mail it sent. */
  matched: z.boolean(),
  /** Records of this resource in the upload. */
  records: z.int(),
};
export type ConversionUpload = OutputOf<typeof ConversionUploadFields>;

/** A record the service refused, by its place in the list. */
export const RejectedRecordFields = {
  /** 1-based: the line of a CSV or JSON Lines file, the position in a JSON array or inline list. */
  row: z.int(),
  /** The key field's value, when there is a key field. */
  key: z.string().optional(),
  /** What the service said, naming the field. */
  message: z.string(),
};
export type RejectedRecord = OutputOf<typeof RejectedRecordFields>;

export const ConversionsOutputFields = {
  /** A digest of the declared records (every key and content): it changes with any edit. */
  digest: z.string(),
  /** How many distinct records are declared (duplicate rows counted once). */
  declaredCount: z.int(),
  /** The compact record of which declared record is in which upload. Kept for updates; not meant to be read. */
  index: z.string(),
  /** Records the service accepted. */
  acceptedCount: z.int(),
  /** Records the service refused (see `rejected`); sent again only once they change. */
  rejectedCount: z.int(),
  /** Up to ten refused records, with their row and the service's message. */
  rejected: z.array(z.object(RejectedRecordFields)) as z.ZodArray<z.ZodObject<typeof RejectedRecordFields>>,
  /** The uploads holding the records, with their status. */
  uploads: z.array(z.object(ConversionUploadFields)) as z.ZodArray<
    z.ZodObject<typeof ConversionUploadFields>
  >,
};
export type ConversionsOutputFields = OutputOf<typeof ConversionsOutputFields>;

/** The state of a Conversions: its inputs and its outputs. */
export type ConversionsOutputs = ConversionsInputs & ConversionsOutputFields;
