/**
 * The provider hooks of `OrderRecipients` (resource.ts): check reads and judges the declared list,
 * diff plans the change, create and update bring the order to the list (apply.ts, over sync.ts),
 * read compares it with what the order holds, and delete removes the recipients of a draft. The
 * list is read in declared-list.ts; the rules a change must pass are in guards.ts.
 */
import { NotFoundError } from "../../api/errors";
import { isEditable } from "../../api/schemas/order";
import {
  changesKnown,
  decodeIndex,
  describePlan,
  describeProblems,
  digestOfSet,
  idOf,
  isAccepted,
  planSync,
  type RecipientSurvey,
} from "../../recipients/index";
import { checkInputs, isUnknown, UNKNOWN } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { noteRecipientChange, recipientChangeApplied } from "../plan-notes";
import { progress, retired } from "../progress";
import {
  applyCreate,
  applyUpdate,
  encodedIndex,
  figuresOf,
  identityOfInputs,
  outputsOf,
  redactedDrops,
} from "./apply";
import { load, programFigures, sourceOf } from "./declared-list";
import { guardDrops, listFailure, recipientsFrozen, refusalOf } from "./guards";
import { OrderRecipientsInputs } from "./inputs";
import { namedChanges } from "./named";
import type { OrderRecipientsOutputs } from "./outputs";
import { deleteIds, expectedCount, reconcile, subject } from "./sync";

export function orderRecipientsImplementation(
  ctx: ProviderContext,
): ResourceImplementation<OrderRecipientsInputs, OrderRecipientsOutputs> {
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
      let loaded: RecipientSurvey;
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
      // A list replaced on the same order (a changed key, `replaceOnChanges`) is deleted first: a new
      // list created first would keep the recipients the order holds, which the old one's delete removes.
      for (const key of ["identityField", "keyColumn"] as const) {
        if (olds[key] !== news[key]) return { changes: true, replaces: [key], deleteBeforeReplace: true };
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
      return listChanged || settingsChanged
        ? { changes: true, deleteBeforeReplace: true }
        : { changes: false };
    },

    async create(inputs) {
      const applied = await applyCreate(ctx, inputs);
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
      const applied = await applyUpdate(ctx, olds, news);
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
      // Keys recorded but gone from the order were removed elsewhere, and recipients changed
      // elsewhere have an unknown content: the digest of what is really there makes the next `up`
      // put them back.
      const outs: OrderRecipientsOutputs = {
        ...props,
        ...redactedDrops(props),
        orderStatus: order.orderStatus,
        index: encodedIndex(current),
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
