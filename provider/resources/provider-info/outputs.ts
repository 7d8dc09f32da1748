/** What a `ProviderInfo` reports, beside its label. */
import { z } from "zod";
import type { OutputOf } from "../types";
import type { ProviderInfoInputs } from "./inputs";

export const ProviderInfoOutputFields = {
  /** The service's base URL the directmail resources of this stack talk to. */
  baseUrl: z.string(),
  /** Where the base URL came from: `config` (directmail:baseUrl), `environment` (DIRECTMAIL_BASE_URL) or `default` (the local sandbox). */
  baseUrlSource: z.enum(["config", "environment", "default"]),
  /** Whether an API key is configured (the key itself is never an output). */
  apiKeyConfigured: z.boolean(),
  /** The version of pulumi-directmail that serves the stack. */
  providerVersion: z.string(),
};
export type ProviderInfoOutputFields = OutputOf<typeof ProviderInfoOutputFields>;

/** The state of a ProviderInfo: its inputs and its outputs. */
export type ProviderInfoOutputs = ProviderInfoInputs & ProviderInfoOutputFields;
