/**
 * The provider hooks of `OrderRecipients` (resource.ts): check reads and judges the declared list,
 * diff plans the change, create and update bring the order to the list (sync.ts), read compares
 * it with what the order holds, and delete removes the recipients of a draft.
 */
import * as path from "node:path";
import { NotFoundError } from "../../api/errors";
import { reasonCounts, redactReason, sumReasons } from "../../api/reasons";
import { isEditable, type OrderSummary } from "../../api/schemas/order";
import { chosenRoot, OutsideRootError, resolveInside } from "../../file-root";
import { SourceFileError } from "../../files/text";
import { memoryBudget } from "../../memory-budget";
import { projectRoot } from "../../project";
import { oneLine, rowsText } from "../../text";
import { checkInputs, isUnknown, UNKNOWN } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { notEditable } from "../order-status";
import { noteRecipientChange, recipientChangeApplied } from "../plan-notes";
import { progress, retired } from "../progress";
import type { IdentityField } from "../recipients/declared";
import { decodeIndex, encodeIndex, idOf, isAccepted, RecipientIndex } from "../recipients/index-codec";
import { changesKnown, describePlan, planSync, type SyncPlan } from "../recipients/plan";
import {
  declaredRows,
  describeProblems,
  digestOfSet,
  fileSignature,
  type RecipientSource,
  type RecipientSourceOptions,
  type ScannedRecipients,
  scanRecipients,
} from "../recipients/source";
import type { DeclaredSet } from "../recipients/table";
import { UserError } from "../user-error";
import { OrderRecipientsInputs, type ProgramRead } from "./inputs";
import { namedChanges } from "./named";
import type { OrderRecipientsOutputs } from "./outputs";
import {
  type Declared,
  deleteIds,
  expectedCount,
  type Identity,
  reconcile,
  SAMPLE_SIZE,
  type SyncOutcome,
  subject,
  sync,
} from "./sync";

/**
 * The engine calls `check` and then `create` or `update` in the same provider process: the last
 * file read is kept, keyed by its path, size, modification time and the options, so a large list
 * is read once per deployment rather than twice.
 */
let lastFileRead: { signature: string; loaded: ScannedRecipients } | undefined;

type Drops = Pick<OrderRecipientsOutputs, "dropReasons" | "droppedSample">;

/**
 * The drop reasons and samples of these outputs together, redacted and summed by reason. A state
 * written before reasons were redacted holds the service's words, with the values it quoted:
 * every read, create and update stores them redacted.
 */
