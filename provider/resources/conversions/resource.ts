import * as pulumi from "@pulumi/pulumi";
import { withSecretIndex } from "../../recipients/index";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { ConversionsInputFields } from "./inputs";
import { ConversionsOutputFields } from "./outputs";

/** The arguments of a {@link Conversions}. */
export interface ConversionsArgs extends ArgsOf<typeof ConversionsInputFields> {}

// The resource's Output properties, merged into the class below.
export interface Conversions
  extends OutputProperties<typeof ConversionsOutputFields, typeof ConversionsInputFields> {}

/**
 * Conversion events uploaded for matchback and attribution, from a file (CSV, JSON, JSON Lines) or
 * inline, in uploads of at most 5,000 records. An update sends only what changed: an upload that
 * holds a removed or changed record is deleted and its other records uploaded again with the new
 * ones. Records the service refuses are reported with their row and field. `refresh` reads each
 * upload's status; destroy deletes the uploads and waits for the service to complete it.
 * See docs/resources.md.
 */
export class Conversions extends pulumi.CustomResource {
  constructor(name: string, args: ConversionsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.Conversions, opts),
      name,
      withStoredProvider(KIND.Conversions, { ...args, ...outputPlaceholders(ConversionsOutputFields) }),
      withSecretIndex(opts),
    );
  }
}
