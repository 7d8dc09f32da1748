/**
 * `OrderRecipients`: the recipient set of one order, declared inline or in a file (CSV, JSON,
 * JSON Lines). The state keeps a digest and a compact index (key → content digest, recipient id),
 * never the rows of a file, and an update sends only what changed. See docs/resources.md for the
 * identity design.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { NotFoundError } from "../api/errors";
import type { OrderSummary } from "../api/schemas/order";
import { MAX_RECIPIENTS_PER_REQUEST } from "../api/schemas/recipient";
import { projectRoot } from "../project";
import { checkInputs, isUnknown } from "./check";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { EDITABLE_STATUSES, isEditable } from "./order-status";
import { progress, retired } from "./progress";
import { IDENTITY_FIELDS, type IdentityField } from "./recipients/declared";
import {
  decodeIndex,
  encodeIndex,
  idOf,
  isAccepted,
  markedUndeliverable,
  type RecipientIndex,
  UNKNOWN_CONTENT,
} from "./recipients/index-codec";
import { changesKnown, describePlan, planSync, type SyncPlan } from "./recipients/plan";
import { describeProblems, digestOf, type LoadedRecipients, loadRecipients } from "./recipients/source";
import { identityOf, listedHash, matchesListed, toWire } from "./recipients/wire";
import { thinProvider } from "./thin-provider";
import { UserError } from "./user-error";

export interface OrderRecipientsArgs {
  orderId: pulumi.Input<number>;
  /** Recipients written in the program (small lists: they are stored in the state as written). */
  recipients?: pulumi.Input<pulumi.Input<Record<string, pulumi.Input<string>>>[]>;
  /**
   * A CSV (header row), JSON array or JSON Lines file, relative to the Pulumi project's folder
   * (where Pulumi.yaml is), also when the program's entry point is in a subfolder.
   */
  file?: pulumi.Input<string>;
  /** A column that identifies each recipient (a customer id, say); without it, the content does. */
  keyColumn?: pulumi.Input<string>;
  /** The custom field that carries each recipient's key (default `custom6`); it must be free. */
  identityField?: pulumi.Input<IdentityField>;
  /** Fail the deployment when more than this share of the recipients is dropped by the service. */
  maxDroppedPercent?: pulumi.Input<number>;
}

const SourceInputs = z
  .strictObject({
    orderId: z.int("orderId must be a whole number: the id of an order").positive(),
    recipients: z.array(z.record(z.string(), z.unknown())).optional(),
    file: z.string().trim().min(1, "file must name a .csv, .json, .jsonl or .ndjson file").optional(),
    keyColumn: z.string().trim().min(1).optional(),
    identityField: z
      .enum(IDENTITY_FIELDS, "identityField must be one of custom1..custom6")
      .default("custom6"),
    maxDroppedPercent: z
      .number("maxDroppedPercent must be a number")
      .min(0, "maxDroppedPercent is a percentage from 0 to 100")
      .max(100, "maxDroppedPercent is a percentage from 0 to 100")
      .optional(),
    // Computed by `check` from the declared recipients; never written by the user.
    digest: z.string().optional(),
    declaredCount: z.int().optional(),
    duplicateRows: z.int().optional(),
  })
  .refine((v) => (v.recipients === undefined) !== (v.file === undefined), {
    message: "declare the recipients either inline (recipients) or in a file (file), exactly one of the two",
    path: ["file"],
  });
export type OrderRecipientsInputs = z.infer<typeof SourceInputs>;

export interface DropSample {
  row: number;
  reason: string;
}

export interface OrderRecipientsOutputs extends OrderRecipientsInputs {
  digest: string;
  declaredCount: number;
  /** key → content digest, recipient id (0: dropped by the service), compact; see recipients/index-codec.ts. */
  index: string;
  acceptedCount: number;
  droppedCount: number;
  /** Recipients of the order this resource did not put there (added elsewhere); left alone. */
  unmanagedCount: number;
  /** Dropped recipients by reason, and a few examples with their rows. */
  dropReasons: Record<string, number>;
  droppedSample: DropSample[];
  imageIssueSample: { row: number; field: string; code: string; message: string }[];
  orderStatus: string;
}