function redactedDrops(...sources: (Drops | undefined)[]): Drops {
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
function figuresOf(
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

const scannedFigures = (scanned: ScannedRecipients): ScannedFigures => ({
  digest: scanned.digest,
  declaredCount: scanned.set.size,
  duplicateRows: scanned.duplicateRows,
});

/** What create and update leave for the outputs once the order holds the list. */
interface Applied {
  order: OrderSummary;
  figures: ScannedFigures;
  outcome: SyncOutcome;
}

/** Where the declared recipients are, and how they are read. */
function sourceOf(inputs: OrderRecipientsInputs): {
  source: RecipientSource;
  options: RecipientSourceOptions;
} {
  const options = {
    identityField: inputs.identityField,
    ...(inputs.keyColumn ? { keyColumn: inputs.keyColumn } : {}),
    ...(inputs.ignoreColumns ? { ignoreColumns: inputs.ignoreColumns } : {}),
  };
  const source: RecipientSource =
    inputs.file === undefined
      ? { inline: inputs.recipients ?? [] }
      : {
          file: inputs.file,
          relativeTo: projectRoot(),
          root: chosenRoot(inputs.fileRoot, projectRoot()),
          ...(inputs.delimiter !== undefined ? { delimiter: inputs.delimiter } : {}),
        };
  return { source, options };
}

async function load(inputs: OrderRecipientsInputs): Promise<ScannedRecipients> {
  memoryBudget().listStarted();
  const { source, options } = sourceOf(inputs);
  if ("inline" in source) return scanRecipients(source, options);
  const signature = await signatureOf(inputs);
  if (signature !== undefined && lastFileRead?.signature === signature) return lastFileRead.loaded;
  const loaded = await scanRecipients(source, options);
  lastFileRead = signature !== undefined ? { signature, loaded } : undefined;
  return loaded;
}

/**
 * The signature of the declared recipients file as it is now (fileSignature); undefined inline. A
 * file outside the stack owner's root is refused here (OutsideRootError), before anything of it is
 * read or a program's figures of it are taken.
 */
async function signatureOf(inputs: OrderRecipientsInputs): Promise<string | undefined> {
  const { source, options } = sourceOf(inputs);
  if ("inline" in source) return undefined;
  const file = source.root
    ? await resolveInside(source.root, source.file, projectRoot())
    : path.resolve(projectRoot(), source.file);
  return fileSignature(file, options, source.delimiter);
}

/** What is wrong with the declared file itself (outside its root, unreadable, broken): a refusal, one line. */
function refusalOf(error: unknown): unknown {
  if (error instanceof OutsideRootError) return new UserError(`file: ${error.message}`);
  if (error instanceof SourceFileError) return new UserError(error.message);
  return error;
}

/**
 * The list's figures that a CampaignFolder's program found when it read the file (`programRead`),
 * if the file is still as it read it: a program that found any problem in the list stopped the
 * run before declaring it, so `check` need not read a large list a second time. Figures that are wrong (a program that says
 * so) cannot send anything wrong: create and update read the file, and refuse a list whose digest
 * is not the plan's.
 */
async function programFigures(inputs: OrderRecipientsInputs): Promise<ProgramRead | undefined> {
  const read = inputs.programRead;
  return read !== undefined && read.signature === (await signatureOf(inputs)) ? read : undefined;
}

/** The refusal of a list edited since the plan was made (its digest differs, or its rows do). */
const listChangedMidway = (inputs: OrderRecipientsInputs) =>
  new UserError(
    `${inputs.file ?? "the recipient list"} changed while this deployment ran (its digest differs from the ` +
      "one the plan was made with); nothing was changed. Run the command again.",
  );

/** The scanned list, with its rows to be read again where they are compared or sent. */
function declaredOf(inputs: OrderRecipientsInputs, scanned: ScannedRecipients): Declared {
  const { source, options } = sourceOf(inputs);
  return {
    scanned,
    rows: (only) => declaredRows(source, options, scanned.set, () => listChangedMidway(inputs), only),
  };
}

const identityOfInputs = (inputs: OrderRecipientsInputs): Identity => ({
  field: inputs.identityField,
  keyed: inputs.keyColumn !== undefined,
});

/** The refusal of a recipient change on an order past draft. */
const recipientsFrozen = (order: OrderSummary, change: string) =>
  notEditable(order, {
    change,
    changes: "recipients",
    fix:
      "Put the recipient list back as it was. To mail the changed list, declare it as a new campaign (a new " +
      "Order), and keep this campaign as it was or remove it: an order past draft stays at the service " +
      "(`retain: true` keeps any order there).",
  });

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

/**
 * A check failure of the declared list. A file's failure is its `file` property (the engine shows
 * its value, the path). Inline recipients have no property: the engine would print the whole list
 * beside the message, which names each row and field already.
 */
function listFailure(inputs: OrderRecipientsInputs, reason: string) {
  return { property: inputs.file !== undefined ? "file" : "", reason };
}

export function orderRecipientsImplementation(
  ctx: ProviderContext,
): ResourceImplementation<OrderRecipientsInputs, OrderRecipientsOutputs> {
  const editableOrder = async (orderId: number, change: string): Promise<OrderSummary> => {
    const order = await ctx.client().getOrder(orderId);
    if (!order)
      throw new UserError(`Order ${orderId} does not exist (or was deleted); ${change} is not possible.`);
    if (!isEditable(order.orderStatus)) throw recipientsFrozen(order, `${change} is not possible`);
    return order;
  };

  /** The list that create or update applies: the last read it takes from check is not kept after. */
  const loadChecked = async (inputs: OrderRecipientsInputs): Promise<Declared> => {
    const loaded = await load(inputs).catch((error: unknown) => {
      throw refusalOf(error);
    });
    lastFileRead = undefined;
    if (loaded.problemCount > 0) {
      throw new UserError(
        [
          "the recipient list has problems; nothing was changed:",
          ...describeProblems(inputs.file ?? "recipients", loaded),
        ].join("\n  "),
        true,
      );
    }
    if (inputs.digest !== undefined && loaded.digest !== inputs.digest) throw listChangedMidway(inputs);
    return declaredOf(inputs, loaded);
  };

  const outputsOf = (
    inputs: OrderRecipientsInputs,
    { figures, outcome, order }: Applied,
    previous?: OrderRecipientsOutputs,
  ): OrderRecipientsOutputs => {
    let droppedCount = 0;
    for (const id of outcome.index.ids()) if (!isAccepted(id)) droppedCount += 1;
    // Keep earlier drop reasons for recipients still dropped and still declared.
    const drops = redactedDrops(outcome, previous);
    memoryBudget().settle();
    return {
      ...inputs,
      ...figures,
      index: encodeIndex(outcome.index),
      acceptedCount: outcome.index.size - droppedCount,
      droppedCount,
      unmanagedCount: outcome.unmanaged,
      orderRecipientCount: expectedCount(outcome.index, outcome.unmanaged),
      dropReasons: droppedCount === 0 ? {} : drops.dropReasons,
      droppedSample: drops.droppedSample,
      imageIssueSample: outcome.imageIssueSample,
      orderStatus: order.orderStatus,
    };
  };

  /**
   * Brings the order to the declared list: create's work up to its outputs. Returns what the
   * outputs need and nothing else, so that the list's tables (its set, what was on the order, a
   * million entries each) are garbage when the index is encoded, which then reuses their memory.
   */
  const applyCreate = async (inputs: OrderRecipientsInputs): Promise<Applied> => {
    const client = ctx.client();
    const declared = await loadChecked(inputs);
    const identity = identityOfInputs(inputs);
    const order = await editableOrder(inputs.orderId, "adding recipients");
    await refusePrintedIdentityField(order, inputs.identityField);
    // An interrupted earlier run may have appended some already: start from what is there.
    const { current, unmanaged } =
      order.recipientCount > 0
        ? await reconcile(client, order.orderId, identity, new RecipientIndex(), declared)
        : { current: new RecipientIndex(), unmanaged: 0 };
    const plan = planSync(declared.scanned.set, current);
    const outcome = await sync(client, order, declared, plan, () => current, unmanaged, identity);
    return { order, figures: scannedFigures(declared.scanned), outcome };
  };

  /** update's work up to its outputs (as applyCreate), or the outputs of a list that cannot change. */
  const applyUpdate = async (
    olds: OrderRecipientsOutputs,
    news: OrderRecipientsInputs,
  ): Promise<Applied | { outs: OrderRecipientsOutputs }> => {
    const client = ctx.client();
    const declared = await loadChecked(news);
    const identity = identityOfInputs(news);
    const recorded = () => decodeIndex(olds.index, identity.keyed);
    let { plan, recordedCount } = planOfRecorded(declared.scanned.set, recorded, olds.unmanagedCount);
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
    const order = await editableOrder(news.orderId, "changing recipients");
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
  };

  const guardDrops = (outs: OrderRecipientsOutputs) => {
    if (outs.maxDroppedPercent === undefined || outs.declaredCount === 0) return;
    const percent = (outs.droppedCount / outs.declaredCount) * 100;
    if (percent > outs.maxDroppedPercent) {
      const reasons = Object.entries(outs.dropReasons)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(", ");
      const rows = rowsText(
        outs.droppedSample.map((d) => d.row).sort((a, b) => a - b),
        outs.droppedCount,
      );
      throw new UserError(
        `${outs.droppedCount} of ${outs.declaredCount} recipients (${percent.toFixed(1)}%) were dropped by the ` +
          `service, more than maxDroppedPercent ${outs.maxDroppedPercent} (${reasons}; ${rows}). ` +
          "The accepted recipients stay on the order and nothing depending on this list (a Checkout) runs. " +
          "Fix or remove those rows, or raise maxDroppedPercent, then run `pulumi up` again.",
      );
    }
  };

  /**
   * The identity key must never be printed: refuse an identity field that the order's template
   * lists among the merge fields it prints.
   */
  const refusePrintedIdentityField = async (order: OrderSummary, identityField: IdentityField) => {
    if (order.templateId === null) return;
    const template = (await ctx.client().listTemplates()).find((t) => t.id === order.templateId);
    if (template?.requiredMergeFields?.includes(identityField)) {
      throw new UserError(
        `Template ${template.id} ("${oneLine(template.name)}") prints ${identityField}, which would carry each recipient's ` +
          `identity key onto the mail piece. Set identityField to a custom field the template does not use ` +
          `(it uses ${oneLine(template.requiredMergeFields.join(", "))}).`,
      );
    }
  };

  return {
    async check(_olds, news) {
      // A new order's id is not known during the first preview; the list is checked all the same.
      const orderUnknown = isUnknown(news.orderId);
      const checked = checkInputs(OrderRecipientsInputs, orderUnknown ? { ...news, orderId: 1 } : news);
      if (checked.failures) return checked;
      const { inputs } = checked;
      // The engine's marker, as it came: the order is made when applied (see CheckResult).
      if (orderUnknown) inputs.orderId = UNKNOWN as unknown as number;
      // What the program read is for this check only, never recorded.
      const { programRead: _, ...declaration } = inputs;
      let loaded: ScannedRecipients;
      try {
        // The file's place is judged first, whatever the program read of it.
        const figures = await programFigures(inputs);
        if (figures !== undefined) {
          const { digest, declaredCount, duplicateRows } = figures;
          return { inputs: { ...declaration, digest, declaredCount, duplicateRows } };
        }
        loaded = await load(inputs);
      } catch (error) {
        return { inputs: news, failures: [listFailure(inputs, (error as Error).message)] };
      }
      if (loaded.problemCount > 0) {
        const reason = describeProblems(inputs.file ?? "recipients", loaded).join("; ");
        return { inputs: news, failures: [listFailure(inputs, reason)] };
      }
      return {
        inputs: {
          ...declaration,
          digest: loaded.digest,
          declaredCount: loaded.set.size,
          duplicateRows: loaded.duplicateRows,
        },
      };
    },

    async diff(_id, olds, news) {
      if (isUnknown(news.orderId) || olds.orderId !== news.orderId) {
        return { changes: true, replaces: ["orderId"] };
      }
      for (const key of ["identityField", "keyColumn"] as const) {
        if (olds[key] !== news[key]) return { changes: true, replaces: [key] };
      }
      let listChanged = olds.digest !== news.digest;
      if (listChanged) {
        const identity = identityOfInputs(news);
        const current = decodeIndex(olds.index, identity.keyed);
        const declared = await load(news).catch((error: unknown) => {
          throw refusalOf(error);
        });
        const plan = planSync(declared.set, current);
        const order = await ctx.client().getOrder(olds.orderId);
        if (!order || isEditable(order.orderStatus)) {
          const compared = plan.unknown > 0 ? " (compared with the order's listing when applied)" : "";
          progress(subject(olds.orderId), `planned: ${describePlan(plan)}${compared}`);
          const { source, options } = sourceOf(news);
          for (const line of await namedChanges(plan, current, source, options))
            progress(subject(olds.orderId), line);
          // A Checkout of this order planned in the same run prices the list the order holds now.
          if (order) noteRecipientChange(order.orderId, news.declaredCount ?? plan.appendCount);
        } else if (!changesKnown(plan)) {
          // Only recipients recorded without their content differ: the order can no longer change,
          // and there is nothing to do.
          listChanged = false;
        } else {
          // Named as a plan names them (keys or rows, never details), so the user sees what to put back.
          const { source, options } = sourceOf(news);
          const named = await namedChanges(plan, current, source, options, true);
          throw recipientsFrozen(
            order,
            `its recipients cannot change (declared ${olds.declaredCount}, now ${news.declaredCount ?? "a different list"}` +
              `${named.map((line) => `; ${line}`).join("")})`,
          );
        }
      }
      const settingsChanged =
        olds.maxDroppedPercent !== news.maxDroppedPercent ||
        olds.file !== news.file ||
        olds.delimiter !== news.delimiter ||
        JSON.stringify(olds.recipients) !== JSON.stringify(news.recipients);
      return { changes: listChanged || settingsChanged };
    },

    async create(inputs) {
      const applied = await applyCreate(inputs);
      const outs = outputsOf(inputs, applied);
      progress(
        subject(applied.order.orderId),
        `${outs.acceptedCount} accepted, ${outs.droppedCount} dropped, ${outs.duplicateRows} duplicate rows ignored`,
      );
      recipientChangeApplied(applied.order.orderId);
      guardDrops(outs);
      return { id: String(applied.order.orderId), outs };
    },

    async update(_id, olds, news) {
      if (olds.digest === news.digest) {
        const outs = { ...olds, ...news, ...figuresOf(olds, news), ...redactedDrops(olds) };
        guardDrops(outs);
        return { outs };
      }
      const applied = await applyUpdate(olds, news);
      if ("outs" in applied) {
        guardDrops(applied.outs);
        return applied;
      }
      const { order, outcome } = applied;
      const outs = outputsOf(news, applied, olds);
      progress(
        subject(order.orderId),
        `${describePlan(outcome.plan)}: ${outcome.deleted} deleted, ${outcome.appended} appended; ` +
          `${outs.acceptedCount} accepted, ${outs.droppedCount} dropped`,
      );
      recipientChangeApplied(order.orderId);
      guardDrops(outs);
      return { outs };
    },

    async read(id, props) {
      const client = ctx.client();
      const order = await client.getOrder(props.orderId ?? Number(id));
      if (!order) return {};
      // Refresh reads every recipient: a removal and an addition elsewhere leave the count as it was.
      const identity = identityOfInputs(props);
      const { current, unmanaged } = await reconcile(
        client,
        order.orderId,
        identity,
        decodeIndex(props.index, identity.keyed),
      );
      let accepted = 0;
      for (const id of current.ids()) if (isAccepted(id)) accepted += 1;
      memoryBudget().settle();
      // Keys recorded but gone from the order were removed elsewhere, and recipients changed
      // elsewhere have an unknown content: the digest of what is really there makes the next `up`
      // put them back.
      const outs: OrderRecipientsOutputs = {
        ...props,
        ...redactedDrops(props),
        orderStatus: order.orderStatus,
        index: encodeIndex(current),
        digest: digestOfSet(current, props.identityField),
        acceptedCount: accepted,
        droppedCount: current.size - accepted,
        unmanagedCount: unmanaged,
        // Kept current once recorded; a list applied by an earlier release gets it when it changes,
        // so that a refresh of it changes nothing.
        ...(props.orderRecipientCount !== undefined
          ? { orderRecipientCount: expectedCount(current, unmanaged) }
          : {}),
      };
      // No inputs: the engine keeps those it stored (engine-inputs.ts), and a list changed elsewhere
      // shows as a change of the outputs' digest.
      return { id, props: outs };
    },

    async delete(_id, props) {
      const client = ctx.client();
      const order = await client.getOrder(props.orderId);
      if (!order) return; // the order is gone, and its recipients with it
      if (!isEditable(order.orderStatus)) {
        retired(props.orderId, order.orderStatus, "its recipients stay at the service and leave this stack");
        return;
      }
      const ids: number[] = [];
      for (const id of decodeIndex(props.index, props.keyColumn !== undefined).ids())
        if (idOf(id) > 0) ids.push(idOf(id));
      try {
        await deleteIds(client, props.orderId, ids);
      } catch (error) {
        if (error instanceof NotFoundError) return;
        throw error;
      }
      progress(subject(props.orderId), `removed ${ids.length} recipients`);
    },
  };
}
