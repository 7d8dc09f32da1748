import * as pulumi from "@pulumi/pulumi";
import { withSecretIndex } from "../../recipients/index";
import { forCheckOnly } from "../engine-inputs";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { OrderRecipientsInputFields, ProgramRead, Recipient } from "./inputs";
import { OrderRecipientsOutputFields } from "./outputs";

/**
 * The recipient list of an order, without the order: the part of {@link OrderRecipientsArgs} that a
 * Campaign declares. `Key` is the `keyColumn`, inferred from it, which inline recipients may carry.
 */
export interface RecipientListArgs<Key extends string = never>
  extends Omit<ArgsOf<typeof OrderRecipientsInputFields>, "orderId" | "recipients" | "keyColumn"> {
  /**
   * Recipients written in the program: a small list, as it is stored in the state as written. Give
   * either `recipients` or `file`. A misspelled field is a type error; at preview, every problem is
   * reported with its row and field.
   */
  recipients?: pulumi.Input<pulumi.Input<Recipient<NoInfer<Key>>>[]> | undefined;
  /**
   * A column (or field of an inline recipient) that identifies each recipient, such as a customer
   * id; it is not sent. Without it, a recipient's content identifies it. With it, a row whose other
   * fields change under the same key replaces that recipient. A change replaces every recipient.
   * Never a column of personal data (a name, an address, an e-mail, a phone): the key shows in
   * reviews and in the state, and `check` refuses one.
   */
  keyColumn?: pulumi.Input<Key> | undefined;
}

/** The arguments of {@link OrderRecipients}. */
export interface OrderRecipientsArgs<Key extends string = never>
  extends RecipientListArgs<Key>,
    Pick<ArgsOf<typeof OrderRecipientsInputFields>, "orderId"> {}

// The resource's Output properties, merged into the class below: the outputs schema's fields and the
// required inputs, which the engine sets when the provider answers.
// biome-ignore lint/correctness/noUnusedVariables: a merged declaration repeats the class's type parameters.
export interface OrderRecipients<Key extends string = never>
  extends OutputProperties<typeof OrderRecipientsOutputFields, typeof OrderRecipientsInputFields> {}

/**
 * The recipient set of one order, declared inline (`recipients`) or in a file (`file`: CSV, JSON,
 * JSON Lines). An update sends only what changed: removed recipients are deleted, new ones appended,
 * and a changed one replaced. The state keeps a digest and a compact index, never the rows of a
 * file. Once the order is past `Draft`/`Edits Needed`, a change of the list fails the plan.
 * See docs/resources.md for how recipients are identified.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only declares the Output properties the engine sets.
export class OrderRecipients<Key extends string = never> extends pulumi.CustomResource {
  constructor(name: string, args: OrderRecipientsArgs<Key>, opts?: pulumi.CustomResourceOptions) {
    // A CampaignFolder's read of the list (`programRead`): for check alone, never stored or compared.
    const { programRead, ...declared } = args as OrderRecipientsArgs<Key> & { programRead?: ProgramRead };
    super(
      resourceType(KIND.OrderRecipients, opts),
      name,
      withStoredProvider(KIND.OrderRecipients, {
        ...declared,
        ...forCheckOnly("programRead", programRead),
        ...outputPlaceholders(OrderRecipientsOutputFields),
      }),
      withSecretIndex(opts),
    );
  }
}
