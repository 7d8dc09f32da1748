/**
 * The rules an `OrderRecipients` change must pass, and its refusals: a list changed while the
 * deployment ran, a file that cannot be read, recipients of an order past draft, an identity key
 * the template would print, more drops than `maxDroppedPercent`. Each is one message that says what
 * to do.
 */
import { isEditable, type OrderSummary } from "../../api/schemas/order";
import { OutsideRootError } from "../../file-root";
import { SourceFileError } from "../../files/text";
import type { IdentityField } from "../../recipients/index";
import { oneLine, rowsText } from "../../text";
import type { ProviderContext } from "../context";
import { notEditable } from "../order-status";
import { UserError } from "../user-error";
import type { OrderRecipientsInputs } from "./inputs";
import type { OrderRecipientsOutputs } from "./outputs";

/** What is wrong with the declared file itself (outside its root, unreadable, broken): a refusal, one line. */
export function refusalOf(error: unknown): unknown {
  if (error instanceof OutsideRootError) return new UserError(`file: ${error.message}`);
  if (error instanceof SourceFileError) return new UserError(error.message);
  return error;
}

/** The refusal of a list edited since the plan was made (its digest differs, or its rows do). */
export const listChangedMidway = (inputs: OrderRecipientsInputs) =>
  new UserError(
    `${inputs.file ?? "the recipient list"} changed while this deployment ran (its digest differs from the ` +
      "one the plan was made with); nothing was changed. Run the command again.",
  );

/** The refusal of a recipient change on an order past draft. */
export const recipientsFrozen = (order: OrderSummary, change: string) =>
  notEditable(order, {
    change,
    changes: "recipients",
    fix:
      "Put the recipient list back as it was. To mail the changed list, declare it as a new campaign (a new " +
      "Order), and keep this campaign as it was or remove it: an order past draft stays at the service " +
      "(`retain: true` keeps any order there).",
  });

/**
 * A check failure of the declared list. A file's failure is its `file` property (the engine shows
 * its value, the path). Inline recipients have no property: the engine would print the whole list
 * beside the message, which names each row and field already.
 */
export function listFailure(inputs: OrderRecipientsInputs, reason: string) {
  return { property: inputs.file !== undefined ? "file" : "", reason };
}

/** The order, if it exists and is still a draft whose recipients may change; a refusal otherwise. */
export async function editableOrder(
  ctx: ProviderContext,
  orderId: number,
  change: string,
): Promise<OrderSummary> {
  const order = await ctx.client().getOrder(orderId);
  if (!order)
    throw new UserError(`Order ${orderId} does not exist (or was deleted); ${change} is not possible.`);
  if (!isEditable(order.orderStatus)) throw recipientsFrozen(order, `${change} is not possible`);
  return order;
}

/**
 * The identity key must never be printed: refuse an identity field that the order's template
 * lists among the merge fields it prints.
 */
export async function refusePrintedIdentityField(
  ctx: ProviderContext,
  order: OrderSummary,
  identityField: IdentityField,
): Promise<void> {
  if (order.templateId === null) return;
  const template = (await ctx.client().listTemplates()).find((t) => t.id === order.templateId);
  if (template?.requiredMergeFields?.includes(identityField)) {
    throw new UserError(
      `Template ${template.id} ("${oneLine(template.name)}") prints ${identityField}, which would carry each recipient's ` +
        `identity key onto the mail piece. Set identityField to a custom field the template does not use ` +
        `(it uses ${oneLine(template.requiredMergeFields.join(", "))}).`,
    );
  }
}

/** Refuses outputs whose drops exceed `maxDroppedPercent`: the accepted recipients stay on the order. */
export function guardDrops(outs: OrderRecipientsOutputs): void {
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
}
