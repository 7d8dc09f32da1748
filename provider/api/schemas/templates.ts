import { z } from "zod";
import { id } from "./common";

/**
 * A template (an order that is never fulfilled). The spec shows neither path nor fields; these are
 * the ones this project relies on (matching the sandbox's template control call). Other fields
 * the service sends are dropped.
 */
export const Template = z
  .object({
    id: id().describe("Order id of the template; pass it as `templateId`."),
    name: z.string(),
    product: z.string().nullish(),
    hasQr: z.boolean().optional(),
    qrUrl: z.string().nullish(),
    requiredMergeFields: z.array(z.string()).optional(),
  })
  .meta({ id: "Template", description: "An active template (assumed shape)." });
export type Template = z.infer<typeof Template>;

/** Payload of the templates listing (`GET /v1/templates` assumed). */
export const TemplateList = z.array(Template).meta({ id: "TemplateList", description: "Active templates." });

/**
 * A handwriting font; `name` is what `handwritingFont` takes. Fields beyond it are not shown; `type`
 * tells the service's styles (`Global`) from the account's uploaded fonts (`Uploaded`), which order
 * creation rejects.
 */
export const Font = z
  .object({
    name: z.string(),
    displayName: z.string().nullish(),
    type: z
      .string()
      .nullish()
      .describe(
        "`Global`: a handwriting style of the service; `Uploaded`: an account font (not for orders).",
      ),
  })
  .meta({ id: "Font", description: "A handwriting style of the service (assumed shape)." });
export type Font = z.infer<typeof Font>;

/** Payload of the fonts listing (`GET /v1/fonts` assumed). */
export const FontList = z.array(Font).meta({ id: "FontList", description: "Handwriting fonts." });