export class OrderRecipients extends pulumi.dynamic.Resource {
  declare readonly orderId: pulumi.Output<number>;
  declare readonly digest: pulumi.Output<string>;
  declare readonly declaredCount: pulumi.Output<number>;
  declare readonly duplicateRows: pulumi.Output<number>;
  declare readonly acceptedCount: pulumi.Output<number>;
  declare readonly droppedCount: pulumi.Output<number>;
  declare readonly unmanagedCount: pulumi.Output<number>;
  declare readonly dropReasons: pulumi.Output<Record<string, number>>;
  declare readonly droppedSample: pulumi.Output<DropSample[]>;
  declare readonly imageIssueSample: pulumi.Output<
    { row: number; field: string; code: string; message: string }[]
  >;
  declare readonly orderStatus: pulumi.Output<string>;

  constructor(name: string, args: OrderRecipientsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("OrderRecipients"),
      name,
      {
        ...args,
        digest: undefined,
        declaredCount: undefined,
        duplicateRows: undefined,
        index: undefined,
        acceptedCount: undefined,
        droppedCount: undefined,
        unmanagedCount: undefined,
        dropReasons: undefined,
        droppedSample: undefined,
        imageIssueSample: undefined,
        orderStatus: undefined,
      },
      opts,
      "directmail",
      "OrderRecipients",
    );
  }
}

const SAMPLE_SIZE = 10;
const PAGE_SIZE = 1000;
const subject = (orderId: number) => `Recipients of order ${orderId}`;

/**
 * The engine calls `check` and then `create` or `update` in the same provider process: the last
 * file read is kept, keyed by its path, size, modification time and the options, so a large list
 * is read once per deployment rather than twice.
 */
let lastFileRead: { signature: string; loaded: LoadedRecipients } | undefined;

async function load(inputs: OrderRecipientsInputs): Promise<LoadedRecipients> {
  const options = {
    identityField: inputs.identityField,
    ...(inputs.keyColumn ? { keyColumn: inputs.keyColumn } : {}),
  };
  if (inputs.file === undefined) return loadRecipients({ inline: inputs.recipients ?? [] }, options);
  const source = { file: inputs.file, relativeTo: projectRoot() };
  const file = path.resolve(source.relativeTo, source.file);
  const stat = await fs.stat(file).catch(() => undefined);
  const signature = JSON.stringify([file, stat?.size, stat?.mtimeMs, options]);
  if (stat && lastFileRead?.signature === signature) return lastFileRead.loaded;
  const loaded = await loadRecipients(source, options);
  lastFileRead = stat ? { signature, loaded } : undefined;
  return loaded;
}

/** How recipients carry their identity: the field, and whether a key column names them. */
interface Identity {
  field: IdentityField;
  keyed: boolean;
}
const identityOfInputs = (inputs: OrderRecipientsInputs): Identity => ({
  field: inputs.identityField,
  keyed: inputs.keyColumn !== undefined,
});

interface SyncOutcome {
  index: RecipientIndex;
  unmanaged: number;
  plan: SyncPlan;
  appended: number;
  deleted: number;
  dropReasons: Record<string, number>;
  droppedSample: DropSample[];
  imageIssueSample: OrderRecipientsOutputs["imageIssueSample"];
}

