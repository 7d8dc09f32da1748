/**
 * The provider hooks of `AutomationRecipients` (resource.ts). Adding a recipient to an integration
 * order mails it: each declared recipient is sent once, in its own request, and never again. The
 * state records, per recipient key, whether it was mailed or refused; a recipient removed from the
 * list is only forgotten, since its piece cannot be recalled.
 */
import { IntegrationRecipientRejectedError } from "../../api/errors";
import { IntegrationRecipient } from "../../api/schemas/integration";
import { SAMPLE_SIZE } from "../../limits";
import { decodeIndex, encodeIndex, RecipientIndex } from "../../recipients/index";
import { shown } from "../../text";
import { checkInputs, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { progress } from "../progress";
import {
  type LoadedRecord,
  type LoadedRecords,
  loadRecords,
  type RecordShape,
  type RecordSource,
  recordLabel,
  refuseProblems,
  sourceName,
} from "../records/source";
import { withTier } from "../tier";
import { UserError } from "../user-error";
import { AutomationRecipientsInputs } from "./inputs";
import type { AutomationRecipientsOutputs, RefusedRecipient } from "./outputs";

type Declared = LoadedRecords<Record<string, string>>;
type DeclaredRecipient = LoadedRecord<Record<string, string>>;

/** Index values: a refused recipient, one this resource mailed, one found queued already. */
const REFUSED = 0;
const MAILED = 1;
const QUEUED_BEFORE = 2;
/** Refusals about the integration order itself: every later recipient would get the same. */
const ORDER_REASONS = new Set(["ORDER_NOT_AVAILABLE", "ORDER_TEMPLATE_MISSING"]);

const FIELDS = Object.keys(IntegrationRecipient.shape).filter((f) => f !== "id");
const FIELD_SET = new Set(FIELDS);

/** An integration recipient from a row: its fields as text; the key column, if not a field, left out. */
export function recipientShape(keyField: string | undefined): RecordShape<Record<string, string>> {
  return {
    noun: "recipient",
    shape(row) {
      const problems: { field?: string; message: string }[] = [];
      const record: Record<string, string> = {};
      for (const [name, value] of Object.entries(row)) {
        if (!FIELD_SET.has(name)) {
          if (name !== keyField)
            problems.push({
              field: name,
              message: `unknown field "${shown(name)}"; a recipient has ${FIELDS.join(", ")}`,
            });
          continue;
        }
        if (value === undefined || value === null || value === "") continue;
        if (typeof value !== "string" && typeof value !== "number") {
          problems.push({ field: name, message: `${name} must be text` });
          continue;
        }
        record[name] = String(value);
      }
      return problems.length > 0 ? { problems } : { record };
    },
  };
}

const subject = (integrationOrderId: number) => `Integration order ${integrationOrderId}`;
const sourceOf = (inputs: AutomationRecipientsInputs): RecordSource =>
  inputs.file !== undefined
    ? { file: inputs.file, fileRoot: inputs.fileRoot }
    : { inline: inputs.recipients ?? [] };
const nameOf = (inputs: AutomationRecipientsInputs) => sourceName(sourceOf(inputs), "recipients");

async function declaredOf(inputs: AutomationRecipientsInputs): Promise<Declared> {
  const loaded = await loadRecords(sourceOf(inputs), recipientShape(inputs.keyField), inputs.keyField);
  refuseProblems(nameOf(inputs), loaded);
  return loaded;
}

interface Plan {
  /** Declared and not recorded: to be mailed. */
  send: DeclaredRecipient[];
  /** Recorded and no longer declared (or declared with other details): forgotten. */
  forgotten: number;
  /** Recorded as refused and declared with other details: sent again. */
  retried: number;
  keep: RecipientIndex;
}

export function planRecipients(declared: Map<string, DeclaredRecipient>, current: RecipientIndex): Plan {
  const keep = new RecipientIndex();
  let forgotten = 0;
  let retried = 0;
  for (const [key, entry] of current) {
    const wanted = declared.get(key);
    if (wanted === undefined) forgotten += 1;
    else if (entry.id !== REFUSED)
      keep.set(key, entry); // mailed: never sent again, whatever changed
    else if (wanted.content === entry.content) keep.set(key, entry);
    else retried += 1;
  }
  const send = [...declared.values()].filter((r) => !keep.has(r.key));
  return { send, forgotten, retried, keep };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Refuses a plan that would mail more than `maxNew`: at plan time, and again before anything is sent. */
function guard(inputs: AutomationRecipientsInputs, plan: Plan): void {
  if (inputs.maxNew !== undefined && plan.send.length > inputs.maxNew)
    throw aboveMaxNew(inputs.integrationOrderId, plan.send.length, inputs.maxNew);
}

/** The refusal of a plan that would mail more than `maxNew`. */
function aboveMaxNew(integrationOrderId: number, count: number, maxNew: number): UserError {
  return new UserError(
    `${subject(integrationOrderId)}: this change would mail ${plural(count, "new recipient")}, more than maxNew ${maxNew}; ` +
      "nothing was mailed. Raise maxNew if that many are intended, or declare fewer recipients.",
  );
}

export function automationRecipientsImplementation(
  ctx: ProviderContext,
): ResourceImplementation<AutomationRecipientsInputs, AutomationRecipientsOutputs> {
  const tier = <T>(id: number, notDone: string, call: () => Promise<T>) =>
    withTier(subject(id), notDone, call);

  const orderStatus = async (id: number): Promise<string | null | undefined> => {
    const orders = await ctx.client().listIntegrationOrders();
    const found = orders.find((o) => o.id === id);
    return found === undefined ? undefined : found.integrationOrderStatus;
  };

  /** The plan (check for a new resource, diff for a change): what it mails and forgets; refused above maxNew. */
  const announce = (inputs: AutomationRecipientsInputs, plan: Plan) => {
    const parts = [`${plural(plan.send.length, "recipient")} to mail (cannot be recalled)`];
    if (plan.forgotten > 0)
      parts.push(
        `${plural(plan.forgotten, "recipient")} removed from the list ${plan.forgotten === 1 ? "is" : "are"} ` +
          "forgotten (mailed pieces cannot be recalled; nothing is sent to the service)",
      );
    progress(subject(inputs.integrationOrderId), parts.join("; "));
    guard(inputs, plan);
  };

  const sync = async (
    inputs: AutomationRecipientsInputs,
    current: RecipientIndex,
    refusedBefore: RefusedRecipient[],
  ) => {
    const id = inputs.integrationOrderId;
    const declared = await declaredOf(inputs);
    const plan = planRecipients(declared.byKey, current);
    guard(inputs, plan);
    const index = new RecipientIndex(plan.keep);
    const refused: RefusedRecipient[] = [];
    let mailed = 0;
    const name = nameOf(inputs);
    for (const recipient of plan.send) {
      try {
        await ctx.client().addIntegrationRecipient(id, recipient.record);
        index.set(recipient.key, { id: MAILED, content: recipient.content, listed: 0 });
        mailed += 1;
      } catch (error) {
        if (!(error instanceof IntegrationRecipientRejectedError)) {
          if (mailed === 0) throw error;
          throw new UserError(
            `${subject(id)}: ${error instanceof Error ? error.message : String(error)}. ${plural(mailed, "recipient")} ` +
              "were mailed before this failure; run `pulumi up` again: the service reports them as queued already " +
              "(DUPLICATE_RECIPIENT), and they are recorded, not mailed again.",
          );
        }
        const reasonCode = error.reasonCode ?? "REJECTED";
        const message = error.result?.errorMessage ?? error.errors.join("; ");
        if (reasonCode === "DUPLICATE_RECIPIENT") {
          // Queued already (an interrupted run, or elsewhere): it was mailed; record it, never resend.
          index.set(recipient.key, { id: QUEUED_BEFORE, content: recipient.content, listed: 0 });
          progress(
            subject(id),
            `${recordLabel(name, recipient)}: DUPLICATE_RECIPIENT, queued already: recorded, not mailed again`,
          );
          continue;
        }
        if (ORDER_REASONS.has(reasonCode)) {
          throw new UserError(
            `${subject(id)} refused ${recordLabel(name, recipient)}: ${reasonCode}: ${message}. ` +
              `${mailed > 0 ? `${plural(mailed, "recipient")} were mailed before; ` : "Nothing was mailed; "}` +
              "make the automation Active with a template in the web application, then run `pulumi up` again.",
          );
        }
        index.set(recipient.key, { id: REFUSED, content: recipient.content, listed: 0 });
        refused.push({
          row: recipient.row,
          ...(recipient.keyValue !== undefined ? { key: recipient.keyValue } : {}),
          reasonCode,
          message,
        });
        progress(subject(id), `${recordLabel(name, recipient)} refused: ${reasonCode}: ${message}`);
      }
    }
    progress(subject(id), `${plural(mailed, "recipient")} mailed, ${refused.length} refused`);
    const keptRefused = [...plan.keep.values()].some((e) => e.id === REFUSED);
    return outputsOf(
      inputs,
      declared,
      index,
      [...refused, ...(keptRefused ? refusedBefore : [])].slice(0, SAMPLE_SIZE),
    );
  };

  const outputsOf = async (
    inputs: AutomationRecipientsInputs,
    declared: Pick<Declared, "digest" | "byKey">,
    index: RecipientIndex,
    refused: RefusedRecipient[],
  ): Promise<AutomationRecipientsOutputs> => {
    const refusedCount = [...index.values()].filter((e) => e.id === REFUSED).length;
    return {
      ...inputs,
      digest: declared.digest,
      declaredCount: declared.byKey.size,
      index: encodeIndex(index),
      mailedCount: index.size - refusedCount,
      refusedCount,
      refused,
      integrationOrderStatus: (await orderStatus(inputs.integrationOrderId)) ?? null,
    };
  };

  const indexOf = (props: AutomationRecipientsOutputs) => decodeIndex(props.index, true);

  return {
    async check(olds, news) {
      const checked = checkInputs(AutomationRecipientsInputs, news);
      if (checked.failures || isUnknown(news.file) || isUnknown(news.keyField)) return checked;
      if (Array.isArray(news.recipients) && news.recipients.some(isUnknown)) return checked;
      const { inputs } = checked;
      const declared = await declaredOf(inputs);
      // A new resource mails every declared recipient: the guard applies at once (diff judges updates).
      if (olds === undefined && !isUnknown(news.integrationOrderId)) {
        announce(inputs, planRecipients(declared.byKey, new RecipientIndex()));
      }
      return { inputs: { ...inputs, digest: declared.digest, declaredCount: declared.byKey.size } };
    },

    async diff(_id, olds, news) {
      for (const field of ["integrationOrderId", "keyField"] as const) {
        if (isUnknown(news[field]) || news[field] !== olds[field]) {
          throw new UserError(
            `${subject(olds.integrationOrderId)}: ${field} cannot change (from ${JSON.stringify(olds[field] ?? null)} to ` +
              `${JSON.stringify(news[field] ?? null)}): its recipients were mailed, and every recipient would be mailed ` +
              "again. Put it back; for another automation or another key, declare a new AutomationRecipients.",
          );
        }
      }
      const listChanged = news.digest === undefined || news.digest !== olds.digest;
      const guardChanged = news.maxNew !== olds.maxNew;
      if (!listChanged && !guardChanged) return { changes: false };
      if (listChanged && news.digest !== undefined) {
        announce(news, planRecipients((await declaredOf(news)).byKey, indexOf(olds)));
      }
      // Never replaced: a replacement would mail every recipient again.
      return { changes: true };
    },

    async create(inputs) {
      const outs = await tier(inputs.integrationOrderId, "nothing was mailed", () =>
        sync(inputs, new RecipientIndex(), []),
      );
      return { id: `automation-${inputs.integrationOrderId}-${outs.digest.slice(0, 12)}`, outs };
    },

    async update(_id, olds, news) {
      const outs = await tier(news.integrationOrderId, "nothing was mailed", () =>
        sync(news, indexOf(olds), olds.refused ?? []),
      );
      return { outs };
    },

    async read(id, props) {
      const status = await tier(props.integrationOrderId, "nothing was read", () =>
        orderStatus(props.integrationOrderId),
      );
      if (status === undefined) {
        progress(
          subject(props.integrationOrderId),
          "no longer exists at the service: its recipients leave this stack (what was mailed stays mailed)",
        );
        return {};
      }
      return { id, props: { ...props, integrationOrderStatus: status } };
    },

    async delete(_id, props) {
      progress(
        subject(props.integrationOrderId),
        `${plural(props.mailedCount, "mailed recipient")} leave${props.mailedCount === 1 ? "s" : ""} this stack; ` +
          "mailed pieces cannot be recalled, and nothing is sent to the service",
      );
    },
  };
}
