/**
 * The work of `create` and `update`: the order brought to the declared list (sync.ts), then the
 * outputs that record it (the index, the counts, the drops redacted and summed).
 */
import { reasonCounts, redactReason, sumReasons } from "../../api/reasons";
import { isEditable, type OrderSummary } from "../../api/schemas/order";
import { SAMPLE_SIZE } from "../../limits";
import { memoryBudget } from "../../memory-budget";
import type { DeclaredSet, RecipientSurvey } from "../../recipients/index";
import {
  changesKnown,
  decodeIndex,
  encodeIndex,
  isAccepted,
  planSync,
  RecipientIndex,
  type SyncPlan,
} from "../../recipients/index";
import type { ProviderContext } from "../context";
import { progress } from "../progress";
import { loadChecked } from "./declared-list";
import { editableOrder, refusePrintedIdentityField } from "./guards";
import type { OrderRecipientsInputs } from "./inputs";
import type { OrderRecipientsOutputs } from "./outputs";
import { expectedCount, type Identity, reconcile, type SyncOutcome, subject, sync } from "./sync";

type Drops = Pick<OrderRecipientsOutputs, "dropReasons" | "droppedSample">;

/**
 * The drop reasons and samples of these outputs together, redacted and summed by reason. A state
 * written before reasons were redacted holds the service's words, with the values it quoted:
 * every read, create and update stores them redacted.
 */
export function redactedDrops(...sources: (Drops | undefined)[]): Drops {
  const reasons = sumReasons(sources.flatMap((s) => reasonCounts(s?.dropReasons)));
  return {
    dropReasons: Object.fromEntries(reasons.map((r) => [r.reason, r.count])),
    droppedSample: sources
      .flatMap((s) => s?.droppedSample ?? [])
      .slice(0, SAMPLE_SIZE)
      .map(({ row, reason }) => ({ row, reason: redactReason(reason) })),
  };
}

/**
 * The list's figures of a state brought to `news` without sending anything: those `check` computed,
 * or the recorded ones where it computed none (a state's figures are never left out).
 */
export function figuresOf(
  olds: OrderRecipientsOutputs,
  news: OrderRecipientsInputs,
): Pick<OrderRecipientsOutputs, "digest" | "declaredCount" | "duplicateRows"> {
  return {
    digest: news.digest ?? olds.digest,
    declaredCount: news.declaredCount ?? olds.declaredCount,
    duplicateRows: news.duplicateRows ?? olds.duplicateRows,
  };
}

/** The figures of a scanned list that its outputs record. */
type ScannedFigures = Pick<OrderRecipientsOutputs, "digest" | "declaredCount" | "duplicateRows">;

const scannedFigures = (scanned: RecipientSurvey): ScannedFigures => ({
  digest: scanned.digest,
  declaredCount: scanned.set.size,
  duplicateRows: scanned.duplicateRows,
});

/** What create and update leave for the outputs once the order holds the list. */
export interface Applied {
  order: OrderSummary;
  figures: ScannedFigures;
  outcome: SyncOutcome;
}

export const identityOfInputs = (inputs: OrderRecipientsInputs): Identity => ({
  field: inputs.identityField,
  keyed: inputs.keyColumn !== undefined,
});

/**
 * The index as the outputs record it. A hook's answer is encoded last: if the hook collected on
 * the way (a long list), it collects once more first, so the index is made from what is held.
 */
export function encodedIndex(index: RecipientIndex): string {
  memoryBudget().settle();
  return encodeIndex(index);
}

/**
 * An update's plan from the index in the state (`recorded` decodes it), and how many recipients
 * that index says the order holds. The index is decoded here and nowhere held, so that it is
 * garbage once this returns: the plan keeps what the sync needs of it, and the rare path that
 * needs it all again decodes it again.
 */
function planOfRecorded(
  set: DeclaredSet,
  recorded: () => RecipientIndex,
  unmanaged: number,
): { plan: SyncPlan; recordedCount: number } {
  const current = recorded();
  return { plan: planSync(set, current), recordedCount: expectedCount(current, unmanaged) };
}

