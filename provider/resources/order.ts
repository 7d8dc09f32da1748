/**
 * `Order`: one order of the service, made from a template (or adopted: an existing order, such as
 * one made in the web application, taken under management).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { DirectMailHttpError, NotFoundError } from "../api/errors";
import type { OrderSummary } from "../api/schemas/order";
import { checkInputs, isUnknown } from "./check";
import type { ProviderContext, ResourceImplementation } from "./implementation";
import { EDITABLE_STATUSES, isDeletable, isEditable } from "./order-status";
import { progress, retired } from "./progress";
import { thinProvider } from "./thin-provider";
import { UserError } from "./user-error";

export interface OrderArgs {
  /** The template (itself an order that is never fulfilled) the order is made from. */
  templateId: pulumi.Input<number>;
  /** true keeps the template's QR code, false removes it; omit for the template's setting. */
  useQr?: pulumi.Input<boolean>;
  /** Overrides the template's QR target. */
  qrUrl?: pulumi.Input<string>;
  /** One of the service's handwriting styles; omit for the template's default. */
  handwritingFont?: pulumi.Input<string>;
  /**
   * Adopt this existing order instead of creating one (an order made in the web application, say).
   * `create` reads it and checks that it was made from `templateId`; nothing is created.
   */
  existingOrderId?: pulumi.Input<number>;
}

export const OrderInputs = z.strictObject({
  templateId: z.int("templateId must be a whole number: the id of a template order").positive(),
  useQr: z.boolean("useQr must be true or false").optional(),
  qrUrl: z.url("qrUrl must be an absolute URL such as https://example.com/offer").optional(),
  handwritingFont: z.string().trim().min(1, "handwritingFont must not be empty").optional(),
  existingOrderId: z.int("existingOrderId must be a whole number: the id of an order").positive().optional(),
});
export type OrderInputs = z.infer<typeof OrderInputs>;

/** Inputs whose change needs a new order: the service has no way to change them on an order. */
const REPLACING_INPUTS = ["templateId", "useQr", "qrUrl", "handwritingFont", "existingOrderId"] as const;

export interface OrderOutputs extends OrderInputs {
  orderId: number;
  status: string;
  product: string | null;
  postageType: string | null;
  recipientCount: number;
  createdDate: string;
  updatedDate: string;
  adopted: boolean;
}

export class Order extends pulumi.dynamic.Resource {
  declare readonly templateId: pulumi.Output<number>;
  declare readonly orderId: pulumi.Output<number>;
  declare readonly status: pulumi.Output<string>;
  declare readonly product: pulumi.Output<string | null>;
  declare readonly postageType: pulumi.Output<string | null>;
  declare readonly recipientCount: pulumi.Output<number>;
  declare readonly createdDate: pulumi.Output<string>;
  declare readonly updatedDate: pulumi.Output<string>;
  declare readonly adopted: pulumi.Output<boolean>;

  constructor(name: string, args: OrderArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("Order"),
      name,
      {
        ...args,
        orderId: undefined,
        status: undefined,
        product: undefined,
        postageType: undefined,
        recipientCount: undefined,
        createdDate: undefined,
        updatedDate: undefined,
        adopted: undefined,
      },
      opts,
      "directmail",
      "Order",
    );
  }
}

function changedInputs(olds: Record<string, unknown>, news: Record<string, unknown>): string[] {
  return REPLACING_INPUTS.filter((key) => isUnknown(news[key]) || olds[key] !== news[key]);
}

export function orderImplementation(ctx: ProviderContext): ResourceImplementation {
  const fetch = async (orderId: number): Promise<OrderSummary | undefined> => ctx.client().getOrder(orderId);

  const outputs = (inputs: OrderInputs, order: OrderSummary, adopted: boolean): OrderOutputs => ({
    ...inputs,
    orderId: order.orderId,
    status: order.orderStatus,
    product: order.product,
    postageType: order.postageType,
    recipientCount: order.recipientCount,
    createdDate: order.createdDate,
    updatedDate: order.updatedDate,
    adopted,
  });

  return {
    async check(_olds, news) {
      return checkInputs(OrderInputs, news);
    },

    async diff(id, olds: OrderOutputs, news: OrderInputs) {
      const changed = changedInputs(olds as any, news as any);
      if (changed.length === 0) return { changes: false };
      // A new order is safe only while the current one is still a draft; after checkout a
      // replacement would abandon a paid order and start a second campaign. Judge the live status.
      const live = await fetch(Number(id));
      if (live && !isEditable(live.orderStatus)) {
        const field = changed[0] as string;
        throw new UserError(
          `Order ${id} is "${live.orderStatus}", so ${field} cannot change ` +
            `(from ${JSON.stringify(olds[field as keyof OrderOutputs])} to ${JSON.stringify(news[field as keyof OrderInputs])}): ` +
            `the service changes orders only in ${EDITABLE_STATUSES}, and a replacement would abandon the order ` +
            "it has been paid for. Put the previous value back, or declare a new Order resource for a new campaign.",
        );
      }
      return { changes: true, replaces: changed, deleteBeforeReplace: false };
    },

    async create(inputs: OrderInputs) {
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
      const created = await client.createOrder(body);
      const order = await fetch(created.orderId);
      if (!order)
        throw new UserError(
          `Order ${created.orderId} was created but cannot be read back; run pulumi refresh.`,
        );
      progress(`Order ${order.orderId}`, `created from template ${inputs.templateId}`);
      return { id: String(order.orderId), outs: outputs(inputs, order, false) };
    },

    async read(id, props: OrderOutputs) {
      const order = await fetch(Number(id));
      // An order deleted elsewhere behaves as a nonexistent id: it leaves the state.
      if (!order) return {};
      const {
        orderId: _o,
        status: _s,
        product: _p,
        postageType: _t,
        recipientCount: _r,
        createdDate: _c,
        updatedDate: _u,
        adopted,
        ...inputs
      } = props;
      return { id, props: outputs(inputs, order, Boolean(adopted)) };
    },

    async delete(id, props: OrderOutputs) {
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
