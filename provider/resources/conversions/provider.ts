/**
 * The provider hooks of `Conversions` (resource.ts): conversion records uploaded in batches of at
 * most 5,000, one upload each (the service gives an upload one id). The service deletes whole
 * uploads, not records, so a removed or changed record costs its upload: that upload is deleted
 * and its other records are uploaded again with the new ones.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { NotFoundError, ValidationError } from "../../api/errors";
import { MAX_CONVERSIONS_PER_REQUEST } from "../../api/schemas/conversions";
import { SAMPLE_SIZE } from "../../limits";
import { decodeIndex, encodeIndex, RecipientIndex } from "../../recipients/index";
import { checkInputs, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { progress } from "../progress";
import {
  type LoadedRecord,
  type LoadedRecords,
  loadRecords,
  type RecordSource,
  recordLabel,
  refuseProblems,
  sourceName,
} from "../records/source";
import { withTier } from "../tier";
import { ConversionsInputs } from "./inputs";
import type { ConversionsOutputs, ConversionUpload, RejectedRecord } from "./outputs";
import { conversionShape, recordProblemOf } from "./record";

type Declared = LoadedRecords<Record<string, unknown>>;
type DeclaredRecord = LoadedRecord<Record<string, unknown>>;

const SUBJECT = "Conversions";
const DEFAULT_DELETE_WAIT_SECONDS = 60;
/** The digest a refresh records when uploads were deleted elsewhere: the next plan uploads them again. */
const STALE = "stale";

const sourceOf = (inputs: ConversionsInputs): RecordSource =>
  inputs.file !== undefined
    ? { file: inputs.file, fileRoot: inputs.fileRoot }
    : { inline: inputs.records ?? [] };
const nameOf = (inputs: ConversionsInputs) => sourceName(sourceOf(inputs), "records");

async function declaredOf(inputs: ConversionsInputs): Promise<Declared> {
  const loaded = await loadRecords(sourceOf(inputs), conversionShape, inputs.keyField);
  refuseProblems(nameOf(inputs), loaded);
  return loaded;
}

/** What an update does: uploads to delete, records to send, and the index entries that stay. */
interface SyncPlan {
  keep: RecipientIndex;
  deleteUploads: number[];
  send: DeclaredRecord[];
  added: number;
  removed: number;
  changed: number;
}

export function planConversions(declared: Map<string, DeclaredRecord>, current: RecipientIndex): SyncPlan {
  const affected = new Set<number>();
  let removed = 0;
  let changed = 0;
  for (const [key, entry] of current) {
    const wanted = declared.get(key);
    if (wanted?.content === entry.content) continue;
    if (wanted === undefined) removed += 1;
    else changed += 1;
    if (entry.id > 0) affected.add(entry.id);
  }
  const keep = new RecipientIndex();
  for (const [key, entry] of current) {
    // Refused records (id 0) stay refused until they change.
    if (declared.get(key)?.content === entry.content && !affected.has(entry.id)) keep.set(key, entry);
  }
  const send = [...declared.values()].filter((r) => !keep.has(r.key));
  const added = send.filter((r) => !current.has(r.key)).length;
  return { keep, deleteUploads: [...affected].sort((a, b) => a - b), send, added, removed, changed };
}

const describe = (plan: SyncPlan) =>
  `${plan.added} added, ${plan.removed} removed, ${plan.changed} changed: ` +
  `${plan.deleteUploads.length} upload${plan.deleteUploads.length === 1 ? "" : "s"} deleted, ` +
  `${plan.send.length} record${plan.send.length === 1 ? "" : "s"} uploaded`;