/** The outputs of a list applied: `previous`'s drop reasons are kept for recipients still dropped. */
export function outputsOf(
  inputs: OrderRecipientsInputs,
  { figures, outcome, order }: Applied,
  previous?: OrderRecipientsOutputs,
): OrderRecipientsOutputs {
  let droppedCount = 0;
  for (const id of outcome.index.ids()) if (!isAccepted(id)) droppedCount += 1;
  // Keep earlier drop reasons for recipients still dropped and still declared.
  const drops = redactedDrops(outcome, previous);
  return {
    ...inputs,
    ...figures,
    index: encodedIndex(outcome.index),
    acceptedCount: outcome.index.size - droppedCount,
    droppedCount,
    unmanagedCount: outcome.unmanaged,
    orderRecipientCount: expectedCount(outcome.index, outcome.unmanaged),
    dropReasons: droppedCount === 0 ? {} : drops.dropReasons,
    droppedSample: drops.droppedSample,
    imageIssueSample: outcome.imageIssueSample,
    orderStatus: order.orderStatus,
  };
}

/**
 * Brings the order to the declared list: create's work up to its outputs. Returns what the
 * outputs need and nothing else, so that the list's tables (its set, what was on the order, a
 * million entries each) are garbage when the index is encoded, which then reuses their memory.
 */
export async function applyCreate(ctx: ProviderContext, inputs: OrderRecipientsInputs): Promise<Applied> {
  const client = ctx.client();
  const declared = await loadChecked(inputs);
  const identity = identityOfInputs(inputs);
  const order = await editableOrder(ctx, inputs.orderId, "adding recipients");
  await refusePrintedIdentityField(ctx, order, inputs.identityField);
  // An interrupted earlier run may have appended some already: start from what is there.
  const { current, unmanaged } =
    order.recipientCount > 0
      ? await reconcile(client, order.orderId, identity, new RecipientIndex(), declared)
      : { current: new RecipientIndex(), unmanaged: 0 };
  const plan = planSync(declared.scanned.set, current);
  const outcome = await sync(client, order, declared, plan, () => current, unmanaged, identity);
  return { order, figures: scannedFigures(declared.scanned), outcome };
}

/** update's work up to its outputs (as applyCreate), or the outputs of a list that cannot change. */
export async function applyUpdate(
  ctx: ProviderContext,
  olds: OrderRecipientsOutputs,
  news: OrderRecipientsInputs,
): Promise<Applied | { outs: OrderRecipientsOutputs }> {
  const client = ctx.client();
  const declared = await loadChecked(news);
  const identity = identityOfInputs(news);
  const recorded = () => decodeIndex(olds.index, identity.keyed);
  let { plan, recordedCount } = planOfRecorded(declared.scanned.set, recorded, olds.unmanagedCount);
  // The decoded index is garbage now, tens of MB of it at a million recipients.
  memoryBudget().garbageLeft();
  if (!changesKnown(plan)) {
    // As in diff: on an order past Draft only a settings change gets here; nothing to send.
    const live = await client.getOrder(news.orderId);
    if (live && !isEditable(live.orderStatus)) {
      return {
        outs: { ...olds, ...news, ...figuresOf(olds, news), digest: olds.digest, ...redactedDrops(olds) },
      };
    }
  }
  const order = await editableOrder(ctx, news.orderId, "changing recipients");
  let unmanaged = olds.unmanagedCount;
  let known = recorded;
  const countDiffers = order.recipientCount !== recordedCount;
  if (countDiffers || plan.unknown > 0) {
    // The order holds more or fewer recipients than recorded (an interrupted run, or changes
    // made elsewhere), or some were recorded without their content: learn what is really
    // there before changing anything.
    progress(
      subject(order.orderId),
      countDiffers
        ? "the order's recipients differ from the stack's record; reading them all"
        : `${plan.unknown} recipients were recorded without their content; reading the order's recipients to compare them with the list`,
    );
    const reconciled = await reconcile(client, order.orderId, identity, recorded(), declared);
    unmanaged = reconciled.unmanaged;
    plan = planSync(declared.scanned.set, reconciled.current);
    known = () => reconciled.current;
  }
  const outcome = await sync(client, order, declared, plan, known, unmanaged, identity);
  return { order, figures: scannedFigures(declared.scanned), outcome };
}
