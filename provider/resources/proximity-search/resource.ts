import * as pulumi from "@pulumi/pulumi";
import { KIND } from "../kinds";
import { resourceType, withStoredProvider } from "../thin-provider";
import { type ArgsOf, type OutputProperties, outputPlaceholders } from "../types";
import type { ProximitySearchInputFields } from "./inputs";
import { ProximitySearchOutputFields } from "./outputs";

/** The arguments of a {@link ProximitySearch}. */
export interface ProximitySearchArgs extends ArgsOf<typeof ProximitySearchInputFields> {}

// The resource's Output properties, merged into the class below.
export interface ProximitySearch
  extends OutputProperties<typeof ProximitySearchOutputFields, typeof ProximitySearchInputFields> {}

/**
 * One proximity search of an integration order: the service finds addresses around the given ones,
 * with the filters, and mails each (a paid search; the pieces cannot be recalled). Validated before
 * sending, each problem naming its field; create-only: a change is refused (declare a new one);
 * `refresh` follows the asynchronous discovery. Destroy forgets it. See docs/resources.md.
 */
export class ProximitySearch extends pulumi.CustomResource {
  constructor(name: string, args: ProximitySearchArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      resourceType(KIND.ProximitySearch, opts),
      name,
      withStoredProvider(KIND.ProximitySearch, {
        ...args,
        ...outputPlaceholders(ProximitySearchOutputFields),
      }),
      opts,
    );
  }
}