export function conversionsImplementation(
  ctx: ProviderContext,
): ResourceImplementation<ConversionsInputs, ConversionsOutputs> {
  const tier = <T>(notDone: string, call: () => Promise<T>) => withTier(SUBJECT, notDone, call);

  /** Marks uploads for deletion (entry 19) and waits for the service to complete it (entry 20). */
  const deleteUploads = async (ids: readonly number[], waitSeconds: number): Promise<void> => {
    if (ids.length === 0) return;
    const client = ctx.client();
    const pending = new Set<number>();
    for (const id of ids) {
      try {
        await client.deleteConversion(id);
        pending.add(id);
      } catch (error) {
        if (error instanceof NotFoundError) continue; // gone already
        // Marked for deletion already (an interrupted run): wait for it as for the others.
        if (error instanceof ValidationError && error.errorCode === "CONVERSION_NOT_DELETABLE_STATUS") {
          pending.add(id);
          continue;
        }
        throw error;
      }
    }
    const total = pending.size;
    if (total === 0) return;
    progress(
      SUBJECT,
      `deleting ${total} upload${total === 1 ? "" : "s"} (${[...pending].join(", ")}); waiting up to ${waitSeconds} s for the service`,
    );
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      for (const id of [...pending]) {
        try {
          await client.getConversionStatus(id);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          pending.delete(id);
          progress(SUBJECT, `upload ${id} deleted (${total - pending.size} of ${total})`);
        }
      }
      if (pending.size === 0) return;
      if (Date.now() >= deadline) {
        progress(
          SUBJECT,
          `upload${pending.size === 1 ? "" : "s"} ${[...pending].join(", ")} still pending deletion after ${waitSeconds} s; ` +
            "the service completes it on its own, nothing else is needed",
        );
        return;
      }
      await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
    }
  };

  /** Uploads records in batches of at most 5,000; each record's entry, and what the service refused. */
  const upload = async (
    name: string,
    records: readonly DeclaredRecord[],
  ): Promise<{ entries: RecipientIndex; rejected: RejectedRecord[]; rejectedCount: number }> => {
    const client = ctx.client();
    const entries = new RecipientIndex();
    const rejected: RejectedRecord[] = [];
    let rejectedCount = 0;
    const refuse = (record: DeclaredRecord, message: string) => {
      rejectedCount += 1;
      entries.set(record.key, { id: 0, content: record.content, listed: 0 });
      if (rejected.length < SAMPLE_SIZE) {
        rejected.push({
          row: record.row,
          ...(record.keyValue !== undefined ? { key: record.keyValue } : {}),
          message,
        });
        progress(SUBJECT, `${recordLabel(name, record)} refused by the service: ${message}`);
      }
    };
    const batches = Math.ceil(records.length / MAX_CONVERSIONS_PER_REQUEST);
    for (let b = 0; b < batches; b++) {
      const batch = records.slice(b * MAX_CONVERSIONS_PER_REQUEST, (b + 1) * MAX_CONVERSIONS_PER_REQUEST);
      let errors: readonly string[];
      let conversionId = 0;
      try {
        const result = await client.submitConversions(
          batch.map((r) => r.record as never),
          { partial: true },
        );
        errors = result.errors;
        conversionId = Number(result.metadata.conversionId ?? 0);
      } catch (error) {
        // 400 with no valid record: nothing was stored, every record has its problems.
        if (!(error instanceof ValidationError)) throw error;
        errors = error.errors;
      }
      const problems = new Map<number, string[]>();
      for (const message of errors) {
        const found = recordProblemOf(message);
        if (!found) continue;
        problems.set(found.index, [...(problems.get(found.index) ?? []), found.text]);
      }
      let refused = 0;
      batch.forEach((record, i) => {
        const said = problems.get(i);
        if (said === undefined && conversionId > 0) {
          entries.set(record.key, { id: conversionId, content: record.content, listed: 0 });
          return;
        }
        refused += 1;
        refuse(record, said?.join("; ") ?? errors.join("; "));
      });
      progress(
        SUBJECT,
        `upload ${b + 1} of ${batches}${conversionId ? ` (id ${conversionId})` : ""}: ` +
          `${batch.length - refused} accepted, ${refused} refused`,
      );
    }
    if (rejectedCount > rejected.length)
      progress(SUBJECT, `... and ${rejectedCount - rejected.length} more refused records`);
    return { entries, rejected, rejectedCount };
  };

  /** The outputs for an index: counts and the status of each upload (read from the service). */
  const outputsOf = async (
    inputs: ConversionsInputs,
    digest: string,
    declaredCount: number,
    index: RecipientIndex,
    rejected: RejectedRecord[],
  ): Promise<ConversionsOutputs> => {
    const counts = new Map<number, number>();
    let rejectedCount = 0;
    for (const entry of index.values()) {
      if (entry.id === 0) rejectedCount += 1;
      else counts.set(entry.id, (counts.get(entry.id) ?? 0) + 1);
    }
    const uploads: ConversionUpload[] = [];
    for (const [conversionId, records] of [...counts].sort(([a], [b]) => a - b)) {
      const status = await ctx.client().getConversionStatus(conversionId);
      uploads.push({ conversionId, status: status.status, matched: status.matched === true, records });
    }
    return {
      ...inputs,
      digest,
      declaredCount,
      index: encodeIndex(index),
      acceptedCount: index.size - rejectedCount,
      rejectedCount,
      rejected,
      uploads,
    };
  };

  /** `sayPlan`: a new resource has no diff to say the plan; an update's diff said it. */
  const sync = async (
    inputs: ConversionsInputs,
    current: RecipientIndex,
    rejectedBefore: RejectedRecord[],
    sayPlan: boolean,
  ) => {
    const declared = await declaredOf(inputs);
    const plan = planConversions(declared.byKey, current);
    if (sayPlan) progress(SUBJECT, describe(plan));
    await deleteUploads(plan.deleteUploads, inputs.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS);
    const sent = await upload(nameOf(inputs), plan.send);
    const index = new RecipientIndex([...plan.keep, ...sent.entries]);
    // Records refused earlier and unchanged stay refused: their sample stays, after this run's.
    const keptRefused = [...plan.keep.values()].some((e) => e.id === 0);
    const rejected = [...sent.rejected, ...(keptRefused ? rejectedBefore : [])].slice(0, SAMPLE_SIZE);
    return outputsOf(inputs, declared.digest, declared.byKey.size, index, rejected);
  };

  const indexOf = (props: ConversionsOutputs) => decodeIndex(props.index, props.keyField !== undefined);

  return {
    async check(_olds, news) {
      const checked = checkInputs(ConversionsInputs, news);
      if (checked.failures || isUnknown(news.file) || isUnknown(news.keyField)) return checked;
      if (Array.isArray(news.records) && news.records.some(isUnknown)) return checked;
      const { inputs } = checked;
      const declared = await declaredOf(inputs);
      return { inputs: { ...inputs, digest: declared.digest, declaredCount: declared.byKey.size } };
    },

    async diff(_id, olds, news) {
      const recordsChanged =
        news.digest === undefined || news.digest !== olds.digest || news.keyField !== olds.keyField;
      const waitChanged = news.deleteWaitSeconds !== olds.deleteWaitSeconds;
      const sourceChanged =
        news.file !== olds.file || (news.records === undefined) !== (olds.records === undefined);
      if (!recordsChanged && !waitChanged && !sourceChanged) return { changes: false };
      if (recordsChanged && news.digest !== undefined) {
        const declared = await declaredOf(news);
        progress(SUBJECT, describe(planConversions(declared.byKey, indexOf(olds))));
      }
      // Never replaced: an update sends only what changed.
      return { changes: true };
    },

    async create(inputs) {
      const outs = await tier("nothing was uploaded", () => sync(inputs, new RecipientIndex(), [], true));
      const first = outs.uploads[0]?.conversionId;
      return {
        id: first !== undefined ? `conversions-${first}` : `conversions-${outs.digest.slice(0, 12)}`,
        outs,
      };
    },

    async update(_id, olds, news) {
      return {
        outs: await tier("nothing was changed", () => sync(news, indexOf(olds), olds.rejected ?? [], false)),
      };
    },

    async read(id, props) {
      return tier("nothing was read", async () => {
        const read = indexOf(props);
        const ids = new Set([...read.values()].map((e) => e.id).filter((n) => n > 0));
        const goneIds = new Set<number>();
        for (const conversionId of ids) {
          try {
            await ctx.client().getConversionStatus(conversionId);
          } catch (error) {
            if (!(error instanceof NotFoundError)) throw error;
            goneIds.add(conversionId);
            const records = [...read.values()].filter((entry) => entry.id === conversionId).length;
            progress(
              SUBJECT,
              `upload ${conversionId} is gone at the service (deleted elsewhere); its ${records} records are uploaded again by the next \`pulumi up\``,
            );
          }
        }
        const gone = goneIds.size > 0;
        // The records of a deleted upload leave the index: the next update sends them again.
        const index = gone
          ? new RecipientIndex([...read].filter(([, entry]) => !goneIds.has(entry.id)))
          : read;
        const outs = await outputsOf(
          props,
          gone ? STALE : props.digest,
          props.declaredCount,
          index,
          props.rejected ?? [],
        );
        return { id, props: outs };
      });
    },

    async delete(_id, props) {
      const ids = [...new Set([...indexOf(props).values()].map((e) => e.id).filter((n) => n > 0))];
      await tier("nothing was deleted", () =>
        deleteUploads(ids, props.deleteWaitSeconds ?? DEFAULT_DELETE_WAIT_SECONDS),
      );
    },
  };
}
