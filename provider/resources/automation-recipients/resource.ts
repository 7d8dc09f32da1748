import * as pulumi from "@pulumi/pulumi";
import { withSecretIndex } from "../../recipients/index";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { AutomationRecipientsInputFields } from "./inputs";
import { AutomationRecipientsOutputFields } from "./outputs";

/** The arguments of an {@link AutomationRecipients}. */
export interface AutomationRecipientsArgs extends ArgsOf<typeof AutomationRecipientsInputFields> {}

// The resource's Output properties, merged into the class below.
export interface AutomationRecipients
  extends OutputProperties<typeof AutomationRecipientsOutputFields, typeof AutomationRecipientsInputFields> {}

/**
 * Recipients sent to an integration order (automation), which mails each one as it arrives: it
 * spends money and cannot be undone, like a Checkout. Each recipient is sent once and never
 * replaced; a recipient removed from the list is forgotten (its piece is mailed already). The
 * service's refusals (422) are reported per recipient with their reason code. `maxNew` stops a plan
 * that would mail more recipients than allowed. See docs/resources.md.
 */
export class AutomationRecipients extends pulumi.CustomResource {
  constructor(name: string, args: AutomationRecipientsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.AutomationRecipients, opts),
      name,
      withStoredProvider(KIND.AutomationRecipients, {
        ...args,
        ...outputPlaceholders(AutomationRecipientsOutputFields),
      }),
      withSecretIndex(opts),
    );
  }
}
