/**
 * `OrderRecipients`: the recipient set of one order, declared inline or in a file (CSV, JSON,
 * JSON Lines). The state keeps a digest and a compact index (key → recipient id), never the rows
 * of a file, and an update sends only what changed. See docs/resources.md for the identity design.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { DirectMailClient } from "../api/client";
import { NotFoundError } from "../api/errors";
import { newOrderRecipient } from "../api/recipients";
import type { OrderSummary } from "../api/schemas/order";
import { MAX_RECIPIENTS_PER_REQUEST, type OrderRecipient } from "../api/schemas/recipient";
import { projectRoot } from "../project";
import { checkInputs, isUnknown } from "./check";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { EDITABLE_STATUSES, isEditable } from "./order-status";
import { progress } from "./progress";
import { type DeclaredRecipient, IDENTITY_FIELDS, type IdentityField } from "./recipients/declared";
import { decodeIndex, encodeIndex, type RecipientIndex } from "./recipients/index-codec";
import {
  describeProblems,
  digestOf,
  KEY_HEX_LENGTH,
  type LoadedRecipients,
  loadRecipients,
} from "./recipients/source";
import { thinProvider } from "./thin-provider";

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
  /** key → recipient id (0: dropped by the service), compact; see recipients/index-codec.ts. */
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

/**
 * Index values: the recipient's id at the service; 0 for a recipient the service dropped and did
 * not keep; the id with UNDELIVERABLE set for one it kept on the order but marked undeliverable
 * (do-not-mail), which still has to be deleted when it leaves the list.
 */
const UNDELIVERABLE = 0x8000_0000;
const idOf = (value: number) => value & ~UNDELIVERABLE & 0xffff_ffff;
const isAccepted = (value: number) => value > 0 && (value & UNDELIVERABLE) === 0;

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

const ADDRESS_FIELDS = new Set(["address1", "address2", "city", "state", "zipCode", "country"]);
const PERSONAL_FIELDS = new Set(["firstName", "lastName", "toOrganization", "salutation"]);

/** The wire shape of a declared recipient, its key in the identity field (declared names are wire names). */
function toWire(recipient: DeclaredRecipient, key: string, identityField: IdentityField): OrderRecipient {
  const address: Record<string, string> = {};
  const personal: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const [field, value] of Object.entries(recipient)) {
    if (value === undefined) continue;
    if (ADDRESS_FIELDS.has(field)) address[field] = value;
    else if (PERSONAL_FIELDS.has(field)) personal[field] = value;
    else metadata[field] = value;
  }
  // The service reads the salutation in both groups.
  if (recipient.salutation !== undefined) metadata.salutation = recipient.salutation;
  metadata[identityField] = key;
  return newOrderRecipient({ address, personal, metadata });
}

/** The identity key a listed recipient carries, or undefined for one this program did not add. */
function keyOf(recipient: OrderRecipient, identityField: IdentityField): string | undefined {
  const value = recipient.metadata[identityField];
  return typeof value === "string" && value.length === KEY_HEX_LENGTH && /^[0-9a-f]+$/.test(value)
    ? value
    : undefined;
}

interface Listing {
  /** Managed recipients found: key → id. */
  present: Map<string, number>;
  unmanaged: number;
}

async function listRecipients(
  client: DirectMailClient,
  orderId: number,
  identityField: IdentityField,
  fromPage = 1,
): Promise<Listing> {
  const present = new Map<string, number>();
  let unmanaged = 0;
  for await (const recipient of client.iterateRecipients(orderId, {
    pageSize: PAGE_SIZE,
    pageNumber: fromPage,
  })) {
    const key = keyOf(recipient, identityField);
    if (key === undefined || present.has(key)) unmanaged += 1;
    else present.set(key, recipient.id);
  }
  return { present, unmanaged };
}