export function orderRecipientsImplementation(ctx: ProviderContext): ResourceImplementation {
  const editableOrder = async (orderId: number, change: string): Promise<OrderSummary> => {
    const order = await ctx.client().getOrder(orderId);
    if (!order)
      throw new UserError(`Order ${orderId} does not exist (or was deleted); ${change} is not possible.`);
    if (!isEditable(order.orderStatus)) {
      throw new UserError(
        `Order ${orderId} is "${order.orderStatus}": ${change} is not possible, because the service changes ` +
          `recipients only in ${EDITABLE_STATUSES}. Put the recipient list back as it was, or declare a new ` +
          "Order for a new mailing.",
      );
    }
    return order;
  };

  const loadChecked = async (inputs: OrderRecipientsInputs): Promise<LoadedRecipients> => {
    const loaded = await load(inputs);
    if (loaded.problemCount > 0) {
      throw new UserError(
        [
          "the recipient list has problems; nothing was changed:",
          ...describeProblems(inputs.file ?? "recipients", loaded),
        ].join("\n  "),
      );
    }
    if (inputs.digest !== undefined && loaded.digest !== inputs.digest) {
      throw new UserError(
        `${inputs.file ?? "the recipient list"} changed while this deployment ran (its digest differs from the ` +
          "one the plan was made with); nothing was changed. Run the command again.",
      );
    }
    return loaded;
  };

  /** Deletes recipients by id in batches; says whether some of them were already gone. */
  const deleteIds = async (orderId: number, ids: number[]): Promise<boolean> => {
    let someGone = false;
    for (let i = 0; i < ids.length; i += MAX_RECIPIENTS_PER_REQUEST) {
      const result = await ctx
        .client()
        .deleteRecipients(orderId, ids.slice(i, i + MAX_RECIPIENTS_PER_REQUEST));
      if (result.notFoundRecipientIds.length > 0) someGone = true;
    }
    return someGone;
  };

  /**
   * Brings the order's recipients to the declared set (see planSync): deletes the managed
   * recipients no longer declared and the old recipient of each changed key, appends the declared
   * ones not there as declared, and records each appended key's id. `current` is what is known to
   * be on the order; callers reconcile from a listing when the order's recipient count says it is
   * not exact, and so does this when a delete finds recipients already gone.
   */
  const sync = async (
    order: OrderSummary,
    declared: LoadedRecipients,
    known: RecipientIndex,
    knownUnmanaged: number,
    identity: Identity,
  ): Promise<SyncOutcome> => {
    const client = ctx.client();
    const orderId = order.orderId;
    const asked = planSync(declared.byKey, known);
    let plan = asked;
    let unmanaged = knownUnmanaged;
    let deleted = plan.removeIds.length;
    if (await deleteIds(orderId, plan.removeIds)) {
      // An interrupted run got further than its record (say, a replacement appended but not
      // recorded): read what is really there, so that nothing is appended twice.
      progress(
        subject(orderId),
        "some recorded recipients were already gone; reading the order's recipients",
      );
      let current: RecipientIndex;
      ({ current, unmanaged } = await reconcile(orderId, identity, known, declared));
      plan = planSync(declared.byKey, current);
      await deleteIds(orderId, plan.removeIds);
      deleted += plan.removeIds.length;
    }
    if (deleted > 0) progress(subject(orderId), `deleted ${deleted} recipients (removed or changed)`);

    const index: RecipientIndex = new Map(plan.keep);
    const toAppend = plan.append;
    const dropReasons: Record<string, number> = {};
    const droppedSample: DropSample[] = [];
    const imageIssueSample: SyncOutcome["imageIssueSample"] = [];
    const reasonByKey = new Map<string, string>();
    const countBefore = [...plan.keep.values()].filter((e) => idOf(e.id) > 0).length + unmanaged;
    let accepted = 0;
    for (let i = 0; i < toAppend.length; i += MAX_RECIPIENTS_PER_REQUEST) {
      const batch = toAppend.slice(i, i + MAX_RECIPIENTS_PER_REQUEST);
      const result = await client.appendRecipients(
        orderId,
        batch.map((r) => toWire(r, identity.field)),
      );
      accepted += result.acceptedRecipients;
      for (const dropped of result.undeliverable.undeliverableRecipients) {
        const found = identityOf(dropped, identity.field, identity.keyed);
        if (found) reasonByKey.set(found.key, dropped.reason);
      }
      for (const withIssues of result.variableImages.recipientsWithIssues) {
        const row = batch[withIssues.recipientIndex]?.row ?? 0;
        for (const issue of withIssues.issues) {
          if (imageIssueSample.length < SAMPLE_SIZE) imageIssueSample.push({ row, ...issue });
        }
      }
      progress(
        subject(orderId),
        `appended ${Math.min(i + batch.length, toAppend.length)} of ${toAppend.length} ` +
          `(this batch: ${result.acceptedRecipients} accepted, ${result.droppedRecipients} dropped)`,
      );
    }

    if (toAppend.length > 0) {
      // New recipients come last in the listing: read from the page where they start, and fall
      // back to the whole listing if some accepted ones are not found there.
      let listed = await listAppended(orderId, identity, declared, Math.floor(countBefore / PAGE_SIZE) + 1);
      const found = toAppend.filter((r) => listed.has(r.key)).length;
      if (found < accepted) listed = await listAppended(orderId, identity, declared, 1);
      for (const r of toAppend) {
        const seen = listed.get(r.key);
        const reason = reasonByKey.get(r.key) ?? (seen === undefined ? "dropped" : undefined);
        const entry = { id: seen?.id ?? 0, content: r.content, listed: seen?.listed ?? 0 };
        if (reason === undefined) {
          index.set(r.key, entry);
          continue;
        }
        // Dropped (or kept but marked undeliverable): remembered, so that it is not sent again
        // until its details change.
        index.set(r.key, { ...entry, id: seen === undefined ? 0 : markedUndeliverable(seen.id) });
        dropReasons[reason] = (dropReasons[reason] ?? 0) + 1;
        if (droppedSample.length < SAMPLE_SIZE) droppedSample.push({ row: r.row, reason });
      }
    }
    return {
      index,
      unmanaged,
      plan: asked,
      appended: toAppend.length,
      deleted,
      dropReasons,
      droppedSample,
      imageIssueSample,
    };
  };

  const outputsOf = (
    inputs: OrderRecipientsInputs,
    declared: LoadedRecipients,
    outcome: SyncOutcome,
    orderStatus: string,
    previous?: OrderRecipientsOutputs,
  ): OrderRecipientsOutputs => {
    const values = [...outcome.index.values()];
    const droppedCount = values.filter((e) => !isAccepted(e.id)).length;
    // Keep earlier drop reasons for recipients still dropped and still declared.
    const dropReasons = droppedCount === 0 ? {} : { ...(previous?.dropReasons ?? {}) };
    for (const [reason, n] of Object.entries(outcome.dropReasons))
      dropReasons[reason] = (dropReasons[reason] ?? 0) + n;
    return {
      ...inputs,
      digest: declared.digest,
      declaredCount: declared.byKey.size,
      duplicateRows: declared.duplicateRows,
      index: encodeIndex(outcome.index),
      acceptedCount: values.length - droppedCount,
      droppedCount,
      unmanagedCount: outcome.unmanaged,
      dropReasons,
      droppedSample: [...outcome.droppedSample, ...(previous?.droppedSample ?? [])].slice(0, SAMPLE_SIZE),
      imageIssueSample: outcome.imageIssueSample,
      orderStatus,
    };
  };

  const guardDrops = (outs: OrderRecipientsOutputs) => {
    if (outs.maxDroppedPercent === undefined || outs.declaredCount === 0) return;
    const percent = (outs.droppedCount / outs.declaredCount) * 100;
    if (percent > outs.maxDroppedPercent) {
      const reasons = Object.entries(outs.dropReasons)
        .map(([reason, n]) => `${n} ${reason}`)
        .join(", ");
      const rows = outs.droppedSample.map((d) => d.row).join(", ");
      throw new UserError(
        `${outs.droppedCount} of ${outs.declaredCount} recipients (${percent.toFixed(1)}%) were dropped by the ` +
          `service, more than maxDroppedPercent ${outs.maxDroppedPercent} (${reasons}; rows ${rows}, ...). ` +
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
        `Template ${template.id} ("${template.name}") prints ${identityField}, which would carry each recipient's ` +
          `identity key onto the mail piece. Set identityField to a custom field the template does not use ` +
          `(it uses ${template.requiredMergeFields.join(", ")}).`,
      );
    }
  };

  /**
   * What is on the order now, from a full listing, keeping what is known of dropped recipients.
   * A recipient's content digest is the recorded one if it is the recorded recipient (same id),
   * else the one its identity value carries (UNKNOWN_CONTENT for a key alone under a key
   * column); unless the service lists it otherwise than right after it was appended: then it was
   * changed elsewhere, and its content is UNKNOWN_CONTENT. With `declared`, a recipient of unknown
   * content that the listing shows as its declared row (matchesListed) gets that row's content
   * digest, so that only the others are replaced.
   */
  const reconcile = async (
    orderId: number,
    identity: Identity,
    known: RecipientIndex,
    declared?: LoadedRecipients,
  ) => {
    const current: RecipientIndex = new Map();
    let unmanaged = 0;
    for await (const recipient of ctx.client().iterateRecipients(orderId, { pageSize: PAGE_SIZE })) {
      const found = identityOf(recipient, identity.field, identity.keyed);
      if (found === undefined || current.has(found.key)) {
        unmanaged += 1;
        continue;
      }
      const before = known.get(found.key);
      const listed = listedHash(recipient);
      let content = found.content;
      if (before !== undefined) {
        // What is recorded of this very recipient stands (UNKNOWN_CONTENT included).
        if (idOf(before.id) === recipient.id) content = before.content;
        // It carries the content it was recorded with, yet the service lists it otherwise than
        // right after the append: changed elsewhere (in place, or deleted and added again with
        // the same identity value).
        if (content === before.content && before.listed !== 0 && before.listed !== listed)
          content = UNKNOWN_CONTENT;
      }
      const row = declared?.byKey.get(found.key);
      if (content === UNKNOWN_CONTENT && row && matchesListed(row.recipient, recipient, identity.field))
        content = row.content;
      const marked = before !== undefined && before.id > 0 && !isAccepted(before.id);
      current.set(found.key, {
        id: marked ? markedUndeliverable(recipient.id) : recipient.id,
        content,
        listed,
      });
    }
    for (const [key, entry] of known) if (entry.id === 0 && !current.has(key)) current.set(key, entry);
    return { current, unmanaged };
  };

  /** The declared recipients found in the listing from page `fromPage` on: key → id and listed hash. */
  const listAppended = async (
    orderId: number,
    identity: Identity,
    declared: LoadedRecipients,
    fromPage: number,
  ) => {
    const found = new Map<string, { id: number; listed: number }>();
    for await (const recipient of ctx
      .client()
      .iterateRecipients(orderId, { pageSize: PAGE_SIZE, pageNumber: fromPage })) {
      const carried = identityOf(recipient, identity.field, identity.keyed);
      if (carried === undefined || found.has(carried.key)) continue;
      if (declared.byKey.get(carried.key)?.content !== carried.content) continue;
      found.set(carried.key, { id: recipient.id, listed: listedHash(recipient) });
    }
    return found;
  };

  /** How many recipients the order holds if the record is right. */
  const expectedCount = (index: RecipientIndex, unmanaged: number) =>
    [...index.values()].filter((e) => idOf(e.id) > 0).length + unmanaged;

  return {
    async check(_olds, news) {
      // A new order's id is not known during the first preview; the list is checked all the same.
      const orderUnknown = isUnknown(news.orderId);
      const checked = checkInputs(SourceInputs, orderUnknown ? { ...news, orderId: 1 } : news);
      if (checked.failures?.length) return checked;
      const inputs = checked.inputs as OrderRecipientsInputs;
      if (orderUnknown) inputs.orderId = news.orderId;
      let loaded: LoadedRecipients;
      try {
        loaded = await load(inputs);
      } catch (error) {
        const property = inputs.file !== undefined ? "file" : "recipients";
        return { inputs: news, failures: [{ property, reason: (error as Error).message }] };
      }
      if (loaded.problemCount > 0) {
        return {
          inputs: news,
          failures: [
            {
              property: inputs.file !== undefined ? "file" : "recipients",
              reason: describeProblems(inputs.file ?? "recipients", loaded).join("; "),
            },
          ],
        };
      }
      return {
        inputs: {
          ...inputs,
          digest: loaded.digest,
          declaredCount: loaded.byKey.size,
          duplicateRows: loaded.duplicateRows,
        },
      };
    },

    async diff(_id, olds: OrderRecipientsOutputs, news: OrderRecipientsInputs) {
      if (isUnknown(news.orderId) || olds.orderId !== news.orderId) {
        return { changes: true, replaces: ["orderId"] };
      }
      for (const key of ["identityField", "keyColumn"] as const) {
        if (olds[key] !== news[key]) return { changes: true, replaces: [key] };
      }
      let listChanged = olds.digest !== news.digest;
      if (listChanged) {
        const identity = identityOfInputs(news);
        const plan = planSync((await load(news)).byKey, decodeIndex(olds.index, identity.keyed));
        const order = await ctx.client().getOrder(olds.orderId);
        const editable = !order || isEditable(order.orderStatus);
        if (editable) {
          const compared = plan.unknown > 0 ? " (compared with the order's listing when applied)" : "";
          progress(subject(olds.orderId), `planned: ${describePlan(plan)}${compared}`);
        } else if (!changesKnown(plan)) {
          // Only recipients recorded without their content differ: the order can no longer change,
          // and there is nothing to do.
          listChanged = false;
        } else {
          throw new UserError(
            `Order ${olds.orderId} is "${order.orderStatus}": its recipients cannot change (declared ` +
              `${olds.declaredCount}, now ${news.declaredCount ?? "a different list"}), because the service changes ` +
              `recipients only in ${EDITABLE_STATUSES}. Put the recipient list back as it was, or declare a new ` +
              "Order for a new mailing.",
          );
        }
      }
      const settingsChanged =
        olds.maxDroppedPercent !== news.maxDroppedPercent ||
        olds.file !== news.file ||
        JSON.stringify(olds.recipients) !== JSON.stringify(news.recipients);
      return { changes: listChanged || settingsChanged };
    },

    async create(inputs: OrderRecipientsInputs) {
      const declared = await loadChecked(inputs);
      const identity = identityOfInputs(inputs);
      const order = await editableOrder(inputs.orderId, "adding recipients");
      await refusePrintedIdentityField(order, inputs.identityField);
      // An interrupted earlier run may have appended some already: start from what is there.
      const { current, unmanaged } =
        order.recipientCount > 0
          ? await reconcile(order.orderId, identity, new Map(), declared)
          : { current: new Map(), unmanaged: 0 };
      const outcome = await sync(order, declared, current, unmanaged, identity);
      const outs = outputsOf(inputs, declared, outcome, order.orderStatus);
      progress(
        subject(order.orderId),
        `${outs.acceptedCount} accepted, ${outs.droppedCount} dropped, ${declared.duplicateRows} duplicate rows ignored`,
      );
      guardDrops(outs);
      return { id: String(order.orderId), outs };
    },

    async update(_id, olds: OrderRecipientsOutputs, news: OrderRecipientsInputs) {
      if (olds.digest === news.digest) {
        const outs = { ...olds, ...news };
        guardDrops(outs);
        return { outs };
      }
      const declared = await loadChecked(news);
      const identity = identityOfInputs(news);
      let current = decodeIndex(olds.index, identity.keyed);
      const recorded = planSync(declared.byKey, current);
      if (!changesKnown(recorded)) {
        // As in diff: on an order past Draft only a settings change gets here; nothing to send.
        const live = await ctx.client().getOrder(news.orderId);
        if (live && !isEditable(live.orderStatus)) {
          const outs = { ...olds, ...news, digest: olds.digest };
          guardDrops(outs);
          return { outs };
        }
      }
      const order = await editableOrder(news.orderId, "changing recipients");
      let unmanaged = olds.unmanagedCount;
      const countDiffers = order.recipientCount !== expectedCount(current, unmanaged);
      if (countDiffers || recorded.unknown > 0) {
        // The order holds more or fewer recipients than recorded (an interrupted run, or changes
        // made elsewhere), or some were recorded without their content: learn what is really
        // there before changing anything.
        progress(
          subject(order.orderId),
          countDiffers
            ? "the order's recipients differ from the stack's record; reading them all"
            : `${recorded.unknown} recipients were recorded without their content; reading the order's recipients to compare them with the list`,
        );
        ({ current, unmanaged } = await reconcile(order.orderId, identity, current, declared));
      }
      const outcome = await sync(order, declared, current, unmanaged, identity);
      const outs = outputsOf(news, declared, outcome, order.orderStatus, olds);
      progress(
        subject(order.orderId),
        `${describePlan(outcome.plan)}: ${outcome.deleted} deleted, ${outcome.appended} appended; ` +
          `${outs.acceptedCount} accepted, ${outs.droppedCount} dropped`,
      );
      guardDrops(outs);
      return { outs };
    },

    async read(id, props: OrderRecipientsOutputs) {
      const order = await ctx.client().getOrder(props.orderId ?? Number(id));
      if (!order) return {};
      // Refresh reads every recipient: a removal and an addition elsewhere leave the count as it was.
      const identity = identityOfInputs(props);
      const { current, unmanaged } = await reconcile(
        order.orderId,
        identity,
        decodeIndex(props.index, identity.keyed),
      );
      const accepted = [...current.values()].filter((e) => isAccepted(e.id)).length;
      // Keys recorded but gone from the order were removed elsewhere, and recipients changed
      // elsewhere have an unknown content: the digest of what is really there makes the next `up`
      // put them back.
      const outs: OrderRecipientsOutputs = {
        ...props,
        orderStatus: order.orderStatus,
        index: encodeIndex(current),
        digest: digestOf(
          [...current].map(([key, entry]) => [key, entry.content] as const),
          props.identityField,
        ),
        acceptedCount: accepted,
        droppedCount: current.size - accepted,
        unmanagedCount: unmanaged,
      };
      const {
        index: _i,
        acceptedCount: _a,
        droppedCount: _d,
        unmanagedCount: _u,
        dropReasons: _r,
        droppedSample: _s,
        imageIssueSample: _m,
        orderStatus: _o,
        ...inputs
      } = outs;
      return { id, props: outs, inputs };
    },

    async delete(_id, props: OrderRecipientsOutputs) {
      const client = ctx.client();
      const order = await client.getOrder(props.orderId);
      if (!order) return; // the order is gone, and its recipients with it
      if (!isEditable(order.orderStatus)) {
        retired(props.orderId, order.orderStatus, "its recipients stay at the service and leave this stack");
        return;
      }
      const ids = [...decodeIndex(props.index, props.keyColumn !== undefined).values()]
        .map((entry) => idOf(entry.id))
        .filter((id) => id > 0);
      try {
        for (let i = 0; i < ids.length; i += MAX_RECIPIENTS_PER_REQUEST) {
          await client.deleteRecipients(props.orderId, ids.slice(i, i + MAX_RECIPIENTS_PER_REQUEST));
        }
      } catch (error) {
        if (error instanceof NotFoundError) return;
        throw error;
      }
      progress(subject(props.orderId), `removed ${ids.length} recipients`);
    },
  };
}
