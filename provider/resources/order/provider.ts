/** The provider hooks of `Order` (resource.ts): create or adopt, replace while editable, retire. */
import { DirectMailHttpError, NotFoundError } from "../../api/errors";
import type { OrderAnalyticsEntry } from "../../api/schemas/analytics";
import { ENTRY_STATUS_SUCCESS } from "../../api/schemas/analytics";
import { isEditable, type OrderSummary } from "../../api/schemas/order";
import { analyticsBatcher } from "../../lookups/analytics-batch";
import { checkInputs, inputKeys, isUnknown } from "../check";
import type { ProviderContext, ResourceImplementation } from "../context";
import { isDeletable, notEditable } from "../order-status";
import { progress, retired } from "../progress";
import { UserError } from "../user-error";
import { OrderInputs } from "./inputs";
import { interruptedCreateNotice, interruptedCreates, withCreateMarker } from "./interrupted";
import { OrderOutputFields, type OrderOutputs } from "./outputs";

/** Inputs whose change needs a new order: the service has no way to change an order's inputs. */
const REPLACING_INPUTS = inputKeys(OrderInputs);

function changedInputs(olds: OrderOutputs, news: OrderInputs): (keyof OrderInputs)[] {
  return REPLACING_INPUTS.filter((key) => isUnknown(news[key]) || olds[key] !== news[key]);
}

/** The inputs recorded in a state (its outputs left out). */
function inputsOf(props: OrderOutputs): OrderInputs {
  return Object.fromEntries(
    Object.entries(props).filter(([key]) => !(key in OrderOutputFields)),
  ) as OrderInputs;
}

export function orderImplementation(ctx: ProviderContext): ResourceImplementation<OrderInputs, OrderOutputs> {
  const fetch = async (orderId: number): Promise<OrderSummary | undefined> => ctx.client().getOrder(orderId);
  // A refresh reads every order's analytics; the reads of one moment share one request.
  const analytics = analyticsBatcher(() => ctx.client());

  /** The engagement outputs: the delivery counts of the listing, the scans of the analytics when read. */
  const engagement = (
    order: OrderSummary,
    entry: OrderAnalyticsEntry | undefined,
    before: Partial<OrderOutputs>,
  ): Pick<OrderOutputs, "delivery" | "qrScans" | "lastScan"> => {
    const read = entry?.status === ENTRY_STATUS_SUCCESS ? entry : undefined;
    return {
      delivery: order.deliveryProgress ?? before.delivery ?? null,
      qrScans: read?.qrCode?.totalScans ?? before.qrScans ?? 0,
      lastScan: read?.qrCode?.lastScan ?? before.lastScan ?? null,
    };
  };

  const outputs = (
    inputs: OrderInputs,
    order: OrderSummary,
    adopted: boolean,
    entry?: OrderAnalyticsEntry,
    before: Partial<OrderOutputs> = {},
  ): OrderOutputs => ({
    ...inputs,
    orderId: order.orderId,
    status: order.orderStatus,
    product: order.product,
    postageType: order.postageType,
    recipientCount: order.recipientCount,
    createdDate: order.createdDate,
    updatedDate: order.updatedDate,
    adopted,
    ...engagement(order, entry, before),
  });

  return {
    async check(_olds, news) {
      return checkInputs(OrderInputs, news);
    },

    async diff(id, olds, news) {
      const changed = changedInputs(olds, news);
      if (changed.length === 0) return { changes: false };
      // A new order is safe only while the current one is still a draft; after checkout a
      // replacement would abandon a paid order and start a second campaign. Judge the live status.
      const live = await fetch(Number(id));
      if (live && !isEditable(live.orderStatus)) {
        const field = changed[0] as keyof OrderInputs;
        throw notEditable(live, {
          change: `${field} cannot change (from ${JSON.stringify(olds[field])} to ${JSON.stringify(news[field])})`,
          changes: "orders",
          why: "a replacement would abandon the order it has been paid for",
          fix: "Put the previous value back, or declare a new Order resource for a new campaign.",
        });
      }
      return { changes: true, replaces: changed, deleteBeforeReplace: false };
    },

    async create(inputs) {
      const client = ctx.client();
      if (inputs.existingOrderId !== undefined) {
        const existing = await fetch(inputs.existingOrderId);
        if (!existing) {
          throw new UserError(
            `existingOrderId ${inputs.existingOrderId} names no order of this account; check the id in the web application.`,
          );
        }
        if (existing.templateId !== inputs.templateId) {
          throw new UserError(
            `Order ${existing.orderId} was made from template ${existing.templateId}, not ${inputs.templateId}; ` +
              `set templateId to ${existing.templateId} to adopt it.`,
          );
        }
        progress(`Order ${existing.orderId}`, `adopted (status ${existing.orderStatus})`);
        return { id: String(existing.orderId), outs: outputs(inputs, existing, true) };
      }
      const { existingOrderId: _none, ...body } = inputs;
      const apiKey = ctx.settings().apiKey as string;
      const left = await interruptedCreates(client, apiKey, inputs.templateId);
      if (left) throw new UserError(interruptedCreateNotice(client.baseUrl, inputs.templateId, left));
      const created = await withCreateMarker(client, apiKey, inputs.templateId, () =>
        client.createOrder(body),
      );
      const order = await fetch(created.orderId);
      if (!order)
        throw new UserError(
          `Order ${created.orderId} was created but cannot be read back; run pulumi refresh.`,
        );
      progress(`Order ${order.orderId}`, `created from template ${inputs.templateId}`);
      return { id: String(order.orderId), outs: outputs(inputs, order, false) };
    },

    async read(id, props) {
      const [order, entry] = await Promise.all([fetch(Number(id)), analytics(Number(id))]);
      // An order deleted elsewhere behaves as a nonexistent id: it leaves the state.
      if (!order) return {};
      // No state: an import, whose inputs are what the service says the order was made from.
      const inputs =
        props.templateId === undefined && order.templateId !== null
          ? { templateId: order.templateId }
          : inputsOf(props);
      return { id, props: outputs(inputs, order, Boolean(props.adopted), entry, props) };
    },

    async delete(id, props) {
      const orderId = Number(id);
      const order = await fetch(orderId);
      if (!order) return; // already gone: nothing to do
      if (!isDeletable(order.orderStatus)) {
        retired(orderId, order.orderStatus, "it stays at the service and leaves this stack");
        return;
      }
      // A draft the service still refuses to delete (an automation's template, paid recipient searches).
      const refused = (reason: string) =>
        new UserError(
          `Order ${orderId} is "${order.orderStatus}", but the service does not delete it (${reason}). To keep it at ` +
            "the service and let it leave this stack, set `retain: true` in its campaign file (`retainOnDelete: true` " +
            "on its resources in a program), run `pulumi up`, then remove it.",
        );
      try {
        const result = await ctx.client().deleteOrder(orderId);
        if (result.reasonCode) throw refused(result.reasonCode);
      } catch (error) {
        if (error instanceof NotFoundError) return;
        if (error instanceof DirectMailHttpError && error.status === 400) {
          throw refused(error.errors[0] ?? error.errorCode ?? error.message);
        }
        throw error;
      }
      progress(`Order ${orderId}`, props.adopted ? "deleted (it was adopted)" : "deleted");
    },
  };
}