interface SyncOutcome {
  index: RecipientIndex;
  unmanaged: number;
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
      throw new Error(`Order ${orderId} does not exist (or was deleted); ${change} is not possible.`);
    if (!isEditable(order.orderStatus)) {
      throw new Error(
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
      throw new Error(
        [
          "the recipient list has problems; nothing was changed:",
          ...describeProblems(inputs.file ?? "recipients", loaded),
        ].join("\n  "),
      );
    }
    if (inputs.digest !== undefined && loaded.digest !== inputs.digest) {
      throw new Error(
        `${inputs.file ?? "the recipient list"} changed while this deployment ran (its digest differs from the ` +
          "one the plan was made with); nothing was changed. Run the command again.",
      );
    }
    return loaded;
  };

  /**
   * Brings the order's recipients to the declared set: deletes the managed recipients no longer
   * declared, appends the declared ones not yet there, and records each appended key's id. `current`
   * is what is known to be on the order; it must be exact (callers reconcile from a listing when the
   * order's recipient count says it is not).
   */
  const sync = async (
    order: OrderSummary,
    declared: LoadedRecipients,
    current: RecipientIndex,
    unmanaged: number,
    identityField: IdentityField,
  ): Promise<SyncOutcome> => {
    const client = ctx.client();
    const orderId = order.orderId;
    const index: RecipientIndex = new Map();
    const removeIds: number[] = [];
    for (const [key, value] of current) {
      if (declared.byKey.has(key)) index.set(key, value);
      else if (idOf(value) > 0) removeIds.push(idOf(value));
    }
    for (let i = 0; i < removeIds.length; i += MAX_RECIPIENTS_PER_REQUEST) {
      const batch = removeIds.slice(i, i + MAX_RECIPIENTS_PER_REQUEST);
      await client.deleteRecipients(orderId, batch);
    }
    if (removeIds.length > 0)
      progress(subject(orderId), `removed ${removeIds.length} recipients no longer declared`);

    const toAppend = [...declared.byKey.values()].filter((r) => !index.has(r.key));
    const dropReasons: Record<string, number> = {};
    const droppedSample: DropSample[] = [];
    const imageIssueSample: SyncOutcome["imageIssueSample"] = [];
    const reasonByKey = new Map<string, string>();
    const countBefore = Math.max(0, order.recipientCount - removeIds.length);
    let accepted = 0;
    for (let i = 0; i < toAppend.length; i += MAX_RECIPIENTS_PER_REQUEST) {
      const batch = toAppend.slice(i, i + MAX_RECIPIENTS_PER_REQUEST);
      const result = await client.appendRecipients(
        orderId,
        batch.map((r) => toWire(r.recipient, r.key, identityField)),
      );
      accepted += result.acceptedRecipients;
      for (const dropped of result.undeliverable.undeliverableRecipients) {
        const key = keyOf(dropped, identityField);
        if (key) reasonByKey.set(key, dropped.reason);
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
      let listing = await listRecipients(
        client,
        orderId,
        identityField,
        Math.floor(countBefore / PAGE_SIZE) + 1,
      );
      const found = toAppend.filter((r) => listing.present.has(r.key)).length;
      if (found < accepted) listing = await listRecipients(client, orderId, identityField);
      for (const r of toAppend) {
        const recipientId = listing.present.get(r.key);
        const reason = reasonByKey.get(r.key) ?? (recipientId === undefined ? "dropped" : undefined);
        if (reason === undefined) {
          index.set(r.key, recipientId as number);
          continue;
        }
        // Dropped (or kept but marked undeliverable): remembered, so that it is not sent again
        // until its details change.
        index.set(r.key, recipientId === undefined ? 0 : (recipientId | UNDELIVERABLE) >>> 0);
        dropReasons[reason] = (dropReasons[reason] ?? 0) + 1;
        if (droppedSample.length < SAMPLE_SIZE) droppedSample.push({ row: r.row, reason });
      }
    }
    return {
      index,
      unmanaged,
      appended: toAppend.length,
      deleted: removeIds.length,
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
    const droppedCount = values.filter((v) => !isAccepted(v)).length;
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
      throw new Error(
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
      throw new Error(
        `Template ${template.id} ("${template.name}") prints ${identityField}, which would carry each recipient's ` +
          `identity key onto the mail piece. Set identityField to a custom field the template does not use ` +
          `(it uses ${template.requiredMergeFields.join(", ")}).`,
      );
    }
  };

  /** What is on the order now, from a full listing, keeping what is known of dropped recipients. */
  const reconcile = async (orderId: number, identityField: IdentityField, known: RecipientIndex) => {
    const listing = await listRecipients(ctx.client(), orderId, identityField);
    const current: RecipientIndex = new Map();
    for (const [key, recipientId] of listing.present) {
      const before = known.get(key);
      const marked = before !== undefined && before > 0 && !isAccepted(before);
      current.set(key, marked ? (recipientId | UNDELIVERABLE) >>> 0 : recipientId);
    }
    for (const [key, value] of known) if (value === 0 && !current.has(key)) current.set(key, 0);
    return { current, unmanaged: listing.unmanaged };
  };

  /** How many recipients the order holds if the record is right. */
  const expectedCount = (index: RecipientIndex, unmanaged: number) =>
    [...index.values()].filter((v) => idOf(v) > 0).length + unmanaged;

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
      const listChanged = olds.digest !== news.digest;
      if (listChanged) {
        const order = await ctx.client().getOrder(olds.orderId);
        if (order && !isEditable(order.orderStatus)) {
          throw new Error(
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
      const order = await editableOrder(inputs.orderId, "adding recipients");
      await refusePrintedIdentityField(order, inputs.identityField);
      // An interrupted earlier run may have appended some already: start from what is there.
      const { current, unmanaged } =
        order.recipientCount > 0
          ? await reconcile(order.orderId, inputs.identityField, new Map())
          : { current: new Map<string, number>(), unmanaged: 0 };
      const outcome = await sync(order, declared, current, unmanaged, inputs.identityField);
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
      const order = await editableOrder(news.orderId, "changing recipients");
      let current = decodeIndex(olds.index);
      let unmanaged = olds.unmanagedCount;
      if (order.recipientCount !== expectedCount(current, unmanaged)) {
        // The order holds more or fewer recipients than recorded (an interrupted run, or changes
        // made elsewhere): learn what is really there before changing anything.
        progress(
          subject(order.orderId),
          "the order's recipients differ from the stack's record; reading them all",
        );
        ({ current, unmanaged } = await reconcile(order.orderId, news.identityField, current));
      }
      const outcome = await sync(order, declared, current, unmanaged, news.identityField);
      const outs = outputsOf(news, declared, outcome, order.orderStatus, olds);
      progress(
        subject(order.orderId),
        `${outcome.appended} appended, ${outcome.deleted} removed; ${outs.acceptedCount} accepted, ${outs.droppedCount} dropped`,
      );
      guardDrops(outs);
      return { outs };
    },

    async read(id, props: OrderRecipientsOutputs) {
      const order = await ctx.client().getOrder(props.orderId ?? Number(id));
      if (!order) return {};
      // Refresh reads every recipient: a removal and an addition elsewhere leave the count as it was.
      const { current, unmanaged } = await reconcile(
        order.orderId,
        props.identityField,
        decodeIndex(props.index),
      );
      const accepted = [...current.values()].filter(isAccepted).length;
      // Keys recorded but gone from the order were removed elsewhere; the digest of what is really
      // there makes the next `up` put them back.
      const outs: OrderRecipientsOutputs = {
        ...props,
        orderStatus: order.orderStatus,
        index: encodeIndex(current),
        digest: digestOf(current.keys(), props.identityField),
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
        throw new Error(
          `Order ${props.orderId} is "${order.orderStatus}": its recipients cannot be removed (the service ` +
            `removes recipients only in ${EDITABLE_STATUSES}). To stop managing them, set \`retainOnDelete: true\` ` +
            "on this OrderRecipients (and its Order and Checkout) and run `pulumi up`, or remove them from the " +
            "state with `pulumi state delete <urn>`.",
        );
      }
      const ids = [...decodeIndex(props.index).values()].map(idOf).filter((id) => id > 0);
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
