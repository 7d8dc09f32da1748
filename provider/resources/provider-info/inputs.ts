/** What a `ProviderInfo` declares. */
import { z } from "zod";

/** The fields a ProviderInfo declares. */
export const ProviderInfoInputFields = {
  /** A label of the caller's choosing, kept in the outputs; a change updates the resource in place. */
  label: z
    .string("label must be a non-empty string")
    .refine((label) => label.trim() !== "", "label must be a non-empty string"),
};
export const ProviderInfoInputs = z.strictObject(ProviderInfoInputFields);
export type ProviderInfoInputs = z.infer<typeof ProviderInfoInputs>;
